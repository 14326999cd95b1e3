import { type Cue, ImportError, type SourceFile } from '../cues.js';
import { parseClock } from './clock-time.js';
import { decodeText } from './text-decode.js';

/**
 * The JSON the transcribers write (docs/design.md §9):
 * - whisper.cpp `-oj` / `-ojf`: `transcription[]` with `timestamps` (`00:00:01,240`),
 *   `offsets` (ms), `text`, with `-di` a `speaker` ("0", "1", "?") and with `-tdrz`
 *   `speaker_turn_next`; `-ojf` adds `tokens`, which are not needed.
 * - WhisperX (and openai-whisper): `segments[]` with `start`, `end` in seconds, `text`, and a
 *   `speaker` (`SPEAKER_00`) after diarization.
 */
export function readWhisperJson(file: SourceFile): Cue[] {
  let data: unknown;
  try {
    data = JSON.parse(decodeText(file));
  } catch (err) {
    throw new ImportError(`${file.name} is not valid JSON (${(err as Error).message})`);
  }
  const root = (data ?? {}) as { transcription?: unknown; segments?: unknown };
  if (Array.isArray(root.transcription)) return whisperCpp(root.transcription);
  if (Array.isArray(root.segments)) return whisperX(root.segments);
  throw new ImportError(
    `${file.name} is JSON but no transcript this import knows: expected whisper.cpp's "transcription" array (-oj/-ojf) or WhisperX's "segments" array`,
  );
}

interface CppSegment {
  timestamps?: { from?: unknown; to?: unknown };
  offsets?: { from?: unknown; to?: unknown };
  text?: unknown;
  speaker?: unknown;
  speaker_turn_next?: unknown;
}

function seconds(offsetMs: unknown, stamp: unknown): number | undefined {
  if (typeof offsetMs === 'number' && Number.isFinite(offsetMs)) return offsetMs / 1000;
  return typeof stamp === 'string' ? parseClock(stamp) : undefined;
}

function whisperCpp(segments: unknown[]): Cue[] {
  const cues: Cue[] = [];
  let turn = false;
  for (const s of segments as CppSegment[]) {
    const start = seconds(s?.offsets?.from, s?.timestamps?.from) ?? cues.at(-1)?.end ?? 0;
    const end = seconds(s?.offsets?.to, s?.timestamps?.to) ?? start;
    const text = typeof s?.text === 'string' ? s.text.replace(/\s+/g, ' ').trim() : '';
    const label = typeof s?.speaker === 'string' || typeof s?.speaker === 'number' ? String(s.speaker).trim() : '';
    const speaker = /^\d+$/.test(label) ? `Speaker ${label}` : label === '?' || label === '' ? undefined : label;
    if (text !== '') cues.push({ start, end, ...(speaker ? { speaker } : {}), text, ...(turn && !speaker ? { turn } : {}) });
    if (text !== '' || s?.speaker_turn_next === true) turn = s?.speaker_turn_next === true;
  }
  return cues;
}

interface XSegment {
  start?: unknown;
  end?: unknown;
  text?: unknown;
  speaker?: unknown;
}

function whisperX(segments: unknown[]): Cue[] {
  const cues: Cue[] = [];
  for (const s of segments as XSegment[]) {
    const start = typeof s?.start === 'number' ? s.start : (cues.at(-1)?.end ?? 0);
    const end = typeof s?.end === 'number' ? s.end : start;
    const text = typeof s?.text === 'string' ? s.text.replace(/\s+/g, ' ').trim() : '';
    const speaker = typeof s?.speaker === 'string' && s.speaker.trim() !== '' ? s.speaker.trim() : undefined;
    if (text !== '') cues.push({ start, end, ...(speaker ? { speaker } : {}), text });
  }
  return cues;
}

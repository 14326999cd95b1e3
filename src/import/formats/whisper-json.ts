import { type Cue, ImportError, type SourceFile } from '../cues.js';
import type { ReadReport } from '../read-report.js';
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
export function readWhisperJson(file: SourceFile, report: ReadReport): Cue[] {
  let data: unknown;
  try {
    data = JSON.parse(decodeText(file));
  } catch (err) {
    throw new ImportError(`${file.name} is not valid JSON (${(err as Error).message})`);
  }
  const root = (data ?? {}) as { transcription?: unknown; segments?: unknown };
  report.unit = 'segment';
  if (Array.isArray(root.transcription)) return whisperCpp(root.transcription, report);
  if (Array.isArray(root.segments)) return whisperX(root.segments, report);
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

/** Seconds; undefined when the segment gives no time, NaN when what it gives cannot be one. */
function seconds(offsetMs: unknown, stamp: unknown): number | undefined {
  if (typeof offsetMs === 'number') return offsetMs / 1000;
  if (typeof stamp === 'string') return parseClock(stamp) ?? NaN;
  return offsetMs === undefined && stamp === undefined ? undefined : NaN;
}

/** WhisperX and openai-whisper write numbers; a few converters write numeric strings. */
function secondsOf(value: unknown): number | undefined {
  if (typeof value === 'number') return value;
  if (typeof value === 'string' && value.trim() !== '') return Number(value);
  return value === undefined || value === null ? undefined : NaN;
}

/**
 * A segment's words; undefined when it holds something that is no text (an object, a list):
 * a segment the report names as unread.
 */
function textOf(segment: { text?: unknown } | null | undefined): string | undefined {
  if (segment === null || typeof segment !== 'object') return undefined;
  const text = segment.text;
  if (typeof text === 'string') return text.replace(/\s+/g, ' ').trim();
  if (typeof text === 'number') return String(text);
  return text === undefined || text === null ? '' : undefined;
}

function whisperCpp(segments: unknown[], report: ReadReport): Cue[] {
  const cues: Cue[] = [];
  let turn = false;
  for (const [i, s] of (segments as (CppSegment | null)[]).entries()) {
    const text = textOf(s);
    if (text === undefined) {
      report.lost(i + 1);
      continue;
    }
    const start = seconds(s?.offsets?.from, s?.timestamps?.from) ?? cues.at(-1)?.end ?? 0;
    const end = seconds(s?.offsets?.to, s?.timestamps?.to) ?? start;
    const label = typeof s?.speaker === 'string' || typeof s?.speaker === 'number' ? String(s.speaker).trim() : '';
    const speaker = /^\d+$/.test(label) ? `Speaker ${label}` : label === '?' || label === '' ? undefined : label;
    if (text !== '') cues.push({ start, end, line: i + 1, ...(speaker ? { speaker } : {}), text, ...(turn && !speaker ? { turn } : {}) });
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

function whisperX(segments: unknown[], report: ReadReport): Cue[] {
  const cues: Cue[] = [];
  for (const [i, s] of (segments as (XSegment | null)[]).entries()) {
    const text = textOf(s);
    if (text === undefined) {
      report.lost(i + 1);
      continue;
    }
    const start = secondsOf(s?.start) ?? cues.at(-1)?.end ?? 0;
    const end = secondsOf(s?.end) ?? start;
    const speaker = typeof s?.speaker === 'string' && s.speaker.trim() !== '' ? s.speaker.trim() : undefined;
    if (text !== '') cues.push({ start, end, line: i + 1, ...(speaker ? { speaker } : {}), text });
  }
  return cues;
}

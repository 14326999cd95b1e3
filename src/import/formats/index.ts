import path from 'node:path';
import { type Cue, ImportError, type Reader, type SourceFile } from '../cues.js';
import { ReadReport } from '../read-report.js';
import { isPossibleTime } from './clock-time.js';
import { readDocx } from './docx.js';
import { readSrt } from './srt.js';
import { readText } from './text.js';
import { readVtt } from './vtt.js';
import { readWhisperJson } from './whisper-json.js';

/** The transcript readers by extension (docs/design.md §9). */
const READERS: Record<string, Reader> = {
  '.vtt': readVtt,
  '.srt': readSrt,
  '.json': readWhisperJson,
  '.txt': readText,
  '.md': readText,
  '.docx': readDocx,
};

/** Recordings: these go through `Import.TranscribeCommand` first. */
export const RECORDING_EXTENSIONS = ['.wav', '.mp3', '.m4a', '.ogg', '.opus', '.flac', '.webm', '.mp4', '.mkv'];

export const TRANSCRIPT_EXTENSIONS = Object.keys(READERS);

export function extensionOf(name: string): string {
  return path.extname(name).toLowerCase();
}

export function isRecording(name: string): boolean {
  return RECORDING_EXTENSIONS.includes(extensionOf(name));
}

export function isAccepted(name: string): boolean {
  return isRecording(name) || extensionOf(name) in READERS;
}

/**
 * The cues of a transcript file, or an ImportError saying why there are none; `report` learns
 * what could not be read (the import says it: docs/design.md §9, Limits).
 */
export async function readTranscript(file: SourceFile, report = new ReadReport()): Promise<Cue[]> {
  const ext = extensionOf(file.name);
  const reader = READERS[ext];
  if (!reader) {
    throw new ImportError(
      `${file.name}: "${ext || 'no extension'}" is not a format the import reads; accepted: ${TRANSCRIPT_EXTENSIONS.join(', ')} and recordings (${RECORDING_EXTENSIONS.join(', ')})`,
    );
  }
  if (file.bytes.length === 0) throw new ImportError(`${file.name} is empty`);
  let cues: Cue[];
  try {
    cues = await reader(file, report);
  } catch (err) {
    if (err instanceof ImportError) throw new ImportError(err.message.startsWith(file.name) ? err.message : `${file.name}: ${err.message}`, err.hint, err.stderr);
    throw err;
  }
  if (cues.length === 0) throw new ImportError(`${file.name} holds no cue (no timed text): nothing to import`);
  return settleTimes(cues, report);
}

/**
 * A cue whose time cannot be a time (`99:99:99`, negative, `1e308`, NaN) keeps its words at
 * the time of the cue before, and the report names it (docs/design.md §9, Limits): no note
 * ever holds NaN, Infinity or a 300-digit hour.
 */
function settleTimes(cues: Cue[], report: ReadReport): Cue[] {
  let previous = 0;
  cues.forEach((cue, i) => {
    const startOk = isPossibleTime(cue.start);
    const endOk = isPossibleTime(cue.end);
    if (!startOk) cue.start = previous;
    if (!endOk || cue.end < cue.start) cue.end = cue.start;
    if (!startOk || !endOk) report.timeless(cue.line ?? i + 1);
    previous = cue.start;
  });
  return cues;
}

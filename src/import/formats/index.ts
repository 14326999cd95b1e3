import path from 'node:path';
import { type Cue, ImportError, type Reader, type SourceFile } from '../cues.js';
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

/** The cues of a transcript file, or an ImportError saying why there are none. */
export async function readTranscript(file: SourceFile): Promise<Cue[]> {
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
    cues = await reader(file);
  } catch (err) {
    if (err instanceof ImportError) throw new ImportError(err.message.startsWith(file.name) ? err.message : `${file.name}: ${err.message}`);
    throw err;
  }
  if (cues.length === 0) throw new ImportError(`${file.name} holds no cue (no timed text): nothing to import`);
  return cues;
}

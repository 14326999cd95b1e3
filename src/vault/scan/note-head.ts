import { StringDecoder } from 'node:string_decoder';
import type { Fs } from '../files/fs.js';
import { DEFAULT_MAX_FILE_BYTES, openRegular, readAllBounded } from '../files/regular-file.js';
import { parseNote } from '../format/frontmatter.js';

/**
 * Reading only the frontmatter of notes: the catch-up scan looks at tens of thousands of
 * notes and needs a few keys of each, so it reads the head of a file up to the closing
 * `---`, not the whole transcript.
 */

const CHUNK = 4096;
/** A frontmatter longer than this is read whole (it still parses; it is just not cheap). */
const MAX_HEAD = 256 * 1024;

interface ReadableHandle {
  read(buffer: Uint8Array, offset: number, length: number, position: number): Promise<{ bytesRead: number }>;
  close(): Promise<void>;
}

function canRead(handle: unknown): handle is ReadableHandle {
  return typeof (handle as { read?: unknown }).read === 'function';
}

/** Where the frontmatter ends in `text` (after the closing fence line), or -1 while unknown; 0 when there is none. */
function frontmatterEnd(text: string): number {
  const body = text.startsWith('\uFEFF') ? text.slice(1) : text;
  const offset = text.length - body.length;
  const firstEnd = body.indexOf('\n');
  if (firstEnd < 0) return body.length >= 3 && !body.startsWith('---') ? 0 : -1;
  if (!/^---[ \t]*\r?$/.test(body.slice(0, firstEnd))) return 0;
  const fence = /^---[ \t]*\r?$/gm;
  fence.lastIndex = firstEnd + 1;
  const m = fence.exec(body);
  if (!m) return -1;
  const nl = body.indexOf('\n', m.index);
  return offset + (nl < 0 ? body.length : nl + 1);
}

/** The text of the note up to the end of its frontmatter (the whole note when that is shorter). */
export async function readFrontmatterText(fs: Fs, file: string): Promise<string> {
  // A FIFO or a device in a watched folder is refused, never waited on (docs/design.md §4).
  const handle = await openRegular(fs, file);
  if (!handle) throw Object.assign(new Error(`ENOENT: no such file, open '${file}'`), { code: 'ENOENT' });
  try {
    if (!canRead(handle)) return Buffer.from(await fs.readFile(file)).toString('utf8');
    const decoder = new StringDecoder('utf8');
    const buffer = new Uint8Array(CHUNK);
    let text = '';
    let position = 0;
    for (;;) {
      const { bytesRead } = await handle.read(buffer, 0, CHUNK, position);
      if (bytesRead === 0) return text + decoder.end();
      position += bytesRead;
      text += decoder.write(Buffer.from(buffer.buffer, buffer.byteOffset, bytesRead));
      const end = frontmatterEnd(text);
      if (end === 0) return '';
      if (end > 0) return text.slice(0, end);
      if (position >= MAX_HEAD) return (await readAllBounded(handle, DEFAULT_MAX_FILE_BYTES, file)).toString('utf8');
    }
  } finally {
    await handle.close();
  }
}

export interface NoteHead {
  data: Record<string, unknown>;
  facts: NoteFacts;
}

/** Frontmatter data and trigger facts of a note; throws FrontmatterError when it does not parse. */
export async function readNoteHead(fs: Fs, file: string, displayName?: string): Promise<NoteHead> {
  const data = parseNote(await readFrontmatterText(fs, file), displayName).data;
  return { data, facts: factsFromData(data) };
}

/** The trigger facts of a note's full text; undefined when its frontmatter does not parse. */
export function readFacts(content: string): NoteFacts | undefined {
  try {
    return factsFromData(parseNote(content).data);
  } catch {
    return undefined;
  }
}

/** The frontmatter keys the triggers look at; undefined fields were absent. */
export interface NoteFacts {
  /** Transcript and context notes. */
  state?: string;
  /** Summary notes: `done` or `failed`. */
  status?: string;
  retry?: boolean;
}

/**
 * A copy of parsed values that holds no reference to the text they were parsed from. V8 cuts a
 * string out of a longer one as a view that keeps the whole text alive: a `state` value kept
 * for the life of the daemon would keep the note it came from (a whole transcript, for the
 * watcher's facts; the first 4 KB of each of 16,000 notes, for catch-up's heads: 7 MB measured).
 */
export function detached<T>(value: T): T {
  return structuredClone(value);
}

/** The facts from parsed frontmatter data (whatever parser produced it), detached from the note's text. */
export function factsFromData(data: Record<string, unknown>): NoteFacts {
  const text = (value: unknown): string | undefined =>
    typeof value === 'string' ? detached(value.trim()) : typeof value === 'number' ? String(value) : undefined;
  const retry = data.retry;
  return {
    state: text(data.state),
    status: text(data.status),
    retry: retry === true || (typeof retry === 'string' && retry.trim().toLowerCase() === 'true'),
  };
}

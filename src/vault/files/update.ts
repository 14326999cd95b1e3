import path from 'node:path';
import { type FileHandleLike, type Fs, isNotFound, writeTempFile } from './fs.js';
import { LateMergeError, lateMerge, readWhenStill, type ReplacedFile, type Transform, UNCHANGED } from './late-writes.js';
import { MeetingAssistantError } from '../../errors.js';
import { assertRewritable, DEFAULT_MAX_FILE_BYTES, FileTooLargeError, openRegular, readRegularFile } from './regular-file.js';

/**
 * Compare before replacing (docs/design.md §1, "Changing notes that people own"). People and other
 * programs write the vault's files while the daemon runs; an atomic write (temp file, rename)
 * that read the file a moment earlier would throw away whatever they wrote in between. So a
 * change is a function of the current content, and `updateFile` applies it in a loop:
 *
 *   read → transform → temp file (fsync) → compare with the file now → rename → verify
 *
 * When another program only appended to the file between the read and the rename (a sync
 * tool, a logger, an editor adding a line), its lines are appended to the temp file and the
 * compare runs again; when it changed the file otherwise, the temp file is dropped and the
 * change is applied again to the new content. After the rename, the replaced file (still
 * open) is read once more, and again a few milliseconds later: a program that had it open and
 * wrote to it in that instant wrote into a file nobody will see again, so its change is
 * merged into the new file too (late-writes.ts), and the caller may keep watching it for a
 * writer that comes later still.
 */

export { UNCHANGED, type Transform } from './late-writes.js';

export interface UpdateResult {
  /** The content the change was applied to (undefined: the file did not exist). */
  before: string | undefined;
  /** The content written (equal to `before` when nothing changed). */
  after: string | undefined;
  changed: boolean;
  /** How many times the change was applied (1 when nobody else wrote meanwhile). */
  attempts: number;
}

export class ConcurrentEditError extends MeetingAssistantError {
  constructor(
    readonly file: string,
    readonly attempts: number,
  ) {
    super(`${file} kept changing while it was being written (${attempts} attempts); it was left as it is, with the other program's changes`, true);
  }
}

/** Enough for a file another program appends to every millisecond (measured: 1-4 attempts). */
export const DEFAULT_MAX_ATTEMPTS = 50;

export interface UpdateOptions {
  maxAttempts?: number;
  /** Mode of a file created by this write (an existing file keeps its own). */
  mode?: number;
  /** A larger file is not read, so not rewritten (`Agent.MaxFileBytes`). */
  maxBytes?: number;
  /** The file as messages name it (vault-relative); default its path. */
  name?: string;
}

/**
 * An editor that rewrites a file in place truncates it, then writes: read in between, the
 * file is empty, and the editor's write would then go to the file this update replaces. A
 * read that races such a write can also see only its first part. So the content counts once
 * two reads agree and it is not empty; an empty file is read again for a moment (a file that
 * is really empty costs 0.2 s: rare for notes, and bounded).
 */
const settledContent = (handle: FileHandleLike) =>
  readWhenStill(handle, { pauseMs: 0, emptyPauseMs: 5, checks: 40, emptyIsStill: false });

/** The file open for reading, undefined when missing; a FIFO, a device or one over `maxBytes` is refused (regular-file.ts). */
async function openIfExists(fs: Fs, file: string, name: string, maxBytes: number): Promise<FileHandleLike | undefined> {
  const handle = await openRegular(fs, file, name);
  if (handle && (await handle.stat()).size > maxBytes) {
    await handle.close().catch(() => undefined);
    throw new FileTooLargeError(name, maxBytes);
  }
  return handle;
}

async function readIfExists(fs: Fs, file: string, maxBytes: number): Promise<string | undefined> {
  return (await readRegularFile(fs, file, maxBytes))?.toString('utf8');
}

const CHANGED = Symbol('changed');

/**
 * Compares the file with `current` (what the temp file's content was made from). Appends by
 * another program are copied to the temp file and compared again; anything else is CHANGED.
 * Returns what the file holds now (what the rename replaces) and what the temp file holds.
 */
async function absorbAppends(
  fs: Fs,
  file: string,
  tmp: string,
  current: string | undefined,
  next: string,
  bound: number,
  maxBytes: number,
): Promise<{ content: string | undefined; written: string } | typeof CHANGED> {
  let base = current;
  let written = next;
  for (let i = 0; i < bound; i++) {
    const now = await readIfExists(fs, file, maxBytes);
    if (now === base) return { content: base, written };
    if (now === undefined || base === undefined || base === '' || !now.startsWith(base)) return CHANGED;
    const added = now.slice(base.length);
    const handle = await fs.open(tmp, 'a');
    try {
      await handle.writeFile(added);
    } finally {
      await handle.close();
    }
    written += added;
    base = now;
  }
  return CHANGED;
}

/**
 * The replaced file's content once writes under way at the rename have landed: read until two
 * reads 5 ms apart agree (an empty file, an editor's truncate, is waited out too, unless the
 * file was empty). Bounded: a writer slower than that is left to the watch that follows
 * (keepWatching).
 */
const lateContent = (handle: FileHandleLike, expected: string) =>
  readWhenStill(handle, { pauseMs: 5, emptyPauseMs: 5, checks: 20, emptyIsStill: expected === '' });

export interface UpdateHooks {
  /** Receives a replaced file's content that could not be merged (kept by the caller). */
  onOrphan?: (content: string) => Promise<void>;
  /**
   * Takes over every rename's replaced file, still open, to watch it for late writes after
   * the update returns (late-writes.ts; it closes the handle). Without it the handle is closed.
   */
  keepWatching?: (replaced: ReplacedFile) => void;
}

/**
 * Applies `transform` to `file` as it is on disk, atomically, without losing what another
 * program writes meanwhile (see above). `file` is the real file (symbolic links resolved by
 * the caller). Throws ConcurrentEditError when the file kept changing for `maxAttempts`
 * attempts; whatever a transform throws (a refusal) propagates with nothing written.
 */
export async function updateFile(fs: Fs, file: string, transform: Transform, options: UpdateOptions & UpdateHooks = {}): Promise<UpdateResult> {
  const maxAttempts = options.maxAttempts ?? DEFAULT_MAX_ATTEMPTS;
  const maxBytes = options.maxBytes ?? DEFAULT_MAX_FILE_BYTES;
  const name = options.name ?? file;
  await fs.mkdir(path.dirname(file), { recursive: true });
  let step = transform;
  /** The replaced content whose late change `step` merges (kept when the merge does not apply). */
  let orphan: string | undefined;
  let first: UpdateResult | undefined;
  for (let attempt = 1; attempt <= maxAttempts; attempt++) {
    let handle = await openIfExists(fs, file, name, maxBytes);
    try {
      const current = handle ? await settledContent(handle) : undefined;
      const next = await applyStep(step, current, orphan, options);
      if (next === UNCHANGED || next === current) {
        return first ? { ...first, attempts: attempt } : { before: current, after: current, changed: false, attempts: attempt };
      }
      // Bytes that are not UTF-8, or a person's read-only mode, are never replaced (docs/design.md §4).
      if (handle && current !== undefined) await assertRewritable(handle, current, name);
      const existing = handle ? await handle.stat() : undefined;
      const mode = existing ? existing.mode & 0o7777 : (options.mode ?? 0o644);
      const tmp = await writeTempFile(fs, file, next, mode);
      // The compare, the last moment before the rename. Lines another program appended
      // meanwhile are appended to the temp file too (not synced: no less durable than that
      // program's own write), so a file appended to every millisecond is still written.
      const base = await absorbAppends(fs, file, tmp, current, next, maxAttempts, maxBytes).catch(async (err: unknown) => {
        // Grown past maxBytes, or swapped for a FIFO, meanwhile: no temp file is left behind.
        await fs.unlink(tmp).catch(() => undefined);
        throw err;
      });
      if (base === CHANGED) {
        await fs.unlink(tmp).catch(() => undefined);
        continue;
      }
      try {
        await fs.rename(tmp, file);
      } catch (err) {
        await fs.unlink(tmp).catch(() => undefined);
        throw err;
      }
      // The result describes this write's own change, not the merges of others' writes.
      first ??= { before: current, after: next, changed: true, attempts: attempt };
      // The verify: did anything land in the file just replaced (a program that had it open)?
      const replaced = handle && base.content !== undefined ? await lateContent(handle, base.content) : undefined;
      const late = replaced !== undefined && base.content !== undefined ? lateMerge(base.content, replaced) : undefined;
      // Watched on after this update returns: a writer descheduled past this instant still lands.
      if (options.keepWatching) {
        options.keepWatching({ handle, seen: (late ? replaced : base.content) ?? '', base: current, next, written: base.written, merge: step !== transform });
        handle = undefined;
      }
      if (!late) return { ...first, attempts: attempt };
      step = late;
      orphan = replaced;
    } finally {
      await handle?.close().catch(() => undefined);
    }
  }
  throw new ConcurrentEditError(file, maxAttempts);
}

/** The step's result; a late change that no longer applies is handed to onOrphan and dropped. */
async function applyStep(step: Transform, current: string | undefined, orphan: string | undefined, hooks: UpdateHooks) {
  try {
    return step(current);
  } catch (err) {
    if (!(err instanceof LateMergeError) || orphan === undefined) throw err;
    await hooks.onOrphan?.(orphan);
    return UNCHANGED;
  }
}

/**
 * Where a write of `file` goes: a symbolic link is written through to the file it points to
 * (a dangling one to where it points), so the link stays a link.
 */
export async function writeTargetOf(fs: Fs, file: string): Promise<string> {
  const abs = path.resolve(file);
  let stats;
  try {
    stats = await fs.lstat(abs);
  } catch (err) {
    if (isNotFound(err)) return abs;
    throw err;
  }
  if (!stats.isSymbolicLink()) return abs;
  try {
    return await fs.realpath(abs);
  } catch (err) {
    if (!isNotFound(err)) throw err;
    const link = await fs.readlink(abs);
    return writeTargetOf(fs, path.resolve(path.dirname(abs), link));
  }
}

import { constants } from 'node:fs';
import { isUtf8 } from 'node:buffer';
import { MeetingAssistantError } from '../../errors.js';
import { type FileHandleLike, type Fs, isNotFound, type StatsLike } from './fs.js';

/**
 * Files that are not plain files, and bytes the daemon did not mean to touch (docs/design.md
 * §4). A FIFO named `pipe.md` blocks whoever opens it for reading until a writer comes (one
 * of libuv's four threads each time, until the whole daemon stalls); a link to `/dev/zero`
 * never ends. So a file is checked with stat before it is opened, opened non-blocking (a
 * FIFO swapped in between opens at once instead of waiting), checked again on the open
 * handle, and read up to a bound (`Agent.MaxFileBytes`). A file that is not valid UTF-8, or
 * whose permission bits deny writing, is never rewritten: the rename of an atomic write
 * would replace it anyway, with U+FFFD in lines nobody edited or over a person's "read-only".
 */

/** `Agent.MaxFileBytes`'s default: 20 MB. */
export const DEFAULT_MAX_FILE_BYTES = 20 * 1024 * 1024;

/** A FIFO, a device, a socket or a folder where a file was wanted. */
export class NotRegularFileError extends MeetingAssistantError {
  constructor(
    readonly file: string,
    readonly kind: string,
  ) {
    super(`${file} is ${kind}, not a regular file; only regular files are read or written.`, true);
  }
}

export class FileTooLargeError extends MeetingAssistantError {
  constructor(
    readonly file: string,
    readonly limit: number,
  ) {
    super(`${file} is larger than Agent.MaxFileBytes (${limit} bytes); it is not read.`, true);
  }
}

/** A write refused because it would rewrite bytes the daemon must not touch. */
export class UnwritableFileError extends MeetingAssistantError {
  constructor(
    readonly file: string,
    readonly reason: 'not-utf8' | 'read-only' | 'sync-file',
  ) {
    super(`${file} ${REASONS[reason]}; it is left as it is.`, true);
  }
}

const REASONS: Record<UnwritableFileError['reason'], string> = {
  'not-utf8': 'is not valid UTF-8 text (rewriting it would replace the bytes that are not with U+FFFD)',
  'read-only': 'is read-only (its permission bits deny writing)',
  'sync-file': "is a sync tool's conflict copy or temporary file, not a note",
};

/** What kind of thing `stats` describes, for messages ('a FIFO', 'a device'…); undefined for a regular file. */
export function irregularKind(stats: StatsLike): string | undefined {
  if (stats.isFile()) return undefined;
  if (stats.isDirectory()) return 'a folder';
  const s = stats as StatsLike & { isFIFO?(): boolean; isSocket?(): boolean; isCharacterDevice?(): boolean; isBlockDevice?(): boolean };
  if (s.isFIFO?.()) return 'a FIFO (named pipe)';
  if (s.isSocket?.()) return 'a socket';
  if (s.isCharacterDevice?.() || s.isBlockDevice?.()) return 'a device';
  return 'not a regular file';
}

/** The stats of a regular file (links followed); undefined when missing; a NotRegularFileError for anything else. */
async function statRegular(fs: Fs, file: string, name: string): Promise<StatsLike | undefined> {
  let stats: StatsLike;
  try {
    stats = await fs.stat(file);
  } catch (err) {
    if (isNotFound(err)) return undefined;
    throw err;
  }
  const kind = irregularKind(stats);
  if (kind) throw new NotRegularFileError(name, kind);
  return stats;
}

/** Read-only, non-blocking: opening a FIFO for reading does not wait for a writer. */
const READ_FLAGS = constants.O_RDONLY | (constants.O_NONBLOCK ?? 0);

/**
 * Opens an existing regular file for reading: undefined when it does not exist, a
 * NotRegularFileError for anything else (checked before the open, and on the open handle).
 */
export async function openRegular(fs: Fs, file: string, name = file): Promise<FileHandleLike | undefined> {
  if (!(await statRegular(fs, file, name))) return undefined;
  let handle: FileHandleLike;
  try {
    handle = await fs.open(file, READ_FLAGS);
  } catch (err) {
    if (isNotFound(err)) return undefined;
    throw err;
  }
  try {
    const kind = irregularKind(await handle.stat());
    if (kind) throw new NotRegularFileError(name, kind);
    return handle;
  } catch (err) {
    await handle.close().catch(() => undefined);
    throw err;
  }
}

/**
 * Every byte of an open file, or a FileTooLargeError past `maxBytes` (read stops there: a growing
 * file cannot eat memory). Read into one buffer of the size expected (`sizeHint`, the file's size
 * at its stat), grown when the file grew: the reads fill it in libuv's threads, where chunks
 * joined afterwards copied 20 MB on the daemon's thread, 180 ms on a busy machine (§9).
 */
export async function readAllBounded(handle: FileHandleLike, maxBytes: number, name: string, sizeHint = 64 * 1024): Promise<Buffer> {
  let buffer = Buffer.allocUnsafeSlow(Math.min(sizeHint, maxBytes) + 1);
  let total = 0;
  for (;;) {
    if (total === buffer.length) {
      const larger = Buffer.allocUnsafeSlow(Math.min(buffer.length * 2, maxBytes + 1));
      buffer.copy(larger, 0, 0, total);
      buffer = larger;
    }
    const { bytesRead } = await handle.read(buffer, total, buffer.length - total, total);
    if (bytesRead === 0) break;
    total += bytesRead;
    if (total > maxBytes) throw new FileTooLargeError(name, maxBytes);
  }
  return buffer.subarray(0, total);
}

/**
 * The bytes of a regular file, at most `maxBytes`; undefined when it does not exist. The kind
 * and size are checked before the read; the read itself opens non-blocking, so a FIFO swapped
 * in after the check fails at once (EAGAIN) instead of waiting for a writer.
 */
export async function readRegularFile(fs: Fs, file: string, maxBytes: number, name = file, options: { noFollow?: boolean } = {}): Promise<Buffer | undefined> {
  const stats = await statRegular(fs, file, name);
  if (!stats) return undefined;
  if (stats.size > maxBytes) throw new FileTooLargeError(name, maxBytes);
  let bytes: Uint8Array;
  try {
    // noFollow: a file the caller saw as no link, turned into one since, fails (ELOOP) rather than being read through it.
    bytes = await fs.readFile(file, { flag: READ_FLAGS | (options.noFollow ? (constants.O_NOFOLLOW ?? 0) : 0) });
  } catch (err) {
    if (isNotFound(err)) return undefined;
    throw err;
  }
  if (bytes.length > maxBytes) throw new FileTooLargeError(name, maxBytes);
  return Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
}

/**
 * Whether the permission bits let this process write the file. Root may write anything, but
 * a mode without any write bit is a person's "do not change this": it is honoured for root too.
 */
export function writableByMode(stats: StatsLike & { uid?: number; gid?: number }): boolean {
  const mode = stats.mode & 0o777;
  const uid = process.getuid?.();
  if (uid === undefined || uid === 0 || stats.uid === undefined) return (mode & 0o222) !== 0;
  if (stats.uid === uid) return (mode & 0o200) !== 0;
  if (stats.gid !== undefined && (process.getgroups?.() ?? [process.getgid?.()]).includes(stats.gid)) return (mode & 0o020) !== 0;
  return (mode & 0o002) !== 0;
}

/**
 * Refuses a rewrite of the open file `handle` whose content decoded as `text`: not valid
 * UTF-8 (only checked when the decoding shows U+FFFD), or permission bits that deny writing.
 */
export async function assertRewritable(handle: FileHandleLike, text: string, name: string): Promise<void> {
  const stats = await handle.stat();
  if (!writableByMode(stats)) throw new UnwritableFileError(name, 'read-only');
  if (!text.includes('\uFFFD')) return;
  const bytes = await readAllBounded(handle, Math.max(stats.size, 1) * 2, name);
  if (!isUtf8(bytes)) throw new UnwritableFileError(name, 'not-utf8');
}

/** assertRewritable for the file `file` read as `text` (a missing file has nothing to refuse). */
export async function assertFileRewritable(fs: Fs, file: string, text: string, name = file): Promise<void> {
  const handle = await openRegular(fs, file, name);
  if (!handle) return;
  try {
    await assertRewritable(handle, text, name);
  } finally {
    await handle.close().catch(() => undefined);
  }
}

import { lstat as lstatCallback, promises as nodePromises, stat as statCallback, type Stats } from 'node:fs';
import { randomBytes } from 'node:crypto';
import path from 'node:path';
import { isNormalAbsolute } from './lexical-paths.js';

/** What a name may hold on the common file systems (ext4, APFS, NTFS, btrfs: 255 bytes). */
export const NAME_MAX_BYTES = 255;

const GRAPHEMES = new Intl.Segmenter(undefined, { granularity: 'grapheme' });

/**
 * The start of `text` in at most `maxBytes` UTF-8 bytes, cut between characters as a person
 * sees them (a family emoji, a flag, a letter with its accent stay whole), no trailing space or dot.
 */
export function cutToBytes(text: string, maxBytes: number): string {
  if (Buffer.byteLength(text) <= maxBytes) return text;
  let bytes = 0;
  let end = 0;
  for (const { segment: char } of GRAPHEMES.segment(text)) {
    const size = Buffer.byteLength(char);
    if (bytes + size > maxBytes) break;
    bytes += size;
    end += char.length;
  }
  return text.slice(0, end).replace(/[. ]+$/, '');
}

/**
 * The slice of `fs/promises` the vault layer uses. Node's `fs.promises` satisfies it in
 * production; memfs's `fs.promises` satisfies it in tests (see test/helpers/memfs.ts), so
 * everything below the daemon runs on an in-memory vault.
 */
export interface FileHandleLike {
  writeFile(data: string | Uint8Array): Promise<void>;
  read(buffer: Uint8Array, offset: number, length: number, position: number): Promise<{ bytesRead: number }>;
  stat(): Promise<StatsLike>;
  sync(): Promise<void>;
  close(): Promise<void>;
}

export interface StatsLike {
  isFile(): boolean;
  isDirectory(): boolean;
  isSymbolicLink(): boolean;
  size: number;
  mtimeMs: number;
  /** Change time and inode: what `utimes` cannot set back (file-version.ts). */
  ctimeMs: number;
  ino: number;
  mode: number;
  /** Owner and group (absent on filesystems without them): whose write bit applies. */
  uid?: number;
  gid?: number;
}

export interface DirentLike {
  name: string;
  isFile(): boolean;
  isDirectory(): boolean;
  isSymbolicLink(): boolean;
}

export interface Fs {
  readFile(file: string, options?: { flag?: string | number }): Promise<Uint8Array>;
  writeFile(file: string, data: string | Uint8Array, options?: { mode?: number; flag?: string }): Promise<void>;
  open(file: string, flags: string | number, mode?: number): Promise<FileHandleLike>;
  rename(from: string, to: string): Promise<void>;
  unlink(file: string): Promise<void>;
  rm(file: string, options?: { recursive?: boolean; force?: boolean }): Promise<void>;
  mkdir(dir: string, options: { recursive: true; mode?: number }): Promise<string | undefined>;
  readdir(dir: string, options: { withFileTypes: true }): Promise<DirentLike[]>;
  stat(file: string): Promise<StatsLike>;
  lstat(file: string): Promise<StatsLike>;
  realpath(file: string): Promise<string>;
  readlink(file: string): Promise<string>;
  chmod(file: string, mode: number): Promise<void>;
  copyFile(from: string, to: string): Promise<void>;
  /** Made by the inbox only, when it moves a link (import/importer.ts); absent: the link is renamed as it is. */
  symlink?(target: string, file: string): Promise<void>;
}

/**
 * `fs.stat` and `fs.lstat` through their callback forms: node's promise form allocates a
 * request object and a stats buffer of its own per call, which made a warm catch-up scan of
 * 16,000 notes spend most of its CPU in stat (3-5x the callback form's, measured in
 * BENCHMARKS.md). Same results, same errors (`code`, `path`, `syscall`).
 */
function viaCallback(fn: typeof statCallback): (file: string) => Promise<Stats> {
  return async (file) => {
    try {
      return await new Promise<Stats>((resolve, reject) => fn(file, (err, stats) => (err ? reject(err) : resolve(stats))));
    } catch (err) {
      // A callback's error has no frames (libuv called back): here it gets the awaiting callers', as
      // fs.promises's errors have them. Only a failure pays for it; the async wrapper costs no CPU measurable.
      if (err instanceof Error) Error.captureStackTrace(err);
      throw err;
    }
  };
}

export const nodeFs: Fs = { ...(nodePromises as unknown as Fs), stat: viaCallback(statCallback), lstat: viaCallback(lstatCallback) };

export function isNotFound(err: unknown): boolean {
  return typeof err === 'object' && err !== null && (err as { code?: unknown }).code === 'ENOENT';
}

export async function readText(fs: Fs, file: string): Promise<string> {
  return Buffer.from(await fs.readFile(file)).toString('utf8');
}

/** `undefined` when the file does not exist; other errors propagate. */
export async function readTextIfExists(fs: Fs, file: string): Promise<string | undefined> {
  try {
    return await readText(fs, file);
  } catch (err) {
    if (isNotFound(err)) return undefined;
    throw err;
  }
}

export async function statIfExists(fs: Fs, file: string): Promise<StatsLike | undefined> {
  try {
    return await fs.stat(file);
  } catch (err) {
    if (isNotFound(err)) return undefined;
    throw err;
  }
}

/** Temporary files of atomic writes: dot-prefixed so editors and the watcher ignore them. */
export const TEMP_SUFFIX = '.ma-tmp';

export function isTempFile(file: string): boolean {
  return path.basename(file).endsWith(TEMP_SUFFIX);
}

/**
 * The process that created a temporary file of writeFileAtomic (its pid is in the name), so
 * one left behind by a killed process can be told from one a live process is writing now.
 * Undefined for other names.
 */
export function tempFileOwner(file: string): number | undefined {
  const m = /\.(\d+)-[0-9a-f]+\.ma-tmp$/.exec(path.basename(file));
  return m ? Number(m[1]) : undefined;
}

/** A new temporary name next to `file`, this process's (tempFileOwner), swept when a crash leaves it (temp-sweep.ts). */
export function tempPathFor(file: string): string {
  const tail = `.${process.pid}-${randomBytes(6).toString('hex')}${TEMP_SUFFIX}`;
  // A note may have a name of up to 255 bytes (the file system's limit): its temporary name
  // keeps only as much of it as fits, or every write of that note fails (docs/design.md §9).
  return path.join(path.dirname(file), `.${cutToBytes(path.basename(file), NAME_MAX_BYTES - 1 - tail.length)}${tail}`);
}

/**
 * A temporary file next to `file` holding `content`, synced, with exactly `mode` (open
 * honours the umask; chmod makes it exact). Removed again when anything fails.
 */
export async function writeTempFile(fs: Fs, file: string, content: string | Uint8Array, mode: number): Promise<string> {
  const tmp = tempPathFor(file);
  let handle: FileHandleLike | undefined;
  try {
    handle = await fs.open(tmp, 'wx', mode);
    await handle.writeFile(content);
    await handle.sync();
    await handle.close();
    handle = undefined;
    await fs.chmod(tmp, mode);
    return tmp;
  } catch (err) {
    if (handle) await handle.close().catch(() => undefined);
    await fs.unlink(tmp).catch(() => undefined);
    throw err;
  }
}

/**
 * Write a file so that a crash at any point leaves either the old or the new content,
 * never a mix: temporary file in the same folder, fsync, rename over the target.
 * The existing file's mode is kept. For files only the daemon writes (its state files);
 * a vault note goes through Vault.update, which also keeps what others write meanwhile.
 */
export async function writeFileAtomic(
  fs: Fs,
  file: string,
  content: string | Uint8Array,
  options: { mode?: number } = {},
): Promise<void> {
  await fs.mkdir(path.dirname(file), { recursive: true });
  const existing = await statIfExists(fs, file);
  const mode = options.mode ?? (existing ? existing.mode & 0o7777 : 0o644);
  const tmp = await writeTempFile(fs, file, content, mode);
  try {
    await fs.rename(tmp, file);
  } catch (err) {
    await fs.unlink(tmp).catch(() => undefined);
    throw err;
  }
}

export interface WalkedEntry {
  /** Absolute path. */
  abs: string;
  /** Relative to the walked folder, forward slashes. */
  rel: string;
  entry: DirentLike;
}

export interface WalkOptions {
  /** Names passed over entirely, files and folders alike. */
  skip?: (name: string) => boolean;
  /** Whether to go into a folder (after `skip`); default every folder. */
  enter?: (name: string, abs: string) => boolean;
}

/**
 * Every entry below `dir` that is not a folder, depth first (links are reported, never
 * followed). A folder that does not exist, or is a file, has no entries.
 */
export async function walkFiles(
  fs: Fs,
  dir: string,
  options: WalkOptions,
  visit: (file: WalkedEntry) => void | Promise<void>,
): Promise<void> {
  const walk = async (folder: string, rel: string): Promise<void> => {
    let entries;
    try {
      entries = await fs.readdir(folder, { withFileTypes: true });
    } catch (err) {
      if (isNotFound(err) || (err as { code?: unknown }).code === 'ENOTDIR') return;
      throw err;
    }
    // A listed name is one step (never empty, `.`, `..` or holding a separator): below a
    // normalised folder it is joined as it is, without path.join's normalising walk.
    const prefix = isNormalAbsolute(folder) ? (folder === '/' ? '/' : `${folder}/`) : undefined;
    const join = (name: string) => (prefix !== undefined ? prefix + name : path.join(folder, name));
    for (const entry of entries) {
      if (options.skip?.(entry.name)) continue;
      const abs = join(entry.name);
      const childRel = rel ? `${rel}/${entry.name}` : entry.name;
      if (entry.isDirectory()) {
        if (options.enter?.(entry.name, abs) ?? true) await walk(abs, childRel);
      } else {
        await visit({ abs, rel: childRel, entry });
      }
    }
  };
  await walk(dir, '');
}

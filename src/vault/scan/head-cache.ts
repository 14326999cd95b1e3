import path from 'node:path';
import type { Vault } from '../files/vault.js';
import { isNotFound, readTextIfExists, writeFileAtomic } from '../files/fs.js';
import { type FileVersion, fileVersion, versionKey } from '../files/file-version.js';
import { detached, readNoteHead } from './note-head.js';
import { mapLimit, Slots } from '../files/concurrency.js';

/**
 * Frontmatter of notes, remembered by file version (mtime, change time, inode, size: a sync
 * tool that sets the old mtime back is still noticed, file-version.ts): a scan of a large
 * vault reads only the notes that changed since the previous scan, and only their frontmatter.
 */

export type Head =
  | { ok: true; data: Record<string, unknown> }
  /** The frontmatter does not parse: `error` says where and why. */
  | { ok: false; error: string };

/**
 * A note as remembered: its version key, a line break, then `J` and the kept frontmatter as
 * JSON, or `E` and the parse error. One string instead of five objects and two boxed numbers:
 * 16,000 notes of a large vault are 3.5 MB fewer for the daemon's whole life; a note looked
 * at is decoded again (a few microseconds, once per scan).
 */
type Entry = string;

function encode(version: FileVersion, head: Head): Entry {
  // Flat: the joined parts would stay a tree of the strings they were made of (note-head.ts).
  return detached(`${versionKey(version)}\n${head.ok ? `J${JSON.stringify(head.data)}` : `E${head.error}`}`);
}

/**
 * The head an entry holds; undefined for one that is not ours (a spill file a person or a
 * sync tool's merge changed): the note is read again rather than every scan failing on it.
 */
function decode(entry: Entry): Head | undefined {
  const payload = entry.slice(entry.indexOf('\n') + 1);
  if (payload.startsWith('E')) return { ok: false, error: payload.slice(1) };
  if (!payload.startsWith('J')) return undefined;
  try {
    const data = JSON.parse(payload.slice(1)) as unknown;
    return data !== null && typeof data === 'object' && !Array.isArray(data) ? { ok: true, data: data as Record<string, unknown> } : undefined;
  } catch {
    return undefined;
  }
}

function entryVersion(entry: Entry): string {
  return entry.slice(0, entry.indexOf('\n'));
}

export interface HeadCacheStats {
  /** Files looked at (stat) since the counters were reset. */
  checked: number;
  /** Files whose frontmatter had to be read. */
  read: number;
}

/**
 * The first line of a spill file: a file of another shape is not read (a cold scan instead).
 * It names the kept keys: entries slimmed to other keys (a daemon before an upgrade that
 * added one to SCAN_KEYS) would otherwise be trusted without the new key until each note
 * changed.
 */
function spillHeader(keep: readonly string[] | undefined): string {
  return `meeting-assistant heads 1 ${keep ? JSON.stringify(keep) : '*'}`;
}

/** Stats in flight during a prefetch: enough to keep libuv's threads busy. */
const PREFETCH_CONCURRENCY = 64;
/**
 * Heads read at once (each holds its note open): the scan's own concurrency before the prefetch.
 * A cold prefetch reading 64 at once ran a process under `ulimit -n 80` out of descriptors.
 */
const READ_CONCURRENCY = 16;

export class HeadCache {
  private entries = new Map<string, Entry>();
  private readonly reads = new Slots(READ_CONCURRENCY);
  readonly stats: HeadCacheStats = { checked: 0, read: 0 };
  /** Entries changed since the last spill. */
  private dirty = false;
  /** The entries are in the spill file, not here (at first: what an earlier daemon left there). */
  private spilled: boolean;

  /**
   * @param keep the frontmatter keys worth remembering; a long-lived cache of a large vault
   *   keeps only these (default: every key).
   * @param spillFile where the entries wait between two scans (`spill`, `restore`), so that an
   *   idle daemon does not hold a large vault's heads in memory (docs/design.md §8); default
   *   none: they stay in memory.
   */
  constructor(
    private readonly vault: Vault,
    private readonly keep?: readonly string[],
    private readonly spillFile?: string,
  ) {
    this.spilled = spillFile !== undefined;
  }

  /**
   * Back from the spill file before a scan. A file that is missing, unreadable or of another
   * shape leaves the cache empty: the scan reads every note, as the first one after a start
   * without the file does. An entry read back is trusted no more than one kept in memory: its
   * file version is compared before use.
   */
  async restore(): Promise<void> {
    if (!this.spillFile || !this.spilled) return;
    this.spilled = false;
    const text = await readTextIfExists(this.vault.fs, this.spillFile).catch(() => undefined);
    const entries = new Map<string, Entry>();
    const header = `${spillHeader(this.keep)}\n`;
    if (text?.startsWith(header)) {
      try {
        const pairs = JSON.parse(text.slice(header.length)) as unknown;
        if (Array.isArray(pairs)) {
          for (const pair of pairs) {
            if (Array.isArray(pair) && typeof pair[0] === 'string' && typeof pair[1] === 'string' && pair[1].includes('\n')) {
              entries.set(this.vault.abs(pair[0]), pair[1]);
            }
          }
        }
      } catch {
        // A torn or foreign file: the scan reads every note.
      }
    }
    // What was learnt while spilled (a note looked at between scans) is newer than the file.
    for (const [key, entry] of this.entries) entries.set(key, entry);
    this.entries = entries;
  }

  /**
   * Out to the spill file after a scan (written only when something changed), and dropped from
   * memory. When the file cannot be written (a read-only state folder) the entries stay here.
   */
  async spill(): Promise<void> {
    if (!this.spillFile) return;
    if (this.dirty) {
      const pairs = [...this.entries].map(([abs, entry]) => [this.vault.rel(abs), entry]);
      try {
        await writeFileAtomic(this.vault.fs, this.spillFile, `${spillHeader(this.keep)}\n${JSON.stringify(pairs)}`);
      } catch {
        return;
      }
    }
    this.dirty = false;
    this.spilled = true;
    this.entries = new Map();
  }

  /** The keys a long-lived cache keeps; its entries hold them as a copy (encode), not views of the note's text. */
  private slim(data: Record<string, unknown>): Record<string, unknown> {
    if (!this.keep) return data;
    const out: Record<string, unknown> = {};
    for (const key of this.keep) if (key in data) out[key] = data[key];
    return out;
  }

  /** Within one pass (a scan), each note is looked at once however many notes link to it. */
  private pass: Map<string, Promise<Head | undefined>> | undefined;

  beginPass(): void {
    this.pass = new Map();
    this.resetStats();
  }

  /**
   * @param complete the pass looked at every note it needs (a whole scan): the entries it did
   *   not look at are forgotten. A note nothing lists or links to any more (a meeting note whose
   *   transcript was deleted, a note moved away) would otherwise stay in the spill file, and in
   *   it across restarts, for good.
   */
  endPass(complete = false): void {
    if (complete && this.pass) for (const key of this.entries.keys()) if (!this.pass.has(key)) this.forget(key);
    this.pass = undefined;
  }

  /**
   * Looks at `paths` for the pass ahead of its `get`s, many at once. A stat is cheap, but one at
   * a time each wakes one of libuv's threads and puts it back to sleep: a scan that interleaved
   * its stats with its own work spent more CPU on that than on anything else (BENCHMARKS.md).
   * Errors are left for the `get` that meets them, as if it had looked itself.
   */
  async prefetch(paths: readonly string[]): Promise<void> {
    if (!this.pass) return;
    await mapLimit(paths, PREFETCH_CONCURRENCY, (p) => this.get(p).catch(() => undefined));
  }

  /** The note's frontmatter, or undefined when the file does not exist. */
  get(absPath: string): Promise<Head | undefined> {
    if (!this.pass) return this.load(absPath);
    let pending = this.pass.get(absPath);
    if (!pending) {
      pending = this.load(absPath);
      this.pass.set(absPath, pending);
    }
    return pending;
  }

  private async load(absPath: string): Promise<Head | undefined> {
    this.stats.checked++;
    let stat;
    try {
      stat = await this.vault.fs.stat(absPath);
    } catch (err) {
      if (isNotFound(err) || (err as { code?: string }).code === 'ENOTDIR') {
        this.forget(absPath);
        return undefined;
      }
      throw err;
    }
    if (!stat.isFile()) return undefined;
    const cached = this.entries.get(absPath);
    const version = fileVersion(stat);
    const known = cached !== undefined && entryVersion(cached) === versionKey(version) ? decode(cached) : undefined;
    if (known) return known;
    this.stats.read++;
    let head: Head;
    try {
      head = { ok: true, data: this.slim((await this.reads.run(() => readNoteHead(this.vault.fs, absPath, this.vault.rel(absPath)))).data) };
    } catch (err) {
      if (isNotFound(err)) {
        this.forget(absPath);
        return undefined;
      }
      head = { ok: false, error: err instanceof Error ? err.message : String(err) };
      // A failure of the system, not of the note (EMFILE, EIO: an error naming its syscall), is
      // this pass's problem only: remembered by the file's version it would call a fine note
      // broken until the note changed, across restarts (the spill file). What was remembered of
      // it is of an older version: gone too, or a caller that trusts what it holds (a watcher
      // vouches, tools/cache/meeting-heads.ts) would take the head from before the change.
      if (typeof (err as { syscall?: unknown }).syscall === 'string') {
        this.forget(absPath);
        return head;
      }
    }
    this.entries.set(absPath, encode(version, head));
    this.dirty = true;
    return head;
  }

  /** The head last read for `absPath`, without a look at the disk: for a caller that knows it is fresh (a watcher vouches, tools/cache/meeting-heads.ts). */
  known(absPath: string): Head | undefined {
    const entry = this.entries.get(absPath);
    return entry === undefined ? undefined : decode(entry);
  }

  private forget(absPath: string): void {
    if (this.entries.delete(absPath)) this.dirty = true;
  }

  /** A signature of the notes' current versions (for "nothing changed since we tried"). */
  signature(paths: (string | undefined)[]): string {
    return paths
      .map((p) => {
        const e = p ? this.entries.get(p) : undefined;
        return e !== undefined ? entryVersion(e) : '-';
      })
      .join('|');
  }

  /** Forget notes below `folder` that a listing no longer shows, so deleted files do not pile up. */
  pruneUnder(folder: string, listed: Set<string>): void {
    const prefix = folder.endsWith(path.sep) ? folder : folder + path.sep;
    for (const key of this.entries.keys()) if (key.startsWith(prefix) && !listed.has(key)) this.forget(key);
  }

  resetStats(): void {
    this.stats.checked = 0;
    this.stats.read = 0;
  }

  get size(): number {
    return this.entries.size;
  }
}

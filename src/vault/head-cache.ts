import path from 'node:path';
import type { Vault } from './vault.js';
import { isNotFound } from './fs.js';
import { type FileVersion, fileVersion, versionKey } from './file-version.js';
import { detached, readNoteHead } from './note-head.js';

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

function decode(entry: Entry): Head {
  const payload = entry.slice(entry.indexOf('\n') + 1);
  return payload.startsWith('J') ? { ok: true, data: JSON.parse(payload.slice(1)) as Record<string, unknown> } : { ok: false, error: payload.slice(1) };
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

export class HeadCache {
  private readonly entries = new Map<string, Entry>();
  readonly stats: HeadCacheStats = { checked: 0, read: 0 };

  /**
   * @param keep the frontmatter keys worth remembering; a long-lived cache of a large vault
   *   keeps only these (default: every key).
   */
  constructor(
    private readonly vault: Vault,
    private readonly keep?: readonly string[],
  ) {}

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

  endPass(): void {
    this.pass = undefined;
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
        this.entries.delete(absPath);
        return undefined;
      }
      throw err;
    }
    if (!stat.isFile()) return undefined;
    const cached = this.entries.get(absPath);
    const version = fileVersion(stat);
    if (cached !== undefined && entryVersion(cached) === versionKey(version)) return decode(cached);
    this.stats.read++;
    let head: Head;
    try {
      head = { ok: true, data: this.slim((await readNoteHead(this.vault.fs, absPath, this.vault.rel(absPath))).data) };
    } catch (err) {
      if (isNotFound(err)) {
        this.entries.delete(absPath);
        return undefined;
      }
      head = { ok: false, error: err instanceof Error ? err.message : String(err) };
    }
    this.entries.set(absPath, encode(version, head));
    return head;
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
    for (const key of this.entries.keys()) if (key.startsWith(prefix) && !listed.has(key)) this.entries.delete(key);
  }

  resetStats(): void {
    this.stats.checked = 0;
    this.stats.read = 0;
  }

  get size(): number {
    return this.entries.size;
  }
}

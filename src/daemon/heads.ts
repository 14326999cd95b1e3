import path from 'node:path';
import type { Vault } from '../vault/vault.js';
import { isNotFound } from '../vault/fs.js';
import { readNoteHead } from './notes.js';

/**
 * Frontmatter of notes, remembered by mtime and size: a scan of a large vault reads only the
 * notes that changed since the previous scan, and only their frontmatter.
 */

export type Head =
  | { ok: true; data: Record<string, unknown> }
  /** The frontmatter does not parse: `error` says where and why. */
  | { ok: false; error: string };

interface Entry {
  mtimeMs: number;
  size: number;
  head: Head;
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

  constructor(private readonly vault: Vault) {}

  /** The note's frontmatter, or undefined when the file does not exist. */
  async get(absPath: string): Promise<Head | undefined> {
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
    if (cached && cached.mtimeMs === stat.mtimeMs && cached.size === stat.size) return cached.head;
    this.stats.read++;
    let head: Head;
    try {
      head = { ok: true, data: (await readNoteHead(this.vault.fs, absPath, this.vault.rel(absPath))).data };
    } catch (err) {
      if (isNotFound(err)) {
        this.entries.delete(absPath);
        return undefined;
      }
      head = { ok: false, error: err instanceof Error ? err.message : String(err) };
    }
    this.entries.set(absPath, { mtimeMs: stat.mtimeMs, size: stat.size, head });
    return head;
  }

  /** A signature of the notes' current versions (for "nothing changed since we tried"). */
  signature(paths: (string | undefined)[]): string {
    return paths
      .map((p) => {
        const e = p ? this.entries.get(p) : undefined;
        return e ? `${e.mtimeMs}:${e.size}` : '-';
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

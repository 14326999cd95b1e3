import path from 'node:path';
import type { StatsLike } from '../vault/fs.js';
import { isTempFile, walkFiles } from '../vault/fs.js';
import { type NoteKind, Vault } from '../vault/vault.js';

/**
 * The notes of one kind (meeting notes, summaries, transcripts) as the MCP server knows them,
 * kept in memory for the server's life (docs/design.md §10). There is no watcher: each query
 * lists the folder and compares every note's modification time, change time, size and inode
 * with what was parsed, so a note changed by anyone (Obsidian, a sync tool that sets the old
 * mtime back, the daemon) is parsed again and nothing stale is ever answered. Only changed
 * notes are read.
 */

/** Stats compared for freshness; Node's and memfs's stats have ctimeMs and ino too. */
type FullStats = StatsLike & { ctimeMs?: number; ino?: number | bigint };

/** Notes stat'ed at once: enough to keep the thread pool busy, few enough for any descriptor limit. */
const PARALLEL = 64;

/** Names sync tools leave while syncing or on conflict (docs/design.md §4): never notes. */
const SYNC_ARTIFACT = /\.sync-conflict-|\(conflicted copy|conflicted copy|\.syncthing\.|~syncthing~|\.tmp$/i;

export function isSyncArtifact(name: string): boolean {
  return SYNC_ARTIFACT.test(name);
}

interface Cached<T> {
  signature: string;
  value: T | undefined;
}

export class NoteFolder<T> {
  private readonly cache = new Map<string, Cached<T>>();

  /**
   * @param parse the note's record from its text; undefined leaves it out (a frontmatter that
   *   does not parse is retried once the file changes).
   */
  constructor(
    private readonly vault: Vault,
    readonly kind: NoteKind,
    private readonly folder: string,
    private readonly parse: (abs: string, text: string) => T | undefined,
  ) {}

  /** The Markdown files of this kind (absolute, sorted): the folder walked, other configured folders passed over. */
  async list(): Promise<string[]> {
    const out: string[] = [];
    const options = {
      skip: (name: string) => name.startsWith('.') || isTempFile(name) || isSyncArtifact(name),
      enter: (_name: string, abs: string) => this.vault.kindOf(path.join(abs, 'x.md')) === this.kind || Vault.isBelow(abs, this.folder),
    };
    await walkFiles(this.vault.fs, this.folder, options, ({ abs, entry }) => {
      if (entry.isFile() && entry.name.toLowerCase().endsWith('.md') && this.vault.kindOf(abs) === this.kind) out.push(abs);
    });
    return out.sort();
  }

  /** Every note of the folder, fresh, in path order; notes that vanished are forgotten. */
  async all(): Promise<T[]> {
    const files = await this.list();
    const listed = new Set(files);
    for (const key of this.cache.keys()) if (!listed.has(key)) this.cache.delete(key);
    const out: (T | undefined)[] = new Array(files.length);
    for (let i = 0; i < files.length; i += PARALLEL) {
      const slice = files.slice(i, i + PARALLEL);
      const values = await Promise.all(slice.map((f) => this.get(f)));
      values.forEach((v, j) => (out[i + j] = v));
    }
    return out.filter((v): v is T => v !== undefined);
  }

  /** One note, fresh; undefined when it does not exist, is no regular file or does not parse. */
  async get(abs: string): Promise<T | undefined> {
    let stats: FullStats;
    try {
      stats = (await this.vault.fs.stat(abs)) as FullStats;
    } catch {
      this.cache.delete(abs);
      return undefined;
    }
    if (!stats.isFile()) return undefined;
    const signature = `${stats.mtimeMs}/${stats.ctimeMs ?? ''}/${stats.size}/${stats.ino ?? ''}`;
    const hit = this.cache.get(abs);
    if (hit && hit.signature === signature) return hit.value;
    const text = await this.vault.readIfExists(abs).catch(() => undefined);
    const value = text === undefined ? undefined : this.parse(abs, text);
    this.cache.set(abs, { signature, value });
    return value;
  }
}

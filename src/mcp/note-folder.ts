import path from 'node:path';
import type { FileWatch, Trust } from '../tools/cache/file-cache.js';
import type { StatsLike } from '../vault/files/fs.js';
import { isTempFile, walkFiles } from '../vault/files/fs.js';
import { isSyncToolFile } from '../vault/files/sync-files.js';
import { confinedPlace, readConfinedText } from '../vault/files/real-place.js';
import { type NoteKind, Vault } from '../vault/files/vault.js';

/**
 * The notes of one kind (meeting notes, summaries, transcripts) as the MCP server knows them,
 * kept in memory for the server's life (docs/design.md §10); only changed notes are read again.
 *
 * Freshness, as the tools' caches have it (tools/cache/file-cache.ts): without a watcher, each query
 * lists the folder and compares every note's modification time, change time, size and inode
 * with what was parsed, so a note changed by anyone (Obsidian, a sync tool that sets the old
 * mtime back, the daemon) is parsed again. When a watcher covers the folder (`trustWatcher`,
 * which `meeting-assistant mcp` sets up: mcp/watch.ts), a query checks only the notes it
 * reported since the last one, and walks the folder again after a folder event or once the
 * last walk is `maxTrustMs` old.
 */

/** Stats compared for freshness; Node's and memfs's stats have ctimeMs and ino too. */
type FullStats = StatsLike & { ctimeMs?: number; ino?: number | bigint };

/** Notes stat'ed at once: enough to keep the thread pool busy, few enough for any descriptor limit. */
const PARALLEL = 64;

interface Cached<T> {
  signature: string;
  value: T | undefined;
}

export class NoteFolder<T> {
  private readonly cache = new Map<string, Cached<T>>();
  private readonly trust: Trust;
  /** Watched mode: the notes known to exist (undefined: walk again), when walked, and those reported since. */
  private listing: Set<string> | undefined;
  private sorted: string[] | undefined;
  private listedAt = -Infinity;
  private readonly reported = new Set<string>();
  /** Watched mode: notes whose cached value was checked since the last walk and not reported since. */
  private readonly verified = new Set<string>();

  /**
   * @param parse the note's record from its text; undefined leaves it out (a frontmatter that
   *   does not parse is retried once the file changes).
   */
  constructor(
    private readonly vault: Vault,
    watch: FileWatch,
    readonly kind: NoteKind,
    private readonly folder: string,
    private readonly parse: (abs: string, text: string) => T | undefined,
  ) {
    this.trust = watch;
    watch.onInvalidate((p) => this.forget(p));
  }

  private forget(abs: string): void {
    if (this.cache.has(abs) || (Vault.isInside(this.folder, abs) && abs.toLowerCase().endsWith('.md'))) {
      this.verified.delete(abs);
      this.reported.add(abs);
    } else if (Vault.isInside(this.folder, abs) || Vault.isInside(abs, this.folder)) {
      // A folder at, in or around this one: walk again.
      this.listing = undefined;
    }
  }

  private watched(): boolean {
    return this.trust.covers(this.folder);
  }

  /** The Markdown files of this kind (absolute, sorted). */
  async list(): Promise<string[]> {
    if (!this.watched()) {
      this.listing = undefined;
      this.verified.clear();
      return this.walk();
    }
    const now = this.trust.now();
    if (this.listing && now - this.listedAt <= this.trust.maxTrustMs) {
      for (const abs of [...this.reported]) {
        this.reported.delete(abs);
        const isNote = this.isNoteName(abs) && (await this.isConfinedFile(abs));
        if (isNote !== this.listing.has(abs)) this.sorted = undefined;
        if (isNote) this.listing.add(abs);
        else this.listing.delete(abs);
      }
      return (this.sorted ??= [...this.listing].sort());
    }
    // Events from now on are for the next query; this walk sees what is there now.
    this.reported.clear();
    this.verified.clear();
    const files = await this.walk();
    this.listing = new Set(files);
    this.sorted = files;
    this.listedAt = now;
    return files;
  }

  /**
   * A regular file whose real place is in the vault, out of its dot-folders (vault/files/real-place.ts):
   * a reported symbolic link to the token or out of the vault is no note, so not even search reads it.
   */
  private async isConfinedFile(abs: string): Promise<boolean> {
    try {
      if ((await confinedPlace(this.vault, abs)) === 'missing') return false;
      return (await this.vault.fs.stat(abs)).isFile();
    } catch {
      return false;
    }
  }

  private isNoteName(abs: string): boolean {
    const rel = path.relative(this.folder, abs);
    return (
      abs.toLowerCase().endsWith('.md') &&
      this.vault.kindOf(abs) === this.kind &&
      !rel.split(path.sep).some((s) => s.startsWith('.') || isTempFile(s) || isSyncToolFile(s))
    );
  }

  /** The folder walked, other configured folders passed over. */
  private async walk(): Promise<string[]> {
    const out: string[] = [];
    const options = {
      skip: (name: string) => name.startsWith('.') || isTempFile(name) || isSyncToolFile(name),
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
    if (!this.watched()) {
      const listed = new Set(files);
      for (const key of this.cache.keys()) if (!listed.has(key)) this.cache.delete(key);
    }
    const out: (T | undefined)[] = new Array(files.length);
    const toCheck: number[] = [];
    files.forEach((f, i) => {
      if (this.verified.has(f)) out[i] = this.cache.get(f)?.value;
      else toCheck.push(i);
    });
    for (let k = 0; k < toCheck.length; k += PARALLEL) {
      const slice = toCheck.slice(k, k + PARALLEL);
      const values = await Promise.all(slice.map((i) => this.get(files[i]!)));
      values.forEach((v, j) => (out[slice[j]!] = v));
    }
    return out.filter((v): v is T => v !== undefined);
  }

  /** One note, fresh; undefined when it does not exist, is no regular file or does not parse. */
  async get(abs: string): Promise<T | undefined> {
    if (this.verified.has(abs)) return this.cache.get(abs)?.value;
    const watched = this.watched();
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
    let value: T | undefined;
    if (hit && hit.signature === signature) value = hit.value;
    else {
      // Confined (docs/design.md §10): a note linked to the token or out of the vault parses as nothing.
      const text = await readConfinedText(this.vault, abs).catch(() => undefined);
      value = text === undefined ? undefined : this.parse(abs, text);
      this.cache.set(abs, { signature, value });
    }
    // Trusted until the watcher reports it (an event during the read has already removed nothing).
    if (watched && !this.reported.has(abs) && this.listing?.has(abs)) this.verified.add(abs);
    return value;
  }
}

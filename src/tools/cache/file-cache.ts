import path from 'node:path';
import { type Clock, systemClock } from '../../clock.js';
import type { Vault } from '../../vault/files/vault.js';
import { looksBinary } from '../../vault/files/confine.js';
import { confinedPlace, readConfinedText } from '../../vault/files/real-place.js';
import { readRegularFile } from '../../vault/files/regular-file.js';
import { NotTextFileError } from '../../vault/files/text-file.js';
import { type FileVersion, fileVersion, sameVersion } from '../../vault/files/file-version.js';

/**
 * What the tools keep in memory between calls, and how they know it is still fresh.
 *
 * Without a watcher (the one-shot CLI, tests) every cached file is checked by its version
 * when it is used. The daemon is long-running and watches the vault: it declares the folders
 * its watcher covers with `FileWatch.trust` and reports every file event there with
 * `invalidate`; cached files below those folders are then used without touching the disk
 * until an event names them. Because events can be missed (a sync tool, an overflowing
 * watcher queue), trusted files are still re-checked once they have gone `maxTrustMs`
 * without a check. The tools' own writes (`Vault.write`) invalidate at once in both modes.
 */

export type InvalidateListener = (absPath: string) => void;

export interface TrustOptions {
  /** A trusted file is re-checked by its version (file-version.ts) when its last check is older than this. Default 5 minutes. */
  maxTrustMs?: number;
  clock?: Clock;
}

export const DEFAULT_MAX_TRUST_MS = 5 * 60_000;

/**
 * The watcher's trust and the invalidations of one vault: created by the caches' owner
 * (run-caches.ts) and shared by every cache of that vault, so an event reaches them all.
 */
export class FileWatch implements Trust {
  /** Invalidations so far: a cache built across an invalidation is not stored. */
  invalidations = 0;
  private folders: string[] = [];
  /** `folder + separator` of each, for a cheap prefix test. */
  private prefixes: string[] = [];
  maxTrustMs = DEFAULT_MAX_TRUST_MS;
  private clock: Clock = systemClock;
  private readonly listeners = new Set<InvalidateListener>();

  constructor(readonly vault: Vault) {
    vault.onWrite((p) => this.invalidate(p));
  }

  /**
   * The daemon's watcher reports every add, change and unlink below `folders` (absolute)
   * through `invalidate`: from now on the caches trust files there without a stat. Call it
   * once the watcher is ready; an empty list (or `stopTrusting`) returns to checking versions.
   */
  trust(folders: readonly string[], options: TrustOptions = {}): void {
    this.folders = folders.map((f) => path.resolve(f));
    this.prefixes = this.folders.map((f) => (f.endsWith(path.sep) ? f : f + path.sep));
    this.maxTrustMs = options.maxTrustMs ?? DEFAULT_MAX_TRUST_MS;
    if (options.clock) this.clock = options.clock;
  }

  stopTrusting(): void {
    this.folders = [];
    this.prefixes = [];
  }

  /**
   * A file event (add, change, unlink) for a file or a folder: every cache of this vault
   * forgets what it holds of that path, or of everything below it for a folder.
   */
  invalidate(absPath: string): void {
    this.invalidations++;
    const abs = path.resolve(absPath);
    for (const listener of this.listeners) listener(abs);
  }

  /** Listen to invalidations; returns the function that stops listening. */
  onInvalidate(listener: InvalidateListener): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  // Paths here are absolute and normalised: a prefix test is enough (and cheap per file).
  covers(absPath: string): boolean {
    for (let i = 0; i < this.folders.length; i++) if (absPath === this.folders[i] || absPath.startsWith(this.prefixes[i]!)) return true;
    return false;
  }

  now(): number {
    return this.clock().getTime();
  }
}

/** The watcher's trust for one vault, as a cache sees it. */
export interface Trust {
  /** True when a watcher reports changes to `absPath` (a file or a folder). */
  covers(absPath: string): boolean;
  readonly maxTrustMs: number;
  /** The clock's time in ms, for ages compared with maxTrustMs. */
  now(): number;
  /** Invalidations of this vault so far. */
  readonly invalidations: number;
}

// --- the search's text cache ------------------------------------------------------------------

/** Larger files are skipped by `search`: a project's knowledge files are text of reasonable size. */
export const MAX_SEARCH_FILE_BYTES = 8 * 1024 * 1024;

interface CachedFile {
  key: string;
  abs: string;
  /** Vault-relative path. */
  id: string;
  /** The number the worker knows the text by. */
  handle: number;
  /** Which of the caching workers holds the text. */
  shard: number;
  /** mtime, change time, inode and size when read: a sync tool that sets mtime back is still noticed. */
  version: FileVersion;
  /** Bytes counted against the budget (0 for a binary file, whose text is not kept). */
  bytes: number;
  binary: boolean;
  /** When the version was last compared with the disk (Trust.now clock). */
  checkedAt: number;
  /** An event named it: read again before use. */
  stale: boolean;
  /**
   * A symbolic link: the watcher names its target when that changes, never the link, so it
   * is checked by its version on every use.
   */
  link: boolean;
}

type Known = Pick<CachedFile, 'version' | 'stale'>;

type Read =
  | { text: string; bytes: number; version: FileVersion; link: boolean }
  | { skipped: 'missing' | 'large' }
  | { skipped: 'binary'; version: FileVersion; link: boolean };

/**
 * A file's text for the search, or why it is skipped; 'unchanged' when `known` (not stale)
 * has the same version (mtime, change time, inode, size). A file that vanished or cannot be read is simply not searched.
 */
async function readSearchable(vault: Vault, abs: string): Promise<Read>;
async function readSearchable(vault: Vault, abs: string, known: Known | undefined): Promise<Read | 'unchanged'>;
async function readSearchable(vault: Vault, abs: string, known?: Known): Promise<Read | 'unchanged'> {
  let stats;
  let link = false;
  try {
    stats = await vault.fs.lstat(abs);
    if (stats.isSymbolicLink()) {
      link = true;
      stats = await vault.fs.stat(abs);
    }
  } catch {
    return { skipped: 'missing' };
  }
  if (!stats.isFile()) return { skipped: 'missing' };
  if (stats.size > MAX_SEARCH_FILE_BYTES) return { skipped: 'large' };
  // A link out of the vault or into a dot-folder (the HTTP token) is not searched: vault/files/real-place.ts.
  if (link && (await confinedPlace(vault, abs).catch(() => 'missing' as const)) === 'missing') return { skipped: 'missing' };
  const version = fileVersion(stats);
  if (known && !known.stale && sameVersion(known.version, version)) return 'unchanged';
  // A link is read as every read of a path vault content names (real-place.ts): its place checked
  // again on the file opened, so a link re-pointed since the check is not followed out. A file
  // that was none is opened without following one: turned into a link since, it is skipped.
  // Non-blocking either way: a FIFO swapped in fails at once instead of waiting for a writer.
  const bytes = await (link ? readConfinedBytes(vault, abs) : readRegularFile(vault.fs, abs, MAX_SEARCH_FILE_BYTES, abs, { noFollow: true }).catch(() => undefined));
  if (bytes === undefined) return { skipped: 'missing' };
  if (bytes === 'binary' || looksBinary(bytes)) return { skipped: 'binary', version, link };
  return { text: bytes.toString('utf8'), bytes: bytes.length, version, link };
}

/** A linked file's bytes through readConfinedText; 'binary' when it is one, undefined when it cannot be read there. */
async function readConfinedBytes(vault: Vault, abs: string): Promise<Buffer | 'binary' | undefined> {
  try {
    const text = await readConfinedText(vault, abs);
    return text === undefined ? undefined : Buffer.from(text, 'utf8');
  } catch (err) {
    return err instanceof NotTextFileError ? 'binary' : undefined;
  }
}

/** A file to search: its handle in the worker, and its text when the worker does not hold it yet. */
export interface SearchableFile {
  handle: number;
  /** The worker (of `shards`) that holds it, or is to search it. */
  shard: number;
  /** Vault-relative path, as results show it. */
  id: string;
  /** Present when the text must be sent; `retain` says whether the worker keeps it afterwards. */
  put?: { text: string; retain: boolean };
}

export type Resolved = SearchableFile | { skipped: 'missing' | 'binary' | 'large' };

/**
 * The bookkeeping of the texts the search worker holds: which file each handle is, its
 * mtime and size when read, least recently used first, within a byte budget. The texts
 * themselves live only in the worker (so a warm search sends no text at all); this side
 * decides what it keeps, and forgets everything when the worker is replaced.
 */
export class SearchTextCache {
  private readonly files = new Map<string, CachedFile>();
  private readonly vault: Vault;
  private nextHandle = 1;
  private total = 0;
  private changes = 0;
  /** Bytes held per worker: a new text goes to the emptiest, so the workers share the matching. */
  private shardBytes: number[];
  /** Handles whose texts each worker should drop with its next message. */
  private drops: number[][];

  constructor(
    private readonly watch: FileWatch,
    public budgetBytes: number,
    readonly shards = 1,
  ) {
    this.vault = watch.vault;
    this.shardBytes = new Array<number>(shards).fill(0);
    this.drops = Array.from({ length: shards }, () => []);
    watch.onInvalidate((p) => this.markStale(p));
  }

  /** Changes each time a held text is dropped or the cache is reset: a plan made before is void. */
  get epoch(): number {
    return this.changes;
  }

  /** Bytes of text held. */
  get bytes(): number {
    return this.total;
  }

  get size(): number {
    return this.files.size;
  }

  /** The worker was replaced (a runaway pattern, an abort): it holds nothing now. */
  reset(): void {
    this.changes++;
    this.files.clear();
    this.total = 0;
    this.shardBytes.fill(0);
    this.drops = Array.from({ length: this.shards }, () => []);
  }

  /** Handles one worker should drop, taken once. */
  takeDrops(shard: number): number[] {
    const out = this.drops[shard]!;
    this.drops[shard] = [];
    return out;
  }

  /** An event for a file or a folder: what is cached of it (or below it) is read again before use. */
  private markStale(absPath: string): void {
    const exact = this.files.get(absPath);
    if (exact) {
      exact.stale = true;
      return;
    }
    // A folder (renamed, removed, added): everything below it. Every event of the vault comes
    // here, so the test is a plain prefix comparison.
    const below = absPath.endsWith(path.sep) ? absPath : absPath + path.sep;
    for (const file of this.files.values()) if (file.key.startsWith(below)) file.stale = true;
  }

  private remove(file: CachedFile): void {
    this.changes++;
    this.files.delete(file.key);
    this.total -= file.bytes;
    this.shardBytes[file.shard]! -= file.bytes;
    if (!file.binary) this.drops[file.shard]!.push(file.handle);
  }

  private touch(file: CachedFile): void {
    this.files.delete(file.key);
    this.files.set(file.key, file);
  }

  /** Make room for `bytes` by dropping the least recently used files not in `inUse`; false when impossible. */
  private makeRoom(bytes: number, inUse: ReadonlySet<number>): boolean {
    if (bytes > this.budgetBytes) return false;
    if (this.total + bytes <= this.budgetBytes) return true;
    for (const file of this.files.values()) {
      if (this.total + bytes <= this.budgetBytes) break;
      if (inUse.has(file.handle) || file.bytes === 0) continue;
      this.remove(file);
    }
    return this.total + bytes <= this.budgetBytes;
  }

  /**
   * One file for a search: the cached text when it is fresh (trusted, or its version
   * unchanged), else read from disk and, budget permitting, kept. `absPath` is absolute and
   * normalised (as path.join makes it). `inUse` collects the handles of this search, which
   * are not evicted to make room for later files. `cached: false` reads the file and keeps
   * nothing (a worker other than the caching one will search it).
   */
  async resolve(absPath: string, inUse: Set<number>, cached = true): Promise<Resolved> {
    const vault = this.vault;
    if (!cached) {
      // Another search owns the bookkeeping: read, and leave the cache alone.
      const read = await readSearchable(vault, absPath);
      if ('skipped' in read) return { skipped: read.skipped };
      const handle = this.nextHandle++;
      return { handle, shard: 0, id: vault.rel(absPath), put: { text: read.text, retain: false } };
    }
    const trusted = this.trusted(absPath, inUse);
    if (trusted) return trusted;
    const key = absPath;
    const now = this.watch.now();
    const hit = this.files.get(key);
    const read = await readSearchable(vault, absPath, hit);
    if (read === 'unchanged') {
      hit!.checkedAt = now;
      return this.use(hit!, inUse);
    }
    // Whatever is cached of it (stale, or added by a concurrent read) is replaced.
    this.forget(key);
    if ('skipped' in read) {
      if (read.skipped === 'binary') {
        this.files.set(key, { key, abs: absPath, id: '', version: read.version, checkedAt: now, stale: false, link: read.link, handle: 0, shard: 0, bytes: 0, binary: true });
      }
      return { skipped: read.skipped };
    }
    const id = vault.rel(absPath);
    const bytes = read.bytes;
    const handle = this.nextHandle++;
    inUse.add(handle);
    const retain = this.makeRoom(bytes, inUse);
    const shard = retain ? this.emptiestShard() : handle % this.shards;
    if (retain) {
      this.files.set(key, { key, abs: absPath, id, version: read.version, checkedAt: now, stale: false, link: read.link, handle, shard, bytes, binary: false });
      this.total += bytes;
      this.shardBytes[shard]! += bytes;
    }
    return { handle, shard, id, put: { text: read.text, retain } };
  }

  /**
   * The cached file without touching the disk, when the watcher vouches for it (covered,
   * not invalidated, checked within `maxTrustMs`); undefined when it must be resolved.
   */
  trusted(absPath: string, inUse: Set<number>): Resolved | undefined {
    const hit = this.files.get(absPath);
    if (!hit || hit.stale || hit.link) return undefined;
    const trust = this.watch;
    if (trust.now() - hit.checkedAt > trust.maxTrustMs || !trust.covers(absPath)) return undefined;
    return this.use(hit, inUse);
  }

  private emptiestShard(): number {
    let best = 0;
    for (let i = 1; i < this.shards; i++) if (this.shardBytes[i]! < this.shardBytes[best]!) best = i;
    return best;
  }

  private use(file: CachedFile, inUse: Set<number>): Resolved {
    this.touch(file);
    if (file.binary) return { skipped: 'binary' };
    inUse.add(file.handle);
    return { handle: file.handle, shard: file.shard, id: file.id };
  }

  private forget(key: string): void {
    const file = this.files.get(key);
    if (file) this.remove(file);
  }
}

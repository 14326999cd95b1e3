import path from 'node:path';
import { parseNote } from '../../vault/format/frontmatter.js';
import type { StatsLike } from '../../vault/files/fs.js';
import { isNotFound } from '../../vault/files/fs.js';
import { type FileVersion, fileVersion, sameVersion } from '../../vault/files/file-version.js';
import { isSyncToolFile } from '../../vault/files/sync-files.js';
import { Vault } from '../../vault/files/vault.js';
import { FileWatch } from './file-cache.js';
import type { VaultListing } from '../../vault/scan/vault-listing.js';

/**
 * The frontmatter of the summary notes in `Folders.Summaries`, parsed once and shared by
 * every run: `list_past_project_meetings`, `read_past_project_meeting_summary` and `search`
 * would otherwise re-read every summary on every call.
 *
 * Freshness (see file-cache.ts): without a watcher, each query lists the folder and compares
 * every file's version (mtime, change time, inode, size: file-version.ts), one walk per
 * query, files re-parsed only when changed. When
 * the daemon's watcher covers the folder (`trustWatcher`), a query re-checks only the files
 * invalidated since the last one, so a warm query touches the disk not at all; a full walk
 * happens again after a folder event, or once the last one is `maxTrustMs` old.
 */

export interface PastSummary {
  /** Absolute path. */
  path: string;
  /** Vault-relative path, forward slashes. */
  rel: string;
  title: string | undefined;
  startTime: string | undefined;
  /** `startTime` in ms since the epoch; -Infinity when missing or not a date (sorts last). */
  startMs: number;
  projects: string[];
  /** `projects` in lower case, for comparisons without regard to case. */
  projectKeys: string[];
  /** `done`, `failed`, …; undefined when missing. */
  status: string | undefined;
  mtimeMs: number;
  size: number;
}

/** Files stat'ed or parsed at once while refreshing: bounded so a large vault does not exhaust descriptors. */
const PARALLEL = 16;

export class PastSummaryIndex {
  private readonly cache = new Map<string, { version: FileVersion; entry: PastSummary | undefined }>();
  private readonly trust: FileWatch;
  /** Watched mode: the summary files known to exist, and the answer while nothing changed. */
  private listed: Set<string> | undefined;
  private answer: PastSummary[] | undefined;
  /** `answer` newest first, made on demand. */
  private byDate: PastSummary[] | undefined;
  private readonly dirty = new Set<string>();
  private sweptAt = -Infinity;
  private refreshing: Promise<void> | undefined;

  /**
   * @param watch the vault's invalidations and the watcher's trust, shared with the other
   *   caches of its owner (run-caches.ts); default: a watch of its own, trusting nothing.
   */
  constructor(
    private readonly vault: Vault,
    watch: FileWatch = new FileWatch(vault),
    /** The vault's files kept between runs (vault/scan/vault-listing.ts): `some` lists the summaries from it instead of walking their folder. */
    private readonly listing?: Pick<VaultListing, 'notesOf'>,
  ) {
    this.trust = watch;
    watch.onInvalidate((p) => this.forget(p));
  }

  /** Forget one file or folder (a watcher event) in every cache of this vault; the next query re-reads it. */
  invalidate(absPath: string): void {
    this.trust.invalidate(absPath);
  }

  /** Drop everything (the owner's idle release); the next query walks the folder again. */
  clear(): void {
    this.cache.clear();
    this.dirty.clear();
    this.listed = undefined;
    this.sweptAt = -Infinity;
    this.setAnswer(undefined);
  }

  /** Summary files whose frontmatter is held. */
  get size(): number {
    return this.cache.size;
  }

  private setAnswer(answer: PastSummary[] | undefined): void {
    this.answer = answer;
    this.byDate = undefined;
  }

  private forget(absPath: string): void {
    const folder = this.vault.layout.folders.Summaries;
    if (this.cache.delete(absPath) || (Vault.isInside(folder, absPath) && isMarkdownName(absPath))) {
      this.dirty.add(absPath);
      this.setAnswer(undefined);
    } else if (Vault.isInside(folder, absPath) || Vault.isInside(absPath, folder)) {
      // A folder at or around the summaries: walk again.
      this.listed = undefined;
      this.setAnswer(undefined);
    }
  }

  /**
   * Every summary note (the Markdown files whose most specific configured folder is
   * `Folders.Summaries`) whose frontmatter parses, sorted by path.
   */
  async all(): Promise<PastSummary[]> {
    return [...(await this.current())];
  }

  /** The same summaries, newest `start_time` first (missing dates last, ties by path). */
  async newestFirst(): Promise<PastSummary[]> {
    const answer = await this.current();
    if (answer !== this.answer) return [...answer].sort(newestFirst);
    this.byDate ??= [...answer].sort(newestFirst);
    return [...this.byDate];
  }

  /**
   * Whether any summary is `accept`ed, reading no further than the first that is (the tool
   * offer, offered-tools.ts, which must not wait for an index the run may never use: on 4,000
   * summaries its build took 0.5 s before the first model request). The answer when one is
   * fresh at hand; else the folder is listed and its files looked at newest name first (a date
   * leads most meeting names), 16 at a time, each kept in the cache as a walk keeps it.
   */
  async some(accept: (summary: PastSummary) => boolean): Promise<boolean> {
    const folder = this.vault.layout.folders.Summaries;
    const fresh = !this.refreshing && this.answer && this.dirty.size === 0 && this.trust.covers(folder) && this.trust.now() - this.sweptAt <= this.trust.maxTrustMs;
    if (fresh) return this.answer!.some(accept);
    const files = [...(await this.summaryFiles())].reverse();
    // Settled by the first accepted, not by the slowest of its batch (a sync tool's placeholder still downloading, say).
    return new Promise<boolean>((resolve, reject) => {
      let next = 0;
      let active = 0;
      let settled = false;
      const settle = (found: boolean) => {
        settled = true;
        resolve(found);
      };
      const pump = () => {
        while (!settled && active < PARALLEL && next < files.length) {
          active++;
          this.entry(files[next++]!).then(
            (entry) => {
              active--;
              if (settled) return;
              if (entry !== undefined && accept(entry)) settle(true);
              else pump();
            },
            (err: unknown) => {
              settled = true;
              reject(err);
            },
          );
        }
        if (!settled && active === 0 && next >= files.length) settle(false);
      };
      pump();
    });
  }

  /**
   * The summary notes, sorted: from the kept listing when there is one and it reaches the
   * folder, else a walk of the folder (Vault.listNotesOf, the listing's own rule).
   */
  private async summaryFiles(): Promise<readonly string[]> {
    const listed = await this.listing?.notesOf('Summaries');
    return listed ?? (await this.vault.listNotesOf('Summaries'));
  }

  /** The answer, shared: callers copy it. */
  private async current(): Promise<readonly PastSummary[]> {
    const folder = this.vault.layout.folders.Summaries;
    if (!this.trust.covers(folder)) {
      this.listed = undefined;
      this.setAnswer(undefined);
      return this.walk();
    }
    while (this.refreshing) await this.refreshing;
    if (this.answer && this.dirty.size === 0 && this.trust.now() - this.sweptAt <= this.trust.maxTrustMs) return this.answer;
    const refresh = this.refreshWatched();
    this.refreshing = refresh;
    try {
      await refresh;
    } finally {
      this.refreshing = undefined;
    }
    return this.answer ?? [];
  }

  /** One walk of the folder, every file's version checked. */
  private async walk(): Promise<PastSummary[]> {
    const folder = this.vault.layout.folders.Summaries;
    const files = (await this.vault.listMarkdown(folder)).filter((f) => this.vault.kindOf(f) === 'summary');
    const listed = new Set(files);
    for (const key of this.cache.keys()) if (!listed.has(key)) this.cache.delete(key);
    const out: (PastSummary | undefined)[] = new Array(files.length);
    for (let i = 0; i < files.length; i += PARALLEL) {
      const slice = files.slice(i, i + PARALLEL);
      const entries = await Promise.all(slice.map((f) => this.entry(f)));
      entries.forEach((e, j) => (out[i + j] = e));
    }
    return out.filter((e): e is PastSummary => e !== undefined);
  }

  /** Watched mode: a full walk when due, else only the files invalidated since the last query. */
  private async refreshWatched(): Promise<void> {
    const now = this.trust.now();
    if (!this.listed || now - this.sweptAt > this.trust.maxTrustMs) {
      // Events during the walk are kept for the next query.
      this.dirty.clear();
      this.listed = undefined;
      const answer = await this.walk();
      this.listed = new Set(answer.map((e) => e.path));
      for (const [file, cached] of this.cache) if (cached.entry === undefined) this.listed.add(file);
      this.sweptAt = now;
      this.setAnswer(answer);
      return;
    }
    const changed = [...this.dirty];
    this.dirty.clear();
    for (let i = 0; i < changed.length; i += PARALLEL) {
      await Promise.all(
        changed.slice(i, i + PARALLEL).map(async (file) => {
          const isSummary = this.vault.kindOf(file) === 'summary' && !hasDotSegment(this.vault.layout.folders.Summaries, file) && !isSyncToolFile(file);
          const stats = isSummary ? await this.vault.fs.lstat(file).catch(() => undefined) : undefined;
          if (stats?.isFile()) {
            await this.entry(file);
            this.listed?.add(file);
          } else {
            this.cache.delete(file);
            this.listed?.delete(file);
          }
        }),
      );
    }
    const answer: PastSummary[] = [];
    for (const file of [...(this.listed ?? [])].sort()) {
      const entry = this.cache.get(file)?.entry;
      if (entry) answer.push(entry);
    }
    this.setAnswer(answer);
  }

  /** The entry of one file, fresh; undefined when it does not exist or does not parse. */
  async get(absPath: string): Promise<PastSummary | undefined> {
    return this.entry(path.resolve(absPath));
  }

  private async entry(file: string): Promise<PastSummary | undefined> {
    let stats: StatsLike;
    try {
      stats = await this.vault.fs.stat(file);
    } catch (err) {
      if (!isNotFound(err)) throw err;
      this.cache.delete(file);
      return undefined;
    }
    const cached = this.cache.get(file);
    const version = fileVersion(stats);
    if (cached && sameVersion(cached.version, version)) return cached.entry;
    const text = await this.vault.readIfExists(file);
    if (text === undefined) {
      this.cache.delete(file);
      return undefined;
    }
    let entry: PastSummary | undefined;
    try {
      const data = parseNote(text, this.vault.rel(file)).data;
      const startTime = scalar(data.start_time);
      const startMs = startTime === undefined ? NaN : Date.parse(startTime);
      const projects = projectNames(data.projects);
      entry = {
        path: file,
        rel: this.vault.rel(file),
        title: scalar(data.title),
        startTime,
        startMs: Number.isNaN(startMs) ? -Infinity : startMs,
        projects,
        projectKeys: projects.map((p) => p.toLowerCase()),
        status: scalar(data.status),
        mtimeMs: stats.mtimeMs,
        size: stats.size,
      };
    } catch {
      // A note whose frontmatter does not parse is not a summary; it is retried once it changes.
      entry = undefined;
    }
    this.cache.set(file, { version, entry });
    return entry;
  }
}

/** Newest start_time first; equal (or missing) times by path. */
export function newestFirst(a: PastSummary, b: PastSummary): number {
  if (a.startMs !== b.startMs) return a.startMs === -Infinity ? 1 : b.startMs === -Infinity ? -1 : b.startMs - a.startMs;
  return a.rel < b.rel ? -1 : a.rel > b.rel ? 1 : 0;
}

function isMarkdownName(file: string): boolean {
  return file.toLowerCase().endsWith('.md');
}

/** listMarkdown skips dot-folders and dot-files; so does the watched refresh. */
function hasDotSegment(folder: string, file: string): boolean {
  return path.relative(folder, file).split(path.sep).some((s) => s.startsWith('.'));
}

function scalar(value: unknown): string | undefined {
  if (value === null || value === undefined || value === '') return undefined;
  if (value instanceof Date) return value.toISOString();
  if (typeof value === 'object') return undefined;
  return String(value);
}

/**
 * A frontmatter `projects` value as names: a list, or one string (comma-separated allowed);
 * `[[Alpha]]` and `[[Projects/Alpha|Alpha]]` name the folder `Alpha`.
 */
export function projectNames(value: unknown): string[] {
  const raw = Array.isArray(value) ? value : typeof value === 'string' ? value.split(',') : [];
  const out: string[] = [];
  for (const item of raw) {
    if (typeof item !== 'string' && typeof item !== 'number') continue;
    let name = String(item).trim();
    const link = /^\[\[([^\]|#]*)(?:[#|][^\]]*)?\]\]$/.exec(name);
    if (link) name = link[1]!.trim();
    name = name.replace(/\/+$/, '');
    const slash = name.lastIndexOf('/');
    if (slash >= 0) name = name.slice(slash + 1);
    if (name !== '' && !out.includes(name)) out.push(name);
  }
  return out;
}

/** Project names are compared without regard to case, as folder names are on most desktops. */
export function sameProject(a: string, b: string): boolean {
  return a.toLowerCase() === b.toLowerCase();
}

export function intersects(a: readonly string[], b: readonly string[]): boolean {
  return a.some((x) => b.some((y) => sameProject(x, y)));
}

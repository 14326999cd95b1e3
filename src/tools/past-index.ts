import path from 'node:path';
import { parseNote } from '../vault/frontmatter.js';
import type { StatsLike } from '../vault/fs.js';
import { isNotFound } from '../vault/fs.js';
import type { Vault } from '../vault/vault.js';

/**
 * The frontmatter of the summary notes in `Folders.Summaries`, parsed once and shared by
 * every run: `list_past_project_meetings`, `read_past_project_meeting_summary` and `search`
 * would otherwise re-read every summary on every call. An entry is re-parsed when the file's
 * mtime or size changes; the daemon's watcher may also call `invalidate` on its events.
 */

export interface PastSummary {
  /** Absolute path. */
  path: string;
  /** Vault-relative path, forward slashes. */
  rel: string;
  title: string | undefined;
  startTime: string | undefined;
  projects: string[];
  /** `done`, `failed`, …; undefined when missing. */
  status: string | undefined;
  mtimeMs: number;
  size: number;
}

/** Files stat'ed or parsed at once while refreshing: bounded so a large vault does not exhaust descriptors. */
const PARALLEL = 16;

export class PastSummaryIndex {
  private readonly cache = new Map<string, { mtimeMs: number; size: number; entry: PastSummary | undefined }>();

  constructor(private readonly vault: Vault) {}

  private static readonly shared = new WeakMap<Vault, PastSummaryIndex>();

  /** One index per vault for the process's lifetime: what runs share when nobody passes one. */
  static forVault(vault: Vault): PastSummaryIndex {
    let index = PastSummaryIndex.shared.get(vault);
    if (!index) PastSummaryIndex.shared.set(vault, (index = new PastSummaryIndex(vault)));
    return index;
  }

  /** Forget one file (a watcher event); the next query re-reads it. */
  invalidate(absPath: string): void {
    this.cache.delete(path.resolve(absPath));
  }

  clear(): void {
    this.cache.clear();
  }

  /**
   * Every summary note (the Markdown files whose most specific configured folder is
   * `Folders.Summaries`) whose frontmatter parses, sorted by path.
   */
  async all(): Promise<PastSummary[]> {
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
    if (cached && cached.mtimeMs === stats.mtimeMs && cached.size === stats.size) return cached.entry;
    const text = await this.vault.readIfExists(file);
    if (text === undefined) {
      this.cache.delete(file);
      return undefined;
    }
    let entry: PastSummary | undefined;
    try {
      const data = parseNote(text, this.vault.rel(file)).data;
      entry = {
        path: file,
        rel: this.vault.rel(file),
        title: scalar(data.title),
        startTime: scalar(data.start_time),
        projects: projectNames(data.projects),
        status: scalar(data.status),
        mtimeMs: stats.mtimeMs,
        size: stats.size,
      };
    } catch {
      // A note whose frontmatter does not parse is not a summary; it is retried once it changes.
      entry = undefined;
    }
    this.cache.set(file, { mtimeMs: stats.mtimeMs, size: stats.size, entry });
    return entry;
  }
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

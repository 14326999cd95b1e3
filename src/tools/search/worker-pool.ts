import { availableParallelism } from 'node:os';
import { type FileWatch, type Resolved, SearchTextCache } from '../cache/file-cache.js';
import type { TranslatedRegex } from './dotnet-regex.js';
import type { ThreadMatch, ThreadPut } from './match-lines.js';
import { MatchWorker, type WorkerResult } from './match-worker.js';
import { MeetingAssistantError } from '../../errors.js';

/**
 * Line matching off the main thread. A regular expression that backtracks catastrophically
 * cannot be interrupted from JavaScript, so matching runs in a worker thread that is
 * terminated when the search's time limit passes; the daemon's event loop never stalls.
 *
 * Long-lived workers (two on a multi-core machine, matching in parallel) keep the texts of
 * the files searched (within `Agent.SearchCacheMegabytes`, least recently used dropped
 * first; see file-cache.ts), so a warm search sends them only the list of file handles,
 * never 50 MB of text. When one is terminated (a runaway pattern, an abort) their texts are
 * gone and the next search reads the files again. A search that arrives while another uses
 * them runs on a plain worker that keeps nothing.
 *
 * One worker thread: match-worker.ts; what it runs: search-worker-thread.ts and search-lines.ts.
 */

export interface SearchFile {
  /** What the caller calls the file (its vault-relative path). */
  id: string;
  text: string;
}

export interface LineMatch {
  file: string;
  line: number;
  text: string;
}

export class SearchTimeoutError extends MeetingAssistantError {
  constructor(readonly timeoutMs: number) {
    super(`search stopped after ${timeoutMs / 1000} s`, false);
  }
}

export interface SearchPattern extends TranslatedRegex {
  /** True when whole-text scanning finds the same lines as testing line by line (no lookaround). */
  scan: boolean;
}

/**
 * Whether a .NET keyword may be scanned over whole texts: any lookaround could look past a
 * line's end, so those are tested line by line. Conservative: whitespace is ignored (under
 * `(?x)` it is not part of the pattern) and `\(?=` (an escaped parenthesis) also counts as
 * lookaround; the only cost is speed.
 */
export function scannable(keyword: string): boolean {
  return !/\(\?<?[=!]/.test(keyword.replace(/\s+/g, ''));
}

/** A translated pattern with its scanning mode. */
export function searchPattern(keyword: string, translated: TranslatedRegex): SearchPattern {
  return { source: translated.source, flags: translated.flags, scan: scannable(keyword) };
}

type Put = ThreadPut;
type WorkerMatch = ThreadMatch;

interface Result {
  matches: LineMatch[];
  count: number;
}

/**
 * Caching workers: the texts are spread over this many, which match in parallel. Two at
 * most: a laptop's daemon should not take every core, and beyond two the fixed costs of a
 * search outweigh the gain.
 */
const SHARDS = Math.max(1, Math.min(2, availableParallelism()));

/** How much longer than its limit a search may take while its new threads have not started. */
const START_ALLOWANCE_MS = 30_000;

/** Plain workers kept warm for searches that find the caching workers busy; more are terminated. */
const MAX_IDLE = 1;

export interface MatchOptions {
  patterns: SearchPattern[];
  /** Matches kept (all are counted). */
  maxResults: number;
  /** Absolute time (ms since epoch, `Date.now()` clock) after which the search is stopped. */
  deadline: number;
  timeoutMs: number;
  signal?: AbortSignal | undefined;
  /** Characters of new file text sent to a worker per message. */
  batchChars?: number;
}

/**
 * A warm search's work, kept for the next search of the same scope: per caching worker, the
 * handles it searches in result order and their positions in the whole result. Valid while
 * the workers and what they hold are unchanged (the caller drops it on file events).
 */
export interface SearchPlan {
  readonly orders: Int32Array[];
  readonly positions: Int32Array[];
  /** The caching workers it was made for (opaque). */
  readonly group: readonly object[];
  readonly epoch: number;
}

/** What one worker gets next: handles in result order, their global positions, new texts. */
class Batch {
  order: number[] = [];
  positions: number[] = [];
  put: Put[] = [];
  chars = 0;
}

/**
 * Requests to the workers of one search, sent as soon as each batch is ready (the workers
 * match while the next files are read) and merged in result order. The deadline or an abort
 * terminates the workers.
 */
class SearchSession {
  private readonly replies: Promise<{ positions: ArrayLike<number>; result: WorkerResult }>[] = [];
  private readonly batches: Batch[];
  private failure: Error | undefined;
  private timer: NodeJS.Timeout | undefined;
  private readonly onAbort: () => void;
  private next = 0;
  /** options.deadline, moved on by the time new threads took to start. */
  private deadline: number;
  /** New threads have not all started yet: the deadline is not moved on yet. */
  private starting = false;
  private closed = false;

  constructor(
    private readonly workers: MatchWorker[],
    private readonly options: MatchOptions,
    private readonly drops: (shard: number) => number[] = () => [],
  ) {
    this.batches = workers.map(() => new Batch());
    this.deadline = options.deadline;
    const starting = workers.filter((worker) => !worker.isOnline);
    if (starting.length === 0) this.arm(0);
    else {
      // A thread's start (a new isolate: seconds on a loaded machine) is not the search's
      // time; the limit is there for a pattern that never ends (docs/design.md §4 `search`).
      // Bounded all the same: a thread that never starts fails the search START_ALLOWANCE_MS late.
      const since = Date.now();
      this.starting = true;
      this.arm(START_ALLOWANCE_MS);
      void Promise.all(starting.map((worker) => worker.online)).then(() => {
        this.deadline += Date.now() - since;
        this.starting = false;
        if (!this.closed) this.arm(0);
      });
    }
    this.onAbort = () => this.fail(toError(options.signal?.reason));
    options.signal?.addEventListener('abort', this.onAbort, { once: true });
  }

  private arm(extraMs: number): void {
    clearTimeout(this.timer);
    this.timer = setTimeout(() => this.fail(new SearchTimeoutError(this.options.timeoutMs)), Math.max(0, this.deadline - Date.now()) + extraMs);
  }

  /** Throws the failure, the passed deadline or the abort, if any. */
  check(): void {
    if (this.failure) throw this.failure;
    if (Date.now() > this.deadline + (this.starting ? START_ALLOWANCE_MS : 0)) this.fail(new SearchTimeoutError(this.options.timeoutMs));
    if (this.options.signal?.aborted) this.fail(toError(this.options.signal.reason));
    if (this.failure) throw this.failure;
  }

  /** The next file in result order, for worker `shard`. */
  add(shard: number, handle: number, id: string, put?: { text: string; retain: boolean }): void {
    const batch = this.batches[shard]!;
    batch.order.push(handle);
    batch.positions.push(this.next++);
    if (put) {
      batch.put.push({ h: handle, id, text: put.text, retain: put.retain });
      batch.chars += put.text.length;
      if (batch.chars >= (this.options.batchChars ?? 1_000_000)) this.flush(shard);
    }
  }

  /** A planned worker's whole share, in one message. */
  sendPlanned(shard: number, order: Int32Array, positions: Int32Array): void {
    this.request(shard, order, positions, []);
  }

  private request(shard: number, order: Int32Array, positions: ArrayLike<number>, put: Put[]): void {
    const drop = this.drops(shard);
    if (order.length === 0 && drop.length === 0) return;
    const request = this.workers[shard]!.request({ patterns: this.options.patterns, keep: this.options.maxResults, order, put, drop });
    const reply = request.then((result) => ({ positions, result }));
    // Failures surface in finish(); keep an early one from being reported as unhandled.
    reply.catch(() => {});
    this.replies.push(reply);
  }

  private flush(shard: number): void {
    const batch = this.batches[shard]!;
    this.batches[shard] = new Batch();
    this.request(shard, Int32Array.from(batch.order), batch.positions, batch.put);
  }

  fail(err: Error): void {
    if (this.failure) return;
    this.failure = err;
    for (const worker of this.workers) void worker.terminate(err);
  }

  async finish(): Promise<Result> {
    try {
      for (let shard = 0; shard < this.workers.length; shard++) this.flush(shard);
      const replies = await Promise.all(this.replies);
      if (this.failure) throw this.failure;
      let count = 0;
      const all: { pos: number; match: WorkerMatch }[] = [];
      for (const { positions, result } of replies) {
        count += result.count;
        for (const match of result.matches) all.push({ pos: positions[match.i]!, match });
      }
      all.sort((a, b) => a.pos - b.pos || a.match.line - b.match.line);
      const matches = all.slice(0, this.options.maxResults).map(({ match }) => ({ file: match.file, line: match.line, text: match.text }));
      return { matches, count };
    } catch (err) {
      throw this.failure ?? err;
    } finally {
      this.close();
    }
  }

  close(): void {
    this.closed = true;
    clearTimeout(this.timer);
    this.options.signal?.removeEventListener('abort', this.onAbort);
  }
}

function toError(reason: unknown): Error {
  return reason instanceof Error ? reason : new Error(reason === undefined ? 'aborted' : String(reason));
}

/** Files read ahead of the one being handed to the workers (the cold path waits on the disk). */
const READ_AHEAD = 16;

/**
 * The search's worker threads and the bookkeeping of the texts they hold, for one vault's
 * caches (run-caches.ts owns it): the caching workers (`SHARDS`, holding the texts within
 * `Agent.SearchCacheMegabytes`) and at most `MAX_IDLE` plain one. `close()` ends every thread
 * and forgets every text; the next search starts them again (the owner's idle release).
 */
export class SearchWorkerPool {
  /** The texts the caching workers hold: bookkeeping only, the texts are in the workers. */
  readonly texts: SearchTextCache;
  private caching: MatchWorker[] | undefined;
  /** True while a search uses the caching workers. */
  private cachingInUse = false;
  private readonly idle: MatchWorker[] = [];

  constructor(watch: FileWatch, options: { budgetBytes?: number; shards?: number } = {}) {
    this.texts = new SearchTextCache(watch, options.budgetBytes ?? 256 * 1024 * 1024, options.shards ?? SHARDS);
  }

  /** Worker threads alive now (caching and plain). */
  get threads(): number {
    return (this.caching?.filter((w) => !w.dead).length ?? 0) + this.idle.filter((w) => !w.dead).length;
  }

  private cachingWorkers(): MatchWorker[] {
    if (!this.caching || this.caching.some((w) => w.dead)) {
      for (const w of this.caching ?? []) void w.terminate();
      const group = Array.from({ length: this.texts.shards }, () => new MatchWorker());
      // One lost worker loses the group: the bookkeeping is for all of them.
      for (const worker of group) {
        worker.onLost(() => {
          if (this.caching !== group) return;
          this.caching = undefined;
          this.texts.reset();
          for (const other of group) if (other !== worker) void other.terminate();
        });
      }
      this.caching = group;
    }
    return this.caching;
  }

  private plainWorker(): MatchWorker {
    let worker: MatchWorker | undefined;
    while ((worker = this.idle.pop()) && worker.dead);
    return worker && !worker.dead ? worker : new MatchWorker();
  }

  private releasePlain(worker: MatchWorker): void {
    if (!worker.dead && this.idle.length < MAX_IDLE) this.idle.push(worker);
    else void worker.terminate();
  }

  /**
   * Terminate every worker (idle release, shutdown, tests); the text cache starts empty again.
   * Resolves once every thread has ended.
   */
  close(): Promise<void> {
    const all = [...this.idle.splice(0), ...(this.caching ?? [])];
    this.caching = undefined;
    this.texts.reset();
    return Promise.all(all.map((worker) => worker.terminate())).then(() => undefined);
  }

  /**
   * Search the files of the vault at `paths` (absolute, normalised, in the order results are
   * wanted). Files the caching workers hold and that are still fresh are not read; the others
   * are read, sent in batches and kept within `cacheBytes`. `onFile` learns what became of
   * each path (searched, or skipped: missing, binary, too large). Throws SearchTimeoutError
   * when the deadline passes.
   */
  async searchFiles(
    paths: Iterable<string>,
    options: MatchOptions & { cacheBytes: number; onFile?: (abs: string, resolved: Resolved) => void },
  ): Promise<Result & { plan?: SearchPlan }> {
    // One search at a time owns the caching workers (and their bookkeeping); another runs beside it on a plain worker.
    const useCache = options.cacheBytes > 0 && !this.cachingInUse;
    if (!useCache) return this.searchWith(paths, options, false);
    this.cachingInUse = true;
    try {
      return await this.searchWith(paths, options, true);
    } finally {
      this.cachingInUse = false;
    }
  }

  private async searchWith(
    paths: Iterable<string>,
    options: MatchOptions & { cacheBytes: number; onFile?: (abs: string, resolved: Resolved) => void },
    useCache: boolean,
  ): Promise<Result & { plan?: SearchPlan }> {
    const cache = this.texts;
    if (useCache) cache.budgetBytes = options.cacheBytes;
    const plain = useCache ? undefined : this.plainWorker();
    const workers = plain ? [plain] : this.cachingWorkers();
    const session = new SearchSession(workers, options, plain ? undefined : (shard) => cache.takeDrops(shard));
    const inUse = new Set<number>();
    const epoch = cache.epoch;
    // What a later search of the same files can reuse: only when every text stays in the cache.
    let reusable = !plain;
    const orders: number[][] = workers.map(() => []);
    const positions: number[][] = workers.map(() => []);
    let position = 0;
    const handle = (abs: string, resolved: Resolved): void => {
      options.onFile?.(abs, resolved);
      if ('skipped' in resolved) return;
      const shard = plain ? 0 : resolved.shard;
      if (resolved.put && !resolved.put.retain) reusable = false;
      orders[shard]!.push(resolved.handle);
      positions[shard]!.push(position++);
      session.add(shard, resolved.handle, resolved.id, resolved.put);
    };
    // A file in two scoped folders (configured folders may overlap) is searched once.
    const seen = new Set<string>();
    const queue: { abs: string; resolved: Promise<Resolved> }[] = [];
    try {
      for (const abs of paths) {
        if (seen.has(abs)) continue;
        seen.add(abs);
        // The warm path: nothing to wait for, no promise per file.
        const known = useCache && queue.length === 0 ? cache.trusted(abs, inUse) : undefined;
        if (known) {
          handle(abs, known);
          continue;
        }
        session.check();
        const resolved = cache.resolve(abs, inUse, useCache);
        // Settled later, in order; a rejection is awaited there.
        resolved.catch(() => {});
        queue.push({ abs, resolved });
        if (queue.length >= READ_AHEAD) {
          const head = queue.shift()!;
          handle(head.abs, await head.resolved);
        }
      }
      while (queue.length > 0) {
        session.check();
        const head = queue.shift()!;
        handle(head.abs, await head.resolved);
      }
      session.check();
    } catch (err) {
      // What the workers hold no longer matches the bookkeeping: they are replaced next time.
      session.fail(toError(err));
      await Promise.allSettled(queue.map((q) => q.resolved));
      session.close();
      throw err;
    }
    try {
      const result = await session.finish();
      // Evictions during this search dropped texts it read earlier: nothing to reuse.
      if (!reusable || cache.epoch !== epoch) return result;
      return {
        ...result,
        plan: { orders: orders.map((o) => Int32Array.from(o)), positions: positions.map((p) => Int32Array.from(p)), group: workers, epoch },
      };
    } finally {
      if (plain) this.releasePlain(plain);
    }
  }

  /**
   * Run a plan made by an earlier search: no listing, no file checks, only the handles sent.
   * Undefined when the plan no longer fits (the workers were replaced, a text was dropped, or
   * they are busy with another search); the caller then searches the files again.
   */
  async searchPlanned(plan: SearchPlan, options: MatchOptions): Promise<Result | undefined> {
    const cache = this.texts;
    const group = this.caching;
    if (this.cachingInUse || !group || group !== plan.group || cache.epoch !== plan.epoch || group.some((w) => w.dead)) return undefined;
    this.cachingInUse = true;
    try {
      const session = new SearchSession(group, options, (shard) => cache.takeDrops(shard));
      plan.orders.forEach((order, shard) => session.sendPlanned(shard, order, plan.positions[shard]!));
      return await session.finish();
    } finally {
      this.cachingInUse = false;
    }
  }

  /**
   * Match in-memory texts (no cache): the files the iterator yields, a batch at a time.
   * Throws SearchTimeoutError when the deadline passes.
   */
  async matchLines(files: AsyncIterable<SearchFile>, options: MatchOptions): Promise<Result> {
    const worker = this.plainWorker();
    const session = new SearchSession([worker], options);
    let handle = 1;
    try {
      for await (const file of files) {
        session.check();
        session.add(0, handle++, file.id, { text: file.text, retain: false });
      }
    } catch (err) {
      session.fail(toError(err));
      session.close();
      throw err;
    }
    try {
      return await session.finish();
    } finally {
      this.releasePlain(worker);
    }
  }
}

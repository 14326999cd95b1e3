import { Worker } from 'node:worker_threads';
import { type ThreadMatch, type ThreadReply, type ThreadRequest, THREAD_READY } from './match-lines.js';

/**
 * Each search worker runs search-worker-thread.ts, compiled. A worker thread cannot load the
 * TypeScript sources, so when this module itself runs from them (vitest) the thread is taken
 * from dist/, which the test setup builds before any test file runs.
 */
const THREAD_URL = import.meta.url.endsWith('.ts')
  ? new URL('../../../dist/tools/search/worker-thread.js', import.meta.url)
  : new URL('./worker-thread.js', import.meta.url);

export interface WorkerResult {
  matches: ThreadMatch[];
  count: number;
}

let nextId = 1;

/** One worker thread and its pending requests; every request fails once it is gone. */
export class MatchWorker {
  private readonly worker = new Worker(THREAD_URL);
  private readonly pending = new Map<number, { resolve: (r: WorkerResult) => void; reject: (e: Error) => void }>();
  private lostHandlers: (() => void)[] = [];
  dead = false;
  /** The thread's code is loaded: a search's time limit counts from then (worker-pool.ts SearchSession). */
  isOnline = false;
  /** Resolves once the thread is ready for requests, or is gone. */
  readonly online: Promise<void>;
  private markOnline: () => void = () => undefined;

  constructor() {
    this.online = new Promise((resolve) => {
      this.markOnline = () => {
        this.isOnline = true;
        resolve();
      };
      this.onLost(resolve);
    });
    // An idle worker must not keep the process (a CLI run, a test file) alive.
    this.worker.unref();
    this.worker.on('message', (reply: ThreadReply | typeof THREAD_READY) => {
      if (reply === THREAD_READY) return this.markOnline();
      const waiting = this.pending.get(reply.id);
      if (!waiting) return;
      this.pending.delete(reply.id);
      if (this.pending.size === 0) this.worker.unref();
      if (reply.error !== undefined) waiting.reject(new Error(`search worker: ${reply.error}`));
      else waiting.resolve({ matches: reply.matches, count: reply.count });
    });
    this.worker.on('error', (err) => this.lost(err));
    this.worker.on('exit', (code) => this.lost(new Error(`search worker exited (code ${code})`)));
  }

  onLost(handler: () => void): void {
    this.lostHandlers.push(handler);
  }

  request(req: Omit<ThreadRequest, 'id'>): Promise<WorkerResult> {
    if (this.dead) return Promise.reject(new Error('search worker is gone'));
    const id = nextId++;
    // A pending reply keeps the process alive.
    this.worker.ref();
    return new Promise((resolve, reject) => {
      this.pending.set(id, { resolve, reject });
      this.worker.postMessage({ id, ...req } satisfies ThreadRequest);
    });
  }

  /**
   * Stop it now (a runaway pattern cannot be interrupted otherwise); pending requests fail with
   * `reason`. Resolves once the thread has ended (its heap is gone then).
   */
  terminate(reason: Error = new Error('search worker terminated')): Promise<void> {
    this.lost(reason);
    return this.worker.terminate().then(
      () => undefined,
      () => undefined,
    );
  }

  private lost(reason: Error): void {
    if (this.dead) return;
    this.dead = true;
    for (const { reject } of this.pending.values()) reject(reason);
    this.pending.clear();
    const handlers = this.lostHandlers;
    this.lostHandlers = [];
    for (const handler of handlers) handler();
  }
}

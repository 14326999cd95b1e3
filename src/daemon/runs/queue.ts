import { type Clock, systemClock } from '../../clock.js';
import type { Logger } from '../../log.js';

/**
 * The run queue: at most `concurrency` runs at once, keyed by meeting so one meeting is never
 * run twice at once. A trigger for a meeting that is already waiting merges into it; one for
 * a meeting that is running becomes at most one follow-up run after it.
 */

export type JobKind = 'summarize' | 'retry';

export interface Job {
  /** The meeting's absolute path when known, else the note the job names: what must not run twice. */
  key: string;
  kind: JobKind;
  /** Absolute path of the meeting note (summarize) or the summary note (retry). */
  target: string;
  /** What asked for it, for the logs: `transcript`, `catch-up`, `retry`, `link`, `api`. */
  trigger: string;
}

export interface JobResult {
  status: 'done' | 'failed' | 'skipped';
  runId?: string;
  /** One line for people when failed or skipped. */
  message?: string;
  summaryPath?: string;
  /** The run ended only because the queue is stopping (it was waiting to retry): resume it later. */
  aborted?: boolean;
}

/**
 * `signal` aborts the run outright (the grace period is over); `stopWaiting` fires as soon as
 * the queue stops, for a run to end at once if it is only waiting (a retry delay), not working.
 */
export type JobRunner = (job: Job, signal: AbortSignal, stopWaiting: AbortSignal, queued: QueuedAs) => Promise<JobResult>;

/** How a job came to run. */
export interface QueuedAs {
  /** It was asked for while its meeting ran, and waited for that run: it may be stale by now. */
  afterRun: boolean;
}

export type EnqueueResult = 'queued' | 'merged' | 'follow-up' | 'stopped';

export interface QueuedJobInfo extends Job {
  queuedAt: string;
}

export interface RunningJobInfo extends Job {
  startedAt: string;
  followUp: boolean;
}

export interface RecentResult extends Job, JobResult {
  startedAt: string;
  finishedAt: string;
}

export interface QueueStatus {
  concurrency: number;
  stopping: boolean;
  pending: QueuedJobInfo[];
  running: RunningJobInfo[];
  recent: RecentResult[];
}

export interface StopResult {
  /** Runs that finished within the grace period. */
  finished: number;
  /** Runs stopped unfinished: at once when only waiting to retry, else when the grace period ran out. */
  aborted: number;
  /** Jobs that never started: catch-up resumes them at next start. */
  leftPending: number;
}

export interface QueueOptions {
  concurrency: number;
  run: JobRunner;
  log: Logger;
  clock?: Clock;
  /** How many finished runs `status()` reports. */
  recentLimit?: number;
  /** After the grace period, how long aborted runs get to unwind before stop() gives up on them. */
  abortWaitMs?: number;
}

interface Running {
  job: Job;
  controller: AbortController;
  startedAt: Date;
  followUp?: Job;
  done: Promise<void>;
}

/** A retry is the stronger request (it regenerates even a good summary), so it wins a merge. */
function merge(existing: Job, incoming: Job): Job {
  return incoming.kind === 'retry' && existing.kind !== 'retry' ? incoming : existing;
}

export class RunQueue {
  private readonly pending = new Map<string, { job: Job; queuedAt: Date }>();
  private readonly running = new Map<string, Running>();
  private readonly recent: RecentResult[] = [];
  private readonly idleWaiters: (() => void)[] = [];
  private stopping = false;
  /** Follow-ups promoted to pending: jobs asked for while their meeting ran. */
  private readonly followUps = new WeakSet<Job>();
  private readonly stopWaiting = new AbortController();
  /** Runs aborted by stop(): unfinished work, like the jobs still waiting. */
  private readonly aborted: Job[] = [];
  private readonly now: Clock;

  constructor(private readonly options: QueueOptions) {
    if (!Number.isInteger(options.concurrency) || options.concurrency < 1) {
      throw new RangeError(`concurrency must be an integer >= 1, got ${options.concurrency}`);
    }
    this.now = options.clock ?? systemClock;
  }

  enqueue(job: Job): EnqueueResult {
    if (this.stopping) return 'stopped';
    const active = this.running.get(job.key);
    if (active) {
      active.followUp = active.followUp ? merge(active.followUp, job) : job;
      return 'follow-up';
    }
    const waiting = this.pending.get(job.key);
    if (waiting) {
      waiting.job = merge(waiting.job, job);
      return 'merged';
    }
    this.pending.set(job.key, { job, queuedAt: this.now() });
    this.pump();
    return 'queued';
  }

  /** True while a run for this key is in progress (not merely waiting). */
  isRunning(key: string): boolean {
    return this.running.has(key);
  }

  /** True when the key is waiting or running. */
  has(key: string): boolean {
    return this.running.has(key) || this.pending.has(key);
  }

  get size(): { pending: number; running: number } {
    return { pending: this.pending.size, running: this.running.size };
  }

  status(): QueueStatus {
    return {
      concurrency: this.options.concurrency,
      stopping: this.stopping,
      pending: [...this.pending.values()].map(({ job, queuedAt }) => ({ ...job, queuedAt: queuedAt.toISOString() })),
      running: [...this.running.values()].map((r) => ({
        ...r.job,
        startedAt: r.startedAt.toISOString(),
        followUp: r.followUp !== undefined,
      })),
      recent: [...this.recent].reverse(),
    };
  }

  /** Resolves when nothing is waiting or running (or, once stopping, nothing is running). */
  onIdle(): Promise<void> {
    if (this.isIdle()) return Promise.resolve();
    return new Promise((resolve) => this.idleWaiters.push(resolve));
  }

  /**
   * Stop taking work: waiting jobs stay unstarted, running ones get `graceMs` to finish, then
   * their signals fire and they get `abortWaitMs` more to unwind.
   */
  async stop(graceMs: number): Promise<StopResult> {
    this.stopping = true;
    const leftPending = this.pending.size;
    const started = this.running.size;
    // Runs that are only waiting to retry end now; requests in flight get the grace period.
    this.stopWaiting.abort(new Error('daemon shutting down'));
    const runs = () => Promise.all([...this.running.values()].map((r) => r.done));
    await withTimeout(runs(), graceMs);
    const late = [...this.running.values()];
    for (const r of late) {
      if (!this.aborted.includes(r.job)) this.aborted.push(r.job);
      r.controller.abort(new Error('daemon shutting down'));
    }
    if (late.length > 0) {
      this.options.log.warn(
        { runs: late.map((r) => r.job.target) },
        `grace period over: aborting ${late.length} run(s); they resume at next start`,
      );
      await withTimeout(runs(), this.options.abortWaitMs ?? 5000);
    }
    return { finished: started - this.aborted.length, aborted: this.aborted.length, leftPending };
  }

  /** After stop(): the jobs that never started and the runs that were aborted, to resume later. */
  unfinished(): Job[] {
    return [...this.aborted, ...[...this.pending.values()].map((p) => p.job)];
  }

  private isIdle(): boolean {
    return this.running.size === 0 && (this.stopping || this.pending.size === 0);
  }

  private pump(): void {
    while (!this.stopping && this.running.size < this.options.concurrency) {
      const next = this.pending.entries().next();
      if (next.done) break;
      const [key, { job }] = next.value;
      this.pending.delete(key);
      this.start(job);
    }
    if (this.isIdle()) {
      for (const resolve of this.idleWaiters.splice(0)) resolve();
    }
  }

  private start(job: Job): void {
    const controller = new AbortController();
    const startedAt = this.now();
    const entry: Running = { job, controller, startedAt, done: Promise.resolve() };
    this.running.set(job.key, entry);
    entry.done = (async () => {
      let result: JobResult;
      try {
        result = await this.options.run(job, controller.signal, this.stopWaiting.signal, { afterRun: this.followUps.has(job) });
      } catch (err) {
        // Runners report a meeting's problems as results; a throw is a bug, logged, not fatal.
        this.options.log.error({ err, target: job.target }, 'run failed unexpectedly');
        result = { status: 'failed', message: err instanceof Error ? err.message : String(err) };
      }
      this.running.delete(job.key);
      // Stopped at once while waiting to retry: unfinished work, like a run the grace period cut.
      if (result.aborted && this.stopping && !this.aborted.includes(job)) this.aborted.push(job);
      this.record({ ...job, ...result, startedAt: startedAt.toISOString(), finishedAt: this.now().toISOString() });
      if (entry.followUp && !this.stopping) {
        this.followUps.add(entry.followUp);
        this.pending.set(job.key, { job: entry.followUp, queuedAt: this.now() });
      }
      this.pump();
    })();
  }

  private record(result: RecentResult): void {
    this.recent.push(result);
    const limit = this.options.recentLimit ?? 20;
    if (this.recent.length > limit) this.recent.splice(0, this.recent.length - limit);
  }
}

async function withTimeout(promise: Promise<unknown>, ms: number): Promise<void> {
  let timer: NodeJS.Timeout | undefined;
  await Promise.race([
    promise,
    new Promise<void>((resolve) => {
      timer = setTimeout(resolve, ms);
    }),
  ]);
  clearTimeout(timer);
}

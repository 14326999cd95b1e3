import { type ChildProcess, fork } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import type { EndpointGate } from '../../../agent/model/retry.js';
import type { AppConfig } from '../../../config.js';
import type { Logger } from '../../../log.js';
import type { RunOutcome, RunOptions } from '../../../meeting/pipeline.js';
import type { WriteListener } from '../../../vault/files/vault.js';
import type { LiveNotesResult } from '../../../meeting/long-transcript/live-notes.js';
import type { RunHooks } from '../job-runner.js';
import type { LiveNotesRun } from '../live-notes-lane.js';
import type { FromRunProcess, ToRunProcess, TrustState } from './messages.js';

/**
 * One run process as the daemon holds it (docs/design.md §8): started with the daemon's
 * configuration, given jobs, answering their endpoint waits, and ended when the daemon is
 * idle or stops. Its log lines join the daemon's log; a job it never answers (the process
 * died: out of memory, killed) ends as a failure catch-up tries again.
 */

/** What the daemon needs of a child process (node's ChildProcess; tests pass a fake). */
export interface RunChild {
  readonly pid?: number | undefined;
  send(message: ToRunProcess, callback?: (err: Error | null) => void): boolean;
  kill(signal?: NodeJS.Signals): boolean;
  on(event: 'message', listener: (message: FromRunProcess) => void): this;
  on(event: 'exit', listener: (code: number | null, signal: NodeJS.Signals | null) => void): this;
  on(event: 'error', listener: (err: Error) => void): this;
}

export type SpawnRunChild = () => RunChild;

/**
 * A child of the daemon's (a run process, a question's process): the compiled module at `url`,
 * run by the same node with the same flags, its own output on the daemon's, and an IPC channel
 * that carries structured messages (docs/design.md §8).
 */
export function forkDaemonChild(url: URL): ChildProcess {
  return fork(fileURLToPath(url), [], {
    serialization: 'advanced',
    stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
    env: runProcessEnv(process.env),
  });
}

/** The compiled child (child.ts beside this file). */
export const spawnRunChild: SpawnRunChild = () => forkDaemonChild(new URL('./child.js', import.meta.url));

/**
 * The run process's environment: the daemon's, without the service files' small young
 * generation (`--max-semi-space-size`). That setting keeps a long-lived idle process small; the
 * run process lives for a run and a minute, and allocation-heavy work (the search, the window's
 * token counts) ran 1.3–1.8× slower with it.
 */
export function runProcessEnv(env: NodeJS.ProcessEnv): NodeJS.ProcessEnv {
  const options = env.NODE_OPTIONS?.split(/\s+/).filter((o) => o !== '' && !/^--max-semi-space-size(=|$)/.test(o));
  const { NODE_OPTIONS: _dropped, ...rest } = env;
  return options && options.length > 0 ? { ...rest, NODE_OPTIONS: options.join(' ') } : rest;
}

/** How long an ended run process may take to let go of its threads before it is killed. */
const EXIT_GRACE_MS = 10_000;

/**
 * How long an aborted run (the stop's grace period is over) may take to answer before its
 * process is killed: a process that is frozen (SIGSTOP, swapped out) or busy in a loop never
 * answers, and the stop must end before `run`'s own deadline kills the daemon (grace + 7 s,
 * commands/run.ts) and leaves the child behind. Below the queue's 5 s wait for aborted runs,
 * with room for the exit after it (`STOP_EXIT_GRACE_MS`).
 */
export const ABORT_ANSWER_MS = 3000;

/** The exit's grace when the daemon stops: within the deadline above, after ABORT_ANSWER_MS. */
export const STOP_EXIT_GRACE_MS = 3000;

interface PendingJob {
  hooks: RunHooks;
  resolve(outcome: RunOutcome): void;
  /** A live notes pass: its outcome, not a run's. */
  resolveNotes?(outcome: LiveNotesResult): void;
  /** The run's id once the run process said it (its progress). */
  runId?: string;
  /** The endpoint waits this job asked for, by the run process's number. */
  waits: Map<number, AbortController>;
  /** Set once the run was aborted: the kill of a process that does not answer in time. */
  abortTimer?: NodeJS.Timeout;
  detach(): void;
}

/** The problem of an outcome whose run the process's end cut short (run-place deaths are counted by it, host.ts). */
export const DIED_PROBLEM = 'the run process ended, so no failure report was written';

/** The same, for a run that shared the process with other work when it ended: no sign against this meeting, so not counted. */
export const DIED_SHARED_PROBLEM = 'the run process ended while it also ran other work, so no failure report was written';

/** The start of the reason of a process ended for silence (`stallMs`). */
export const STALLED = 'the run process made no progress for';

export interface RunProcessOptions {
  /**
   * A process with a job that says nothing (no progress, no heartbeat) for this long is frozen
   * (SIGSTOP, swapped out) or stuck: it is killed and its jobs fail (issue 43). Absent: never.
   */
  stallMs?: number;
  config: AppConfig;
  log: Logger;
  trust: TrustState | undefined;
  /** Told of every note the run process writes. */
  onWrite: WriteListener;
  /** It ended killed or failing (not told to, or killed at its exit): a write it had begun may have left a temporary file. */
  onDied?(): void;
  spawn: SpawnRunChild;
}

export class RunProcess {
  readonly #child: RunChild;
  readonly #jobs = new Map<number, PendingJob>();
  readonly #o: RunProcessOptions;
  #nextId = 1;
  /** The daemon's log for the child's lines (relogger below). */
  readonly #relog: Logger;
  #exitReason: string | undefined;
  /** The watchdog for `stallMs`, running while jobs are. */
  #stallTimer: NodeJS.Timeout | undefined;
  /** What the process said of its own fault before it exited. */
  #failure: string | undefined;
  readonly exited: Promise<void>;

  constructor(o: RunProcessOptions) {
    this.#o = o;
    this.#relog = relogger(o.log);
    this.#child = o.spawn();
    let exited!: () => void;
    this.exited = new Promise((resolve) => (exited = resolve));
    this.#child.on('message', (message) => {
      this.#heard();
      this.#receive(message);
    });
    this.#child.on('error', (err) => {
      // Could not start, or the channel broke: the process is gone or going.
      this.#end(`the run process failed: ${err.message}`);
      exited();
    });
    this.#child.on('exit', (code, signal) => {
      const reason = signal ? `the run process was ended by ${signal}` : `the run process exited with code ${code}`;
      // Between runs nobody's run says it: the log does (the out-of-memory killer, a person's kill).
      if (this.#exitReason === undefined && this.#jobs.size === 0) this.#o.log.warn({ childPid: this.#child.pid, code, signal }, `${reason} between runs`);
      this.#end(reason);
      if (signal !== null || code !== 0) this.#o.onDied?.();
      exited();
    });
    this.#send({ type: 'start', config: o.config, trust: o.trust });
  }

  get pid(): number | undefined {
    return this.#child.pid;
  }

  get running(): number {
    return this.#jobs.size;
  }

  /** False once it exited or was told to. */
  get usable(): boolean {
    return this.#exitReason === undefined;
  }

  /** Any word from the process: the watchdog starts again (only while jobs run). */
  #heard(): void {
    clearTimeout(this.#stallTimer);
    this.#stallTimer = undefined;
    const { stallMs } = this.#o;
    if (stallMs === undefined || this.#jobs.size === 0 || this.#exitReason !== undefined) return;
    this.#stallTimer = setTimeout(() => {
      const reason = `${STALLED} ${Math.round(stallMs / 1000)} s (Endpoint.TimeoutSeconds and a margin): stopped or stuck, killed`;
      this.#o.log.error({ pid: this.#child.pid }, `${reason} (pid ${this.#child.pid ?? 'unknown'})`);
      this.#end(reason);
      this.#child.kill('SIGKILL');
    }, stallMs);
  }

  /** The failure report of a meeting whose runs ended the process every time, written without a run (meeting/death-report.ts). */
  report(kind: 'summarize' | 'retry', target: string, message: string): Promise<RunOutcome> {
    const id = this.#nextId++;
    return new Promise<RunOutcome>((resolve) => {
      this.#jobs.set(id, { hooks: { onProgress: () => undefined }, resolve, waits: new Map(), detach: () => undefined });
      this.#send({ type: 'report', id, kind, path: target, message });
      this.#heard();
      if (this.#exitReason !== undefined) this.#end(this.#exitReason);
    });
  }

  run(kind: 'summarize' | 'retry', hooks: RunHooks, target: string, options: RunOptions): Promise<RunOutcome> {
    const id = this.#nextId++;
    return new Promise<RunOutcome>((resolve) => {
      const onAbort = () => {
        this.#send({ type: 'abort', id });
        this.#killUnlessAnswered(id);
      };
      const onStopWaiting = () => this.#send({ type: 'stop-waiting', id });
      options.signal?.addEventListener('abort', onAbort, { once: true });
      options.stopWaiting?.addEventListener('abort', onStopWaiting, { once: true });
      const detach = () => {
        options.signal?.removeEventListener('abort', onAbort);
        options.stopWaiting?.removeEventListener('abort', onStopWaiting);
      };
      this.#jobs.set(id, { hooks, resolve, waits: new Map(), detach });
      const downSince = hooks.endpoint?.downSince;
      this.#send({ type: 'run', id, kind, path: target, trigger: options.trigger, endpointDownSince: downSince?.toISOString() });
      this.#heard();
      if (options.signal?.aborted) onAbort();
      if (options.stopWaiting?.aborted) onStopWaiting();
      if (this.#exitReason !== undefined) this.#end(this.#exitReason);
    });
  }

  /**
   * A live notes pass (docs/design.md §3 step 9): aborted at once when its signal fires (a
   * summary begins, the daemon stops); a process that ends under it fails it, to be tried again.
   */
  notes(target: string, run: LiveNotesRun): Promise<LiveNotesResult> {
    const id = this.#nextId++;
    return new Promise<LiveNotesResult>((resolve) => {
      const onAbort = () => {
        this.#send({ type: 'abort', id });
        this.#killUnlessAnswered(id);
      };
      run.signal.addEventListener('abort', onAbort, { once: true });
      const hooks: RunHooks = { onProgress: (_runId, event) => event.kind === 'transcript-part' && run.onPart(event) };
      const failed = (outcome: RunOutcome) => resolve({ status: 'failed', ...(outcome.error !== undefined && { error: outcome.error }), ...(outcome.aborted && { aborted: true }) });
      this.#jobs.set(id, { hooks, resolve: failed, resolveNotes: resolve, waits: new Map(), detach: () => run.signal.removeEventListener('abort', onAbort) });
      this.#send({ type: 'notes', id, path: target, onlyIfStarted: run.onlyIfStarted });
      if (run.signal.aborted) onAbort();
      if (this.#exitReason !== undefined) this.#end(this.#exitReason);
    });
  }

  invalidate(path: string): void {
    if (this.usable) this.#send({ type: 'invalidate', path });
  }

  trust(trust: TrustState | undefined): void {
    if (this.usable) this.#send({ type: 'trust', trust });
  }

  /** What a run needs first, loaded ahead of the run (a meeting is being recorded: docs/design.md §8). */
  warm(): void {
    if (this.usable) this.#send({ type: 'warm' });
  }

  /**
   * Let go and end (no job may be running); killed if it has not ended within `graceMs`. Called
   * again (the daemon stops while an idle process is still ending), the shorter grace holds.
   */
  async exit(graceMs = EXIT_GRACE_MS): Promise<void> {
    if (this.#exitReason === undefined) {
      this.#exitReason = 'the run process was ended';
      this.#send({ type: 'exit' });
    }
    const timer = setTimeout(() => this.#child.kill('SIGKILL'), graceMs);
    timer.unref();
    await this.exited;
    clearTimeout(timer);
  }

  #killUnlessAnswered(id: number): void {
    const job = this.#jobs.get(id);
    if (!job || job.abortTimer) return;
    job.abortTimer = setTimeout(() => {
      if (!this.#jobs.has(id)) return;
      this.#o.log.warn(
        { childPid: this.#child.pid, waitedMs: ABORT_ANSWER_MS },
        `the run process did not end its aborted run within ${ABORT_ANSWER_MS / 1000} s: killed (pid ${this.#child.pid ?? 'unknown'})`,
      );
      this.#child.kill('SIGKILL');
    }, ABORT_ANSWER_MS);
    job.abortTimer.unref();
  }

  #send(message: ToRunProcess): void {
    try {
      // A closed channel is the exit the 'exit' event reports; nothing to do here.
      this.#child.send(message, () => undefined);
    } catch {
      /* the process is gone: its 'exit' ends the jobs */
    }
  }

  #receive(message: FromRunProcess): void {
    switch (message.type) {
      case 'alive':
        return;
      case 'log':
        relog(this.#relog, message.line);
        return;
      case 'write':
        this.#o.onWrite(message.path, message.content);
        return;
      case 'progress': {
        const job = this.#jobs.get(message.id);
        if (!job) return;
        job.runId = message.runId;
        job.hooks.onProgress(message.runId, message.event);
        return;
      }
      case 'endpoint-wait':
        void this.#waitForEndpoint(message.id, message.wait);
        return;
      case 'failed':
        this.#failure ??= message.message;
        this.#o.log.error({ childPid: this.#child.pid, stack: message.stack }, `the run process failed: ${message.message}`);
        return;
      case 'outcome': {
        const job = this.#jobs.get(message.id);
        if (!job) return;
        this.#jobs.delete(message.id);
        this.#finish(job, message.outcome);
        return;
      }
      case 'notes-outcome': {
        const job = this.#jobs.get(message.id);
        if (!job) return;
        this.#jobs.delete(message.id);
        clearTimeout(job.abortTimer);
        job.detach();
        job.resolveNotes?.(message.outcome);
        return;
      }
    }
  }

  async #waitForEndpoint(id: number, wait: number): Promise<void> {
    const job = this.#jobs.get(id);
    const gate: EndpointGate | undefined = job?.hooks.endpoint;
    if (!job || !gate) {
      this.#send({ type: 'endpoint-up', wait, waited: false });
      return;
    }
    const controller = new AbortController();
    job.waits.set(wait, controller);
    const waiting = gate.waitUntilUp(controller.signal);
    // The run process reads downSince between its tries (a run that knows the endpoint down
    // joins the wait before asking it, retry.ts): told what the gate knows now, and the moment
    // its first probe finds the endpoint down.
    queueMicrotask(() => this.#send({ type: 'endpoint-state', downSince: gate.downSince?.toISOString() }));
    const unlisten = gate.onDown?.((since) => this.#send({ type: 'endpoint-state', downSince: since.toISOString() }));
    try {
      const waited = await waiting;
      this.#send({ type: 'endpoint-up', wait, waited });
    } catch (err) {
      this.#send({ type: 'endpoint-failed', wait, message: err instanceof Error ? err.message : String(err) });
    } finally {
      unlisten?.();
      job.waits.delete(wait);
      this.#send({ type: 'endpoint-state', downSince: gate.downSince?.toISOString() });
    }
  }

  #finish(job: PendingJob, outcome: RunOutcome): void {
    clearTimeout(job.abortTimer);
    job.detach();
    for (const wait of job.waits.values()) wait.abort();
    job.resolve(outcome);
  }

  /**
   * The process is gone (or going): the jobs it never answered fail, to be run again by
   * catch-up; one that was aborted (the stop's grace period is over) is stopped unfinished, as
   * in the process it would have been, and resumes at the next start.
   */
  #end(reason: string): void {
    this.#exitReason ??= reason;
    clearTimeout(this.#stallTimer);
    const why = this.#failure !== undefined ? `the run process failed (${this.#failure})` : reason;
    const reportProblem = this.#jobs.size > 1 ? DIED_SHARED_PROBLEM : DIED_PROBLEM;
    for (const [id, job] of this.#jobs) {
      this.#jobs.delete(id);
      const runId = job.runId ?? `run-process-${this.#child.pid ?? 'unstarted'}`;
      this.#finish(
        job,
        job.abortTimer
          ? { runId, status: 'failed', aborted: true, error: `${why} after the run was aborted` }
          : { runId, status: 'failed', error: `${why} before the run ended`, reportProblem },
      );
    }
  }
}

/**
 * The daemon's logger for lines the run process logged: their errors were serialized there
 * already, and serialized again they would be plain objects (pino names their type "Object").
 */
export function relogger(log: Logger): Logger {
  const asLogged = (value: unknown): unknown => value;
  return log.child({}, { serializers: { err: asLogged, error: asLogged } });
}

/** A line of the run process's log, logged by the daemon's logger (`relogger`): one log, one writer. */
export function relog(log: Logger, line: string): void {
  let fields: Record<string, unknown>;
  try {
    fields = JSON.parse(line) as Record<string, unknown>;
  } catch {
    log.warn({ line: line.slice(0, 2000) }, 'the run process logged a line that is not JSON');
    return;
  }
  // The daemon's logger writes its own pid: the run process's goes as `childPid` (one `pid` a line).
  const { level, time: _time, pid, msg, ...rest } = fields;
  const label = typeof level === 'string' && level in log.levels.values ? (level as 'info') : 'info';
  log[label](pid === undefined ? rest : { ...rest, childPid: pid }, typeof msg === 'string' ? msg : '');
}

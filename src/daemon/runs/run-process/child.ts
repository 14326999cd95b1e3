import type { EndpointGate } from '../../../agent/model/retry.js';
import type { RunProgress } from '../../../agent/progress.js';
import { ModelError } from '../../../agent/types.js';
import { createLogger, type Logger } from '../../../log.js';
import { retrySummary, summarizeMeeting, type RunOutcome } from '../../../meeting/pipeline.js';
import { type LiveNotesResult, makeLiveNotes } from '../../../meeting/long-transcript/live-notes.js';
import { reportRunDeaths } from '../../../meeting/death-report.js';
import { createRuntime, type Runtime } from '../../../runtime.js';
import { type FromRunProcess, HEARTBEAT_MS, type ToRunProcess, type TrustState } from './messages.js';

/**
 * The run process (docs/design.md §8): the daemon forks it for its first job and tells it to
 * end once idle. It builds its own runtime from the daemon's configuration and runs the jobs
 * it is given; its log lines, progress, writes and endpoint waits go to the daemon over the
 * IPC channel. Signals are the daemon's to act on: Ctrl-C in a terminal and systemd's stop
 * reach the whole group, and the daemon's stop decides what becomes of a running meeting.
 */

// A second Ctrl-C ends the daemon at once, and with it this channel (below).
for (const signal of ['SIGINT', 'SIGTERM', 'SIGHUP'] as const) process.on(signal, () => undefined);

let inFlight = 0;
let exiting = false;

function send(message: FromRunProcess): void {
  if (!process.connected) return;
  inFlight++;
  process.send!(message, undefined, {}, () => {
    inFlight--;
    if (exiting && inFlight === 0) process.exit(0);
  });
}

// The daemon is gone (killed, crashed): so is the point of any run here.
process.on('disconnect', () => process.exit(0));

// Alive: a process stopped (SIGSTOP) or stuck in a loop falls silent, and the daemon ends it (child-process.ts `stallMs`).
setInterval(() => send({ type: 'alive' }), HEARTBEAT_MS).unref();

let failed = false;

/**
 * The end of this process for a fault of its own: the daemon logs why (a service's log is
 * often a file, not this process's stderr) and fails the runs with it; stderr without a daemon.
 */
function fail(what: string, err: unknown): void {
  // The first fault is the one to tell (a failed start also fails the jobs that waited for it).
  if (failed) return;
  failed = true;
  const message = `${what}: ${err instanceof Error ? err.message : String(err)}`;
  const stack = err instanceof Error ? err.stack : undefined;
  if (!process.connected) {
    process.stderr.write(`meeting-assistant run process: ${stack ?? message}\n`);
    process.exit(1);
  }
  process.send!({ type: 'failed', message, stack } satisfies FromRunProcess, undefined, {}, () => process.exit(1));
  setTimeout(() => process.exit(1), 1000).unref();
}

process.on('uncaughtException', (err) => fail('an error nothing caught', err));

/**
 * A run's wait for the endpoint asks the daemon, which keeps the one waiter (docs/design.md §2).
 * The waits of every job are numbered once for the process: the daemon's answer names only the wait.
 */
let nextWait = 1;

class DaemonGate implements EndpointGate {
  downSince: Date | undefined;
  readonly #waits = new Map<number, { resolve(waited: boolean): void; reject(err: Error): void }>();

  constructor(private readonly id: number) {}

  waitUntilUp(signal?: AbortSignal): Promise<boolean> {
    const wait = nextWait++;
    return new Promise<boolean>((resolve, reject) => {
      const aborted = () => reject(new ModelError('The wait for the model endpoint was aborted.', { kind: 'aborted' }));
      if (signal?.aborted) return aborted();
      const onAbort = () => {
        this.#waits.delete(wait);
        aborted();
      };
      signal?.addEventListener('abort', onAbort, { once: true });
      const done = () => signal?.removeEventListener('abort', onAbort);
      this.#waits.set(wait, {
        resolve: (waited) => (done(), resolve(waited)),
        reject: (err) => (done(), reject(err)),
      });
      send({ type: 'endpoint-wait', id: this.id, wait });
    });
  }

  answer(wait: number, result: { waited: boolean } | { message: string }): void {
    const waiter = this.#waits.get(wait);
    if (!waiter) return;
    this.#waits.delete(wait);
    if ('waited' in result) waiter.resolve(result.waited);
    else waiter.reject(new ModelError(result.message, { kind: 'aborted' }));
  }
}

interface Job {
  abort: AbortController;
  stopWaiting: AbortController;
  gate: DaemonGate;
}

const jobs = new Map<number, Job>();
let runtime: Runtime | undefined;
let started: Promise<Runtime> | undefined;

function applyTrust(rt: Runtime, trust: TrustState | undefined): void {
  if (trust) rt.caches.watch.trust(trust.folders, trust.maxTrustMs !== undefined ? { maxTrustMs: trust.maxTrustMs } : {});
  else rt.caches.watch.stopTrusting();
}

async function start(message: Extract<ToRunProcess, { type: 'start' }>): Promise<Runtime> {
  const { config } = message;
  const log: Logger = createLogger({
    level: config.settings.Logging.Level,
    destination: { write: (line: string) => send({ type: 'log', line }) },
    secrets: [config.apiKey, config.settings.Http.Token],
  });
  // The daemon's idle minute ends this process; its caches are let go with it.
  const rt = await createRuntime(config, { log, caches: { idleMs: 2 ** 31 - 1 } });
  rt.vault.onWrite((path, content) => send({ type: 'write', path, content }));
  applyTrust(rt, message.trust);
  runtime = rt;
  return rt;
}

async function run(message: Extract<ToRunProcess, { type: 'run' }>): Promise<void> {
  // Known before the runtime is built: an abort or a stop-waiting sent while this process
  // still starts (the daemon stopped meanwhile) is the job's, not lost.
  const job: Job = { abort: new AbortController(), stopWaiting: new AbortController(), gate: new DaemonGate(message.id) };
  if (message.endpointDownSince) job.gate.downSince = new Date(message.endpointDownSince);
  jobs.set(message.id, job);
  const rt = await started!;
  const deps = {
    ...rt.pipeline,
    endpoint: job.gate,
    onProgress: (runId: string, event: RunProgress) => send({ type: 'progress', id: message.id, runId, event }),
  };
  const options = { signal: job.abort.signal, stopWaiting: job.stopWaiting.signal, ...(message.trigger !== undefined && { trigger: message.trigger }) };
  let outcome: RunOutcome;
  try {
    outcome = message.kind === 'summarize' ? await summarizeMeeting(deps, message.path, options) : await retrySummary(deps, message.path, options);
  } catch (err) {
    // The pipeline answers for a meeting's own problems; this is a fault of ours, said as one.
    rt.log.error({ err }, 'a run failed unexpectedly');
    outcome = { runId: 'unknown', status: 'failed', error: `unexpected error: ${err instanceof Error ? err.message : String(err)}`, reportProblem: 'the run ended unexpectedly' };
  } finally {
    jobs.delete(message.id);
  }
  send({ type: 'outcome', id: message.id, outcome });
}

/** A live notes pass (docs/design.md §3 step 9); its failure is an outcome, never this process's fault. */
async function notes(message: Extract<ToRunProcess, { type: 'notes' }>): Promise<void> {
  const job: Job = { abort: new AbortController(), stopWaiting: new AbortController(), gate: new DaemonGate(message.id) };
  jobs.set(message.id, job);
  const rt = await started!;
  let outcome: LiveNotesResult;
  try {
    outcome = await makeLiveNotes(rt.pipeline, message.path, {
      signal: job.abort.signal,
      onlyIfStarted: message.onlyIfStarted,
      onPart: (p) => send({ type: 'progress', id: message.id, runId: 'live-notes', event: { kind: 'transcript-part', part: p.done + 1, parts: p.about, from: p.from, to: p.to } }),
    });
  } catch (err) {
    outcome = { status: 'failed', error: err instanceof Error ? err.message : String(err), ...(job.abort.signal.aborted && { aborted: true }) };
  } finally {
    jobs.delete(message.id);
  }
  send({ type: 'notes-outcome', id: message.id, outcome });
}

/** A meeting whose runs ended this process every time: its failure report, no run (meeting/death-report.ts). */
async function report(message: Extract<ToRunProcess, { type: 'report' }>): Promise<void> {
  const rt = await started!;
  const outcome = await reportRunDeaths(rt.pipeline, message.kind, message.path, message.message);
  send({ type: 'outcome', id: message.id, outcome });
}

async function exit(): Promise<void> {
  // What the vault still does after a run's write (a late write merged, docs/design.md §1)
  // ends here, as the daemon's own stop waits for it in its process.
  await runtime?.vault.settled({ now: true });
  await runtime?.caches.release();
  exiting = true;
  if (inFlight === 0) process.exit(0);
}

process.on('message', (message: ToRunProcess) => {
  switch (message.type) {
    case 'start':
      started = start(message);
      started.catch((err: unknown) => fail('could not start', err));
      return;
    case 'run':
      void run(message);
      return;
    case 'notes':
      void notes(message);
      return;
    case 'report':
      void report(message);
      return;
    case 'abort':
      jobs.get(message.id)?.abort.abort();
      return;
    case 'stop-waiting':
      jobs.get(message.id)?.stopWaiting.abort();
      return;
    case 'endpoint-up':
    case 'endpoint-failed':
      for (const job of jobs.values()) job.gate.answer(message.wait, message.type === 'endpoint-up' ? { waited: message.waited } : { message: message.message });
      return;
    case 'endpoint-state':
      for (const job of jobs.values()) job.gate.downSince = message.downSince ? new Date(message.downSince) : undefined;
      return;
    case 'invalidate':
      runtime?.caches.watch.invalidate(message.path);
      return;
    case 'trust':
      if (runtime) applyTrust(runtime, message.trust);
      else void started?.then((rt) => applyTrust(rt, message.trust));
      return;
    case 'warm':
      // A warm-up that fails costs only its time: the run does the same work and reports its own problems.
      void started?.then((rt) => rt.caches.warm()).catch((err: unknown) => runtime?.log.debug({ err }, 'could not warm the run caches'));
      return;
    case 'exit':
      void exit();
      return;
  }
});

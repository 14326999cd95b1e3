import path from 'node:path';
import { type Clock, systemClock } from '../clock.js';
import type { AppConfig } from '../config.js';
import { MeetingAssistantError } from '../errors.js';
import { addLogSecret, type Logger } from '../log.js';
import type { Runtime } from '../runtime.js';
import type { RunCachesOptions } from '../tools/run-caches.js';
import type { Fs } from '../vault/fs.js';
import type { Vault } from '../vault/vault.js';
import { type VaultEventSource, watchVault } from './intake/file-events.js';
import { claimVault, DaemonRunningError, type InstanceLock } from '../instance/daemon-claim.js';
import { HttpStartError, type RunningHttpServer } from './http/server.js';
import { Inbox } from './intake/inbox.js';
import type { ImportEntry } from './intake/import-board.js';
import { Intake, type LastScan } from './intake/intake.js';
import { commandTranscriber } from '../import/transcribe.js';
import { readFacts } from '../vault/note-head.js';
import { type Job, type QueueStatus, RunQueue, type StopResult } from './runs/queue.js';
import { CatchUp, type ScanResult } from './intake/catch-up.js';
import { createNotifier, type Notifier } from './runs/notify.js';
import { RunBoard } from './runs/run-board.js';
import { createEndpointWaiter, type EndpointWaitSettings } from './runs/endpoint-gate.js';
import { RunHistory } from './runs/run-history.js';
import { collectGarbage } from './runs/heap-collect.js';
import { createJobRunner, type PipelineFns } from './runs/job-runner.js';
import { type RunPlace, runsInThisProcess } from './runs/run-place.js';
import { MeetingsInProgress } from './runs/meetings-in-progress.js';
import { runsInRunProcess } from './runs/run-process/host.js';
import { serveHttp } from './http/serve.js';
import { createShutdown } from './shutdown.js';
import { TriggerTracker } from './intake/triggers.js';

export type { PipelineFns } from './runs/job-runner.js';

/**
 * The daemon (docs/design.md §2): file events and catch-up scans become jobs, the queue runs
 * them through the pipeline, the HTTP API takes retries and sessions, and a stop lets
 * running runs finish within the grace period.
 */

export class DaemonStartError extends MeetingAssistantError {
  constructor(
    message: string,
    /** 2: the configuration is wrong; 1: the environment is (a port in use). */
    readonly exitCode: number = 1,
  ) {
    super(message, true);
  }
}

export interface DaemonOptions {
  log: Logger;
  fs?: Fs;
  /** A runtime built elsewhere (tests); default: built from the config. */
  runtime?: Runtime;
  /** The file event source; default: chokidar on the transcript and summary folders. */
  watch?: (vault: Vault) => VaultEventSource;
  /** The pipeline entry points; tests substitute them. */
  pipeline?: PipelineFns;
  /**
   * Meetings run in the run process, which ends when the daemon is idle (docs/design.md §8),
   * as `run` does; default false: in this process (tests on memfs, substitute pipelines).
   */
  runProcess?: boolean;
  /** Run catch-up on `Daemon.ReconcileSchedule` (default true). */
  schedule?: boolean;
  /** Desktop notifications; default: `notify-send` / `osascript` per `Notify.*`. */
  notifier?: Notifier;
  /** Where the daemon's timestamps come from; default the system clock. */
  clock?: Clock;
  /** The idle release of the runs' caches (tools/run-caches.ts): its delay and timers, for tests. */
  caches?: RunCachesOptions;
  /** The pauses of the wait for an endpoint that does not answer (tests make them short). */
  endpointWait?: EndpointWaitSettings;
  /** The full collection after the idle release; default runs/heap-collect.ts. */
  collectGarbage?: () => void;
}

export interface DaemonStatus {
  pid: number;
  startedAt: string;
  vault: string;
  config: string | undefined;
  http: string | undefined;
  stopping: boolean;
  queue: QueueStatus;
  lastScan: LastScan | undefined;
  /** The model endpoint as the runs see it: since when it does not answer (docs/design.md §2). */
  endpoint?: { downSince?: string; waiting: number };
  /** The inbox's files and recent imports (docs/design.md §9). */
  imports: ImportEntry[];
}

export interface Daemon {
  readonly vault: Vault;
  readonly token: string;
  /** Undefined when `Http.Enabled` is false. */
  readonly http: { url: string; host: string; port: number } | undefined;
  readonly queue: RunQueue;
  status(): DaemonStatus;
  /** Resolves once every file event received so far has been handled (jobs enqueued). */
  eventsHandled(): Promise<void>;
  /** The catch-up scan started with the daemon (it runs after "ready"). */
  readonly startupScan: Promise<ScanResult>;
  /** One catch-up scan now, its jobs enqueued. */
  catchUp(startup?: boolean): Promise<ScanResult>;
  /** Stop taking work, give running runs the grace period, abort the rest. Idempotent. */
  stop(reason?: string): Promise<StopResult>;
  /** Resolves when the daemon has stopped. */
  readonly done: Promise<StopResult>;
}

function clockOf(options: DaemonOptions): Clock {
  return options.clock ?? systemClock;
}

function collectorOf(options: DaemonOptions): () => void {
  return options.collectGarbage ?? collectGarbage;
}

/** Vault-relative paths in everything the status shows: the vault root is stated once. */
function relJob<T extends Job>(vault: Vault, job: T): T {
  return { ...job, key: vault.rel(job.key), target: vault.rel(job.target) };
}

export async function startDaemon(config: AppConfig, options: DaemonOptions): Promise<Daemon> {
  const log = options.log;
  const collect = collectorOf(options);
  const caches = {
    onRelease: () => {
      log.info('idle: let go of what the runs built (search workers, texts, index, tokenizer)');
      // What was let go is garbage now: collected at once, the pages go back (heap-collect.ts).
      collect();
    },
    ...options.caches,
  };
  const placeOptions = { log, clock: clockOf(options), ...(options.fs ? { fs: options.fs } : {}), caches };
  const place =
    options.runProcess && !options.runtime
      ? await runsInRunProcess(config, placeOptions)
      : await runsInThisProcess(config, { ...placeOptions, ...(options.runtime && { runtime: options.runtime }), ...(options.pipeline && { pipeline: options.pipeline }) });
  const { vault, token } = place.base;
  addLogSecret(log, token);
  // One daemon per vault: a second one would run the same meetings and write the same files.
  const instance = await claimVault(vault, clockOf(options)).catch(async (err: unknown) => {
    await place.close();
    throw err instanceof DaemonRunningError ? new DaemonStartError(err.message, 1) : err;
  });
  try {
    return await startClaimed(config, options, place, instance);
  } catch (err) {
    await place.close();
    await instance.release();
    throw err;
  }
}

async function startClaimed(config: AppConfig, options: DaemonOptions, place: RunPlace, instance: InstanceLock): Promise<Daemon> {
  const settings = config.settings;
  const log = options.log;
  const { vault, token } = place.base;
  const clock = clockOf(options);
  const startedAt = clock();
  let stopping = false;

  // The failure reports an unreachable endpoint caused are looked for once it answers again.
  const rescan = { now: (): void => undefined };
  const { tracker, board, queue, enqueue, catchUp, endpoint } = await assembleWork(config, options, place, () => rescan.now());
  const inbox = createInbox(config, vault, log, clock);
  const collect = collectorOf(options);
  // A meeting being recorded holds the run process, started and warmed ahead of its run (§8).
  const recording = new MeetingsInProgress({ hold: () => place.hold(), warm: () => place.warm(), clock });
  const intake = new Intake({
    vault,
    settings,
    log,
    tracker,
    catchUp,
    enqueue,
    stopping: () => stopping,
    clock,
    watch: place.watch,
    onScan: (startup) => inbox.catchUp(startup),
    onTranscript: (transcript, inProgress) => recording.seen(transcript, inProgress),
    // A scan of a large vault leaves tens of MB of garbage V8 may keep for hours in an idle
    // process; with no run to follow, it is collected now (runs/heap-collect.ts).
    afterScan: () => {
      const { pending, running } = queue.size;
      if (pending === 0 && running === 0) collect();
    },
  });
  rescan.now = () => void intake.catchUp(false).catch((err: unknown) => log.error({ err }, 'catch-up scan failed'));

  let http: RunningHttpServer | undefined;
  const status = (): DaemonStatus => ({
    ...daemonStatus({ config, vault, startedAt, http, stopping, queue, lastScan: intake.lastScan }),
    endpoint: endpointState(endpoint.status()),
    imports: inbox.board.list(),
  });
  try {
    http = await serveHttp({
      config,
      vault,
      token,
      log,
      board,
      startedAt,
      clock,
      serverWindow: place.base.serverWindow,
      enqueue,
      status,
      stopping: () => stopping,
      endpointDownSince: () => endpoint.status().downSince,
      inbox,
    });
  } catch (err) {
    if (err instanceof HttpStartError) throw new DaemonStartError(err.message, 1);
    throw err;
  }
  await instance.setHttp(http?.url);

  const closeIntake = async () => {
    // What the runs built goes with the daemon: worker threads, texts, the past-summary index.
    await Promise.allSettled([intake.close(), inbox.close(), http?.close()]);
    recording.close();
    await place.close();
  };
  try {
    // The expression was checked with the rest of the configuration.
    if (options.schedule ?? true) intake.schedule();
    const { Projects, Summaries, Meetings } = config.layout.folders;
    // The meeting notes too, so that a run start's claim check (§1) stats none of them
    // (tools/meeting-heads.ts); not when they are the whole vault, which is not watched.
    const meetings = Meetings === vault.root ? {} : { Meetings };
    await intake.watch(options.watch ?? ((v) => watchVault(v, settings, log, { cacheFolders: [Projects, ...Object.values(meetings)] })), { Projects, Summaries, ...meetings });
    await inbox.watch();
  } catch (err) {
    await closeIntake();
    throw err;
  }

  const shutdown = createShutdown({
    vault,
    settings,
    log,
    queue,
    instance,
    begin: () => {
      stopping = true;
      // A run waiting for the endpoint stops at once and resumes at next start.
      endpoint.close();
    },
    closeIntake,
    settled: async () => void (await Promise.all([intake.settled(), inbox.settled()])),
  });
  logReady(config, vault, log, http);

  // The server's real window, logged once when smaller than ContextWindow.Tokens. Without
  // loading a model: an idle daemon should not take a GPU's memory before a meeting needs it.
  void place.base.serverWindow.get(false).catch((err: unknown) => log.debug({ err }, 'could not ask the server for its context window'));

  const startupScan = intake.startup();
  startupScan.catch((err: unknown) => log.error({ err }, 'start-up catch-up scan failed'));

  return {
    vault,
    token,
    startupScan,
    http: http ? { url: http.url, host: http.host, port: http.port } : undefined,
    queue,
    status,
    eventsHandled: () => intake.eventsHandled(),
    catchUp: (startup) => intake.catchUp(startup),
    stop: shutdown.stop,
    done: shutdown.done,
  };
}

/** What turns jobs into runs: the queue, its runner and its history, and what finds the jobs. */
async function assembleWork(config: AppConfig, options: DaemonOptions, place: RunPlace, onEndpointBack: () => void) {
  const settings = config.settings;
  const log = options.log;
  const { vault } = place.base;
  const tracker = new TriggerTracker({
    triggerState: settings.Daemon.TriggerState,
    kindOf: (p) => vault.kindOf(p),
    readFacts,
  });
  place.onWrite((p, content) => tracker.noteOwnWrite(p, content));
  const board = new RunBoard(new RunHistory(vault, log));
  await board.history.load();
  // Once the endpoint answers again, the failure reports it caused are retried (docs/design.md §2).
  const endpoint = createEndpointWaiter(config, {
    log,
    clock: clockOf(options),
    onBackUp: () => {
      catchUp.endpointAnswersAgain();
      onEndpointBack();
    },
    ...(options.endpointWait && { settings: options.endpointWait }),
  });
  const notifier = options.notifier ?? createNotifier({ settings: settings.Notify, log, vaultName: path.basename(vault.root) });
  const runJob = createJobRunner({
    vault,
    log,
    runs: place.runs,
    endpoint,
    board,
    notifier,
    clock: clockOf(options),
    onDone: (key) => catchUp.forget(key),
    onUnreported: (job) => void catchUp.retryUnreported(job),
  });
  // A running job holds the caches; a minute after the last one ends they are let go (§8).
  const run: typeof runJob = async (...args) => {
    const done = place.hold();
    try {
      return await runJob(...args);
    } finally {
      done();
    }
  };
  const queue = new RunQueue({ concurrency: settings.Daemon.MaxConcurrentSummaries, run, log, clock: clockOf(options) });
  const enqueue = (job: Job): string => {
    const result = queue.enqueue(job);
    log.info(
      { meeting: vault.rel(job.key), kind: job.kind, target: vault.rel(job.target), trigger: job.trigger, result },
      `${job.kind} ${result}: ${vault.rel(job.target)}`,
    );
    return result;
  };
  const catchUp = new CatchUp({
    vault,
    settings,
    log,
    isQueued: (key) => queue.has(key),
    remember: (p, facts) => tracker.remember(p, facts),
  });
  return { tracker, board, queue, enqueue, catchUp, endpoint };
}

/** The inbox (docs/design.md §9), its recordings transcribed by Import.TranscribeCommand when one is set. */
function createInbox(config: AppConfig, vault: Vault, log: Logger, clock: Clock): Inbox {
  const { Import } = config.settings;
  const transcribe = commandTranscriber({ command: Import.TranscribeCommand, timeoutSeconds: Import.TranscribeTimeoutSeconds });
  return new Inbox({ vault, settings: Import, log, clock, ...(transcribe ? { transcribe } : {}) });
}

function daemonStatus(s: {
  config: AppConfig;
  vault: Vault;
  startedAt: Date;
  http: RunningHttpServer | undefined;
  stopping: boolean;
  queue: RunQueue;
  lastScan: LastScan | undefined;
}): Omit<DaemonStatus, 'imports'> {
  const q = s.queue.status();
  return {
    pid: process.pid,
    startedAt: s.startedAt.toISOString(),
    vault: s.vault.root,
    config: s.config.file,
    http: s.http?.url,
    stopping: s.stopping,
    queue: {
      ...q,
      pending: q.pending.map((j) => relJob(s.vault, j)),
      running: q.running.map((j) => relJob(s.vault, j)),
      recent: q.recent.map((j) => relJob(s.vault, j)),
    },
    lastScan: s.lastScan,
  };
}

function endpointState(s: { downSince?: string; waiting: number }): { downSince?: string; waiting: number } {
  return { ...(s.downSince !== undefined && { downSince: s.downSince }), waiting: s.waiting };
}

function logReady(config: AppConfig, vault: Vault, log: Logger, http: RunningHttpServer | undefined): void {
  log.info(
    {
      vault: vault.root,
      config: config.file,
      http: http?.url,
      watching: [vault.rel(config.layout.folders.Transcripts), vault.rel(config.layout.folders.Summaries), vault.rel(config.layout.folders.Inbox)],
      maxConcurrentSummaries: config.settings.Daemon.MaxConcurrentSummaries,
    },
    `ready: vault ${vault.root}${http ? `, HTTP ${http.url}` : ', HTTP off'}`,
  );
}

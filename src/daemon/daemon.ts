import path from 'node:path';
import type { AppConfig } from '../config.js';
import { addLogSecret, type Logger } from '../log.js';
import { retrySummary, summarizeMeeting } from '../pipeline.js';
import { createRuntime, type Runtime } from '../runtime.js';
import { invalidate, stopTrustingWatcher, trustWatcher } from '../tools/file-cache.js';
import { closeSearchWorkers } from '../tools/search-worker.js';
import type { Fs } from '../vault/fs.js';
import { findMeetingOfSummary, findMeetingOfTranscript } from '../vault/meeting.js';
import type { Vault } from '../vault/vault.js';
import { createApiHandlers } from './api.js';
import { triggerFolders, type VaultEvent, type VaultEventSource, watchVault } from './events.js';
import { claimVault, DaemonRunningError, type InstanceLock } from './instance.js';
import { saveLeftover, takeLeftover } from './leftover.js';
import { HttpStartError, isLoopbackHost, type RunningHttpServer, startHttpServer } from './http.js';
import { readFacts } from './notes.js';
import { type Job, type QueueStatus, RunQueue, type StopResult } from './queue.js';
import { Reconciler, type Schedule, scheduleReconcile, type ScanResult } from './reconcile.js';
import { sweepTempFiles } from './temps.js';
import { createNotifier, type Notifier } from './notify.js';
import { pageRoutes } from './page-routes.js';
import { RunBoard } from './run-board.js';
import { RunHistory } from './run-history.js';
import { createJobRunner, type PipelineFns } from './run-job.js';
import { buildStatusView } from './status-view.js';
import { packageVersion } from '../version.js';
import { type Trigger, TriggerTracker } from './triggers.js';
import { MeetingAssistantError } from '../errors.js';

export type { PipelineFns } from './run-job.js';

/**
 * The daemon (DESIGN section 2): file events and catch-up scans become jobs, the queue runs
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
  /** Run catch-up on `Daemon.ReconcileSchedule` (default true). */
  schedule?: boolean;
  /** Desktop notifications; default: `notify-send` / `osascript` per `Notify.*`. */
  notifier?: Notifier;
}

export interface LastScan {
  at: string;
  startup: boolean;
  checked: number;
  read: number;
  enqueued: number;
  durationMs: number;
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
  reconcile(startup?: boolean): Promise<ScanResult>;
  /** Stop taking work, give running runs the grace period, abort the rest. Idempotent. */
  stop(reason?: string): Promise<StopResult>;
  /** Resolves when the daemon has stopped. */
  readonly done: Promise<StopResult>;
}

const defaultPipeline: PipelineFns = { summarize: summarizeMeeting, retry: retrySummary };

/** Vault-relative paths in everything the status shows: the vault root is stated once. */
function relJob<T extends Job>(vault: Vault, job: T): T {
  return { ...job, key: vault.rel(job.key), target: vault.rel(job.target) };
}

export async function startDaemon(config: AppConfig, options: DaemonOptions): Promise<Daemon> {
  const settings = config.settings;
  const log = options.log;
  const runtime = options.runtime ?? (await createRuntime(config, { log, ...(options.fs ? { fs: options.fs } : {}) }));
  const { vault, token } = runtime;
  addLogSecret(log, token);
  // One daemon per vault: a second one would run the same meetings and write the same files.
  const instance = await claimVault(vault).catch((err: unknown) => {
    throw err instanceof DaemonRunningError ? new DaemonStartError(err.message, 1) : err;
  });
  try {
    return await startClaimed(config, options, runtime, instance);
  } catch (err) {
    await instance.release();
    throw err;
  }
}

async function startClaimed(config: AppConfig, options: DaemonOptions, runtime: Runtime, instance: InstanceLock): Promise<Daemon> {
  const settings = config.settings;
  const log = options.log;
  const { vault, token } = runtime;
  const pipeline = options.pipeline ?? defaultPipeline;
  const startedAt = new Date();
  let stopping = false;
  let lastScan: LastScan | undefined;

  const tracker = new TriggerTracker({
    triggerState: settings.Daemon.TriggerState,
    kindOf: (p) => vault.kindOf(p),
    readFacts,
  });
  vault.onWrite((p, content) => tracker.noteOwnWrite(p, content));

  const board = new RunBoard(new RunHistory(vault, log));
  await board.history.load();
  const vaultName = path.basename(vault.root);
  const notifier = options.notifier ?? createNotifier({ settings: settings.Notify, log, vaultName });

  const runJob = createJobRunner({
    vault,
    log,
    pipelineDeps: runtime.pipeline,
    pipeline,
    board,
    notifier,
    onDone: (key) => reconciler.forget(key),
  });

  const queue = new RunQueue({ concurrency: settings.Daemon.MaxConcurrentSummaries, run: runJob, log });

  const enqueue = (job: Job): string => {
    const result = queue.enqueue(job);
    log.info(
      { meeting: vault.rel(job.key), kind: job.kind, target: vault.rel(job.target), trigger: job.trigger, result },
      `${job.kind} ${result}: ${vault.rel(job.target)}`,
    );
    return result;
  };

  const reconciler = new Reconciler({
    vault,
    settings,
    log,
    isQueued: (key) => queue.has(key),
    remember: (p, facts) => tracker.remember(p, facts),
  });

  const reported = new Set<string>();
  // One scan at a time: a scheduled tick during the start-up scan waits for it.
  let scans: Promise<unknown> = Promise.resolve();
  const reconcile = (startup = false): Promise<ScanResult> => {
    const next = scans.then(() => scanOnce(startup));
    scans = next.catch(() => undefined);
    return next;
  };
  const scanOnce = async (startup: boolean): Promise<ScanResult> => {
    const begun = Date.now();
    const result = await reconciler.scan({ startup });
    if (stopping) return result;
    // A broken note is reported when first found, not every few minutes until someone fixes it.
    for (const problem of result.problems) if (!reported.has(problem)) log.warn({ scan: true }, problem);
    reported.clear();
    for (const problem of result.problems) reported.add(problem);
    for (const job of result.jobs) enqueue(job);
    lastScan = {
      at: new Date(begun).toISOString(),
      startup,
      checked: result.checked,
      read: result.read,
      enqueued: result.jobs.length,
      durationMs: Date.now() - begun,
    };
    log[result.jobs.length > 0 || startup ? 'info' : 'debug'](
      { ...lastScan },
      `catch-up scan: ${result.jobs.length} job(s) from ${result.checked} note(s), ${result.read} read`,
    );
    return result;
  };

  const onTrigger = async (trigger: Trigger): Promise<void> => {
    if (trigger.kind === 'summarize') {
      let meeting: string;
      try {
        meeting = await findMeetingOfTranscript(vault, trigger.transcriptPath);
      } catch (err) {
        log.warn(
          { transcript: vault.rel(trigger.transcriptPath), err },
          `transcript finished but not summarized: its meeting note cannot be found: ${(err as Error).message}`,
        );
        return;
      }
      enqueue({ key: meeting, kind: 'summarize', target: meeting, trigger: 'transcript' });
    } else {
      // The pipeline reports a summary whose meeting cannot be found; it is keyed by itself then.
      const meeting = await findMeetingOfSummary(vault, trigger.summaryPath).catch(() => undefined);
      enqueue({ key: meeting ?? trigger.summaryPath, kind: 'retry', target: trigger.summaryPath, trigger: 'retry' });
    }
  };

  // Events for one file are handled in order; different files in parallel.
  const chains = new Map<string, Promise<void>>();
  const onEvent = (event: VaultEvent): void => {
    if (stopping) return;
    const previous = chains.get(event.path) ?? Promise.resolve();
    const next = previous
      .then(async () => {
        if (stopping) return;
        const content = event.type === 'unlink' ? undefined : await vault.readIfExists(event.path);
        const trigger = tracker.onEvent(event, content);
        log.debug({ event: event.type, path: vault.rel(event.path), trigger: trigger?.kind }, 'file event');
        if (trigger && !stopping) await onTrigger(trigger);
      })
      .catch((err: unknown) => log.error({ err, path: vault.rel(event.path) }, 'file event not handled'))
      .finally(() => {
        if (chains.get(event.path) === next) chains.delete(event.path);
      });
    chains.set(event.path, next);
  };

  let http: RunningHttpServer | undefined;

  const status = (): DaemonStatus => {
    const q = queue.status();
    return {
      pid: process.pid,
      startedAt: startedAt.toISOString(),
      vault: vault.root,
      config: config.file,
      http: http?.url,
      stopping,
      queue: {
        ...q,
        pending: q.pending.map((j) => relJob(vault, j)),
        running: q.running.map((j) => relJob(vault, j)),
        recent: q.recent.map((j) => relJob(vault, j)),
      },
      lastScan,
    };
  };

  if (settings.Http.Enabled) {
    const handlers = createApiHandlers({ vault, enqueue, status: () => status() });
    const view = () =>
      buildStatusView({
        version: packageVersion(),
        startedAt,
        vaultRoot: vault.root,
        board,
        pending: () => status().queue.pending,
        stopping: () => stopping,
        endpoint: { url: settings.Endpoint.BaseUrl, model: settings.Endpoint.Model, api: settings.Endpoint.Api },
        // The smaller of ContextWindow.Tokens and what the server last said it has.
        endpointWindow: () => runtime.serverWindow.known(),
      });
    try {
      http = await startHttpServer({
        settings: settings.Http,
        token,
        log,
        handlers,
        extraRoutes: pageRoutes({ token, port: settings.Http.Port, view, retry: (note) => handlers.retry(note, 'page') }),
      });
    } catch (err) {
      if (err instanceof HttpStartError) throw new DaemonStartError(err.message, 1);
      throw err;
    }
  }
  await instance.setHttp(http?.url);

  let source: VaultEventSource | undefined;
  let schedule: Schedule | undefined;
  const closeIntake = async () => {
    schedule?.stop();
    // Without the watcher the caches must check files on disk again.
    stopTrustingWatcher(vault);
    await Promise.allSettled([source?.close(), http?.close(), closeSearchWorkers()]);
  };
  try {
    if (options.schedule ?? true) {
      try {
        schedule = scheduleReconcile(settings.Daemon.ReconcileSchedule, async () => void (await reconcile(false)), log);
      } catch (err) {
        throw new DaemonStartError((err as Error).message, 2);
      }
    }
    // A folder that does not exist yet cannot be watched; the first transcript would go unseen.
    const { Projects, Summaries } = config.layout.folders;
    for (const folder of [...triggerFolders(vault), Projects]) await vault.fs.mkdir(folder, { recursive: true });
    source = (options.watch ?? ((v) => watchVault(v, settings, log, { cacheFolders: [Projects] })))(vault);
    source.on(onEvent);
    // The search text cache and the past-summary index drop what changed at once, so a warm
    // search reads nothing from disk (they re-check everything every few minutes anyway).
    source.onChange?.((p) => invalidate(vault, p));
    await source.ready;
    if (source.onChange) trustWatcher(vault, [Summaries, Projects]);
  } catch (err) {
    await closeIntake();
    throw err;
  }

  let resolveDone!: (result: StopResult) => void;
  const done = new Promise<StopResult>((resolve) => {
    resolveDone = resolve;
  });
  let stopPromise: Promise<StopResult> | undefined;
  const stop = (reason = 'stop requested'): Promise<StopResult> => {
    stopPromise ??= (async () => {
      stopping = true;
      const graceMs = settings.Daemon.ShutdownGraceSeconds * 1000;
      const { running, pending } = queue.size;
      log.info({ reason, running, pending, graceSeconds: settings.Daemon.ShutdownGraceSeconds }, `stopping (${reason})`);
      const [, result] = await Promise.all([closeIntake(), queue.stop(graceMs)]);
      await Promise.allSettled([...chains.values(), scans]);
      await saveLeftover(vault, queue.unfinished()).catch((err: unknown) =>
        log.warn({ err }, 'could not save the unstarted jobs; catch-up finds most of them at next start'),
      );
      await instance.release().catch((err: unknown) => log.warn({ err }, 'could not remove the daemon file'));
      log.info({ ...result }, 'stopped');
      resolveDone(result);
      return result;
    })();
    return stopPromise;
  };

  if (http && !isLoopbackHost(settings.Http.Host)) {
    log.warn(
      { host: settings.Http.Host },
      `the HTTP API listens on ${settings.Http.Host}, beyond this machine: anyone who can reach it and has the token can start retries and sessions`,
    );
  }
  log.info(
    {
      vault: vault.root,
      config: config.file,
      http: http?.url,
      watching: [vault.rel(config.layout.folders.Transcripts), vault.rel(config.layout.folders.Summaries)],
      maxConcurrentSummaries: settings.Daemon.MaxConcurrentSummaries,
    },
    `ready: vault ${vault.root}${http ? `, HTTP ${http.url}` : ', HTTP off'}`,
  );

  // The server's real window, logged once when smaller than ContextWindow.Tokens. Without
  // loading a model: an idle daemon should not take a GPU's memory before a meeting needs it.
  void runtime.serverWindow.get(false).catch((err: unknown) => log.debug({ err }, 'could not ask the server for its context window'));

  // After the watcher is ready, so that nothing between the scan and the first event is
  // missed; after "ready", because on a large vault the first scan reads every frontmatter.
  const startupScan = (async () => {
    // A crash (SIGKILL, power loss) may have left temporary files of atomic writes behind.
    await sweepTempFiles(vault, log).catch((err: unknown) => log.warn({ err }, 'could not look for leftover temporary files'));
    const leftover = await takeLeftover(vault).catch((err: unknown) => {
      log.warn({ err }, 'could not read the jobs left by the last stop');
      return [];
    });
    for (const job of leftover) enqueue({ ...job, trigger: `${job.trigger}, resumed` });
    return reconcile(true);
  })();
  startupScan.catch((err: unknown) => log.error({ err }, 'start-up catch-up scan failed'));

  return {
    vault,
    token,
    startupScan,
    http: http ? { url: http.url, host: http.host, port: http.port } : undefined,
    queue,
    status,
    eventsHandled: async () => {
      while (chains.size > 0) await Promise.allSettled([...chains.values()]);
    },
    reconcile,
    stop,
    done,
  };
}

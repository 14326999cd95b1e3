import path from 'node:path';
import { type Clock, systemClock } from '../clock.js';
import type { AppConfig } from '../config.js';
import { MeetingAssistantError } from '../errors.js';
import { addLogSecret, type Logger } from '../log.js';
import type { Runtime } from '../runtime.js';
import type { RunCachesOptions } from '../tools/binding/run-caches.js';
import { type Fs, nodeFs } from '../vault/files/fs.js';
import { Vault } from '../vault/files/vault.js';
import { isNoteEvent, type VaultEventSource, watchVault } from './intake/file-events.js';
import { DaemonRunningError } from '../instance/daemon-claim.js';
import { machineName } from '../instance/machine-name.js';
import { VaultClaim } from '../instance/vault-claim.js';
import { watchFolder } from '../instance/folder-watch.js';
import { whyLooksShared } from '../instance/shared-vault.js';
import { HttpStartError, type RunningHttpServer } from './http/server.js';
import { createInbox } from './intake/inbox.js';
import { Intake } from './intake/intake.js';
import { readFacts } from '../vault/scan/note-head.js';
import { VaultListing } from '../vault/scan/vault-listing.js';
import { type Job, RunQueue, type StopResult } from './runs/queue.js';
import { CatchUp, type ScanResult } from './intake/catch-up.js';
import { createNotifier, type Notifier } from './runs/notify.js';
import { RunBoard } from './runs/run-board.js';
import { createEndpointWaiter, type EndpointWaitSettings } from './runs/endpoint-gate.js';
import { RunHistory } from './runs/run-history.js';
import { collectGarbage } from './runs/heap-collect.js';
import { createJobRunner, type PipelineFns } from './runs/job-runner.js';
import { type RunPlace, runsInThisProcess } from './runs/run-place.js';
import { LiveNotesLane } from './runs/live-notes-lane.js';
import { MeetingsInProgress } from './runs/meetings-in-progress.js';
import { FinishingAhead } from './runs/finishing-ahead.js';
import { runsInRunProcess } from './runs/run-process/host.js';
import { serveHttp } from './http/serve.js';
import { createShutdown } from './shutdown.js';
import { TriggerTracker } from './intake/triggers.js';
import { type DaemonStatus, daemonStatus, endpointState } from './daemon-status.js';
import { endpointHealthNow } from './http/status-view.js';
import { healthFromRuns } from './http/endpoint-health.js';
import { type CalendarLookup, daemonCalendars, type DaemonCalendars, notesAheadOf } from './daemon-calendar.js';

export type { PipelineFns } from './runs/job-runner.js';
export type { DaemonStatus } from './daemon-status.js';

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

/** The daemon was stopped while it was another machine's standby: it never started its work. */
export class StoppedInStandby extends MeetingAssistantError {
  constructor() {
    super('stopped while a standby (another machine is active on this vault)', true);
  }
}

export interface DaemonOptions {
  log: Logger;
  /** Ends the wait of a standby (another machine is active on the vault): startDaemon rejects with StoppedInStandby. */
  signal?: AbortSignal;
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
  /** The idle release of the runs' caches (tools/binding/run-caches.ts): its delay and timers, for tests. */
  caches?: RunCachesOptions;
  /** The pauses of the wait for an endpoint that does not answer (tests make them short). */
  endpointWait?: EndpointWaitSettings;
  /** The full collection after the idle release; default runs/heap-collect.ts. */
  collectGarbage?: () => void;
  /** Notes while the meeting runs: how long a transcript must be left unchanged first (tests make it short). */
  liveNotes?: { settleMs?: number };
  /** The calendar meetings are matched in (docs/design.md §12); undefined: none. */
  calendar?: CalendarLookup;
}

export interface Daemon {
  readonly vault: Vault;
  readonly token: string;
  /** Undefined when `Http.Enabled` is false. */
  readonly http: { url: string; host: string; port: number } | undefined;
  readonly queue: RunQueue;
  /** The calendars (docs/design.md §12), read and kept fresh while the daemon runs. */
  readonly calendar: CalendarLookup;
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
  /** Whether it stopped because another machine's claim went first: it may start again, as that machine's standby. */
  yielded(): boolean;
}

function clockOf(options: DaemonOptions): Clock {
  return options.clock ?? systemClock;
}

function collectorOf(options: DaemonOptions): () => void {
  return options.collectGarbage ?? collectGarbage;
}

export async function startDaemon(config: AppConfig, options: DaemonOptions): Promise<Daemon> {
  const log = options.log;
  const claim = await claimActive(config, options);
  const collect = collectorOf(options);
  // The vault's files for the job runner's look at a meeting's context note (a link to a note
  // not yet created is looked for in the whole vault): kept while runs come, let go with the
  // run caches.
  let listing: VaultListing | undefined;
  const caches = {
    ...options.caches,
    // The caller's listener (a bench, a test) is called too, never instead of the daemon's own.
    onRelease: () => {
      listing?.clear();
      log.info('idle: let go of what the runs built (search workers, texts, index, tokenizer)');
      // What was let go is garbage now: collected at once, the pages go back (heap-collect.ts).
      collect();
      options.caches?.onRelease?.();
    },
  };
  const placeOptions = { log, clock: clockOf(options), ...(options.fs ? { fs: options.fs } : {}), caches };
  const place = await (options.runProcess && !options.runtime
    ? runsInRunProcess(config, placeOptions)
    : runsInThisProcess(config, { ...placeOptions, ...(options.runtime && { runtime: options.runtime }), ...(options.pipeline && { pipeline: options.pipeline }) })
  ).catch(async (err: unknown) => {
    await claim.release();
    throw err;
  });
  const { token } = place.base;
  addLogSecret(log, token);
  listing = new VaultListing(place.base.vault);
  try {
    return await startClaimed(config, options, place, claim, listing);
  } catch (err) {
    await place.close();
    await claim.release();
    throw err;
  }
}

/**
 * One daemon per vault: a second one would run the same meetings and write the same files. On
 * this machine a second daemon is refused; on a vault a sync tool shares with other machines
 * (or that looks shared, at a first start) it waits, writing nothing but its own record, until
 * it is the active machine (docs/design.md §2). Before that no run process, token, watcher or scan exists.
 */
async function claimActive(config: AppConfig, options: DaemonOptions): Promise<VaultClaim> {
  const { Daemon } = config.settings;
  const vault = new Vault(options.fs ?? nodeFs, config.layout);
  const claim = await VaultClaim.claim(vault, {
    machine: machineName(Daemon.MachineName),
    looksShared: () => whyLooksShared(vault.fs, vault.root, { machineName: Daemon.MachineName }),
    heartbeatMs: Daemon.HeartbeatSeconds * 1000,
    clock: clockOf(options),
    log: options.log,
    // A file system of the test's own has no events to hear; the heartbeat reads it.
    ...(options.fs === undefined || options.fs === nodeFs ? { watch: watchFolder } : {}),
  }).catch((err: unknown) => {
    throw err instanceof DaemonRunningError ? new DaemonStartError(err.message, 1) : err;
  });
  if (await claim.untilActive(options.signal)) return claim;
  await claim.release();
  throw new StoppedInStandby();
}

async function startClaimed(config: AppConfig, options: DaemonOptions, place: RunPlace, instance: VaultClaim, listing: VaultListing): Promise<Daemon> {
  const settings = config.settings;
  const log = options.log;
  const { vault, token } = place.base;
  const clock = clockOf(options);
  const startedAt = clock();
  let stopping = false;

  // The failure reports an unreachable endpoint caused are looked for once it answers again.
  const rescan = { now: (): void => undefined };
  // The calendars (§12), started when Calendar.Sources has any; a test may pass its own lookup.
  const cal = daemonCalendars(config, { vault, log, clock, files: () => listing.files() }, options.calendar);
  const { tracker, board, queue, enqueue, catchUp, endpoint, liveNotes } = await assembleWork(config, options, place, listing, { onEndpointBack: () => rescan.now(), runner: cal.runner });
  const inbox = createInbox(config.settings.Import, { vault, log, clock, calendar: cal.matching });
  const { ahead, files: calendarFiles } = await notesAheadOf(config, cal, { vault, log, clock, isActive: () => !stopping && instance.role === 'active' });
  const collect = collectorOf(options);
  // A meeting being recorded holds the run process, started and warmed ahead of its run (§8).
  const recording = new MeetingsInProgress({ hold: () => place.hold(), warm: () => place.warm(), clock });
  // A transcript seen written `finished` starts the run process before the write has settled (§8).
  const finishing = new FinishingAhead({
    isTranscript: (p) => vault.kindOf(p) === 'transcript' && isNoteEvent(vault.root, p),
    needsStart: () => !stopping && place.needsStart(),
    read: (p) => vault.readIfExists(p),
    wouldSummarize: (p, content) => tracker.wouldSummarize(p, content),
    hold: () => place.hold(),
    startAhead: () => place.startAhead(),
  });
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
    onRecording: (transcript, inProgress) => recording.seen(transcript, inProgress),
    onRawChange: (p) => {
      calendarFiles?.changed(p);
      void finishing.changed(p).catch((err: unknown) => log.debug({ err }, 'could not look at a transcript ahead of its settled event'));
    },
    // A large vault's scan leaves tens of MB of garbage an idle V8 keeps for hours: collected now (runs/heap-collect.ts).
    afterScan: () => {
      const { pending, running } = queue.size;
      if (pending !== 0 || running !== 0) return;
      // The listing the scan may have made goes too: it is kept while runs come (§8).
      listing.clear();
      collect();
    },
    ...(liveNotes && {
      onTranscript: (transcript: string, content: string) => {
        if (readFacts(content)?.state !== settings.Daemon.TriggerState) liveNotes.transcriptGrew(transcript);
      },
    }),
  });
  rescan.now = () => void intake.catchUp(false).catch((err: unknown) => log.error({ err }, 'catch-up scan failed'));

  let http: RunningHttpServer | undefined;
  const status = (): DaemonStatus => ({
    ...daemonStatus({ config, vault, startedAt, http, stopping, queue, lastScan: intake.lastScan, calendar: cal.calendar }),
    endpoint: endpointState(endpoint.status()),
    endpointHealth: endpointHealthNow(healthFromRuns(board.history.list()), board.live(), endpoint.status().downSince),
    runs: board.live(),
    imports: inbox.board.list(),
    ...(liveNotes && { liveNotes: liveNotes.status() }),
    machine: instance.status(),
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
      askInThisProcess: !(options.runProcess && !options.runtime),
      inbox,
      calendar: cal.lookup,
      ...(cal.matching && { matching: cal.matching }),
    });
  } catch (err) {
    if (err instanceof HttpStartError) throw new DaemonStartError(err.message, 1);
    throw err;
  }
  await instance.setHttp(http?.url);

  const closeIntake = async () => {
    // What the runs built goes with the daemon: worker threads, texts, the past-summary index.
    await Promise.allSettled([intake.close(), inbox.close(), http?.close(), liveNotes?.close(), ahead?.close(), calendarFiles?.close(), cal.calendar.stop()]);
    recording.close();
    finishing.close();
    await place.close();
  };
  try {
    // The expression was checked with the rest of the configuration.
    if (options.schedule ?? true) intake.schedule();
    const { Projects, Summaries, Meetings } = config.layout.folders;
    // The meeting notes too, so that a run start's claim check (§1) stats none of them
    // (tools/cache/meeting-heads.ts); not when they are the whole vault, which is not watched.
    const meetings = Meetings === vault.root ? {} : { Meetings };
    await intake.watch(options.watch ?? ((v) => watchVault(v, settings, log, { cacheFolders: [Projects, ...Object.values(meetings)], icsFolders: calendarFiles?.folders ?? [] })), { Projects, Summaries, ...meetings });
    await inbox.watch();
    ahead?.start();
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
  // Both machines claimed the vault before either saw the other, and the other goes first; or
  // this one's heartbeat lapsed, and another machine may have taken over (vault-claim.ts).
  let yielded = false;
  instance.onLost((why) => {
    yielded = true;
    void shutdown.stop(why);
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
    calendar: cal.lookup,
    status,
    eventsHandled: () => intake.eventsHandled(),
    catchUp: (startup) => intake.catchUp(startup),
    stop: shutdown.stop,
    done: shutdown.done,
    yielded: () => yielded,
  };
}

/** What turns jobs into runs: the queue, its runner and its history, and what finds the jobs. */
async function assembleWork(config: AppConfig, options: DaemonOptions, place: RunPlace, listing: VaultListing, more: { onEndpointBack: () => void; runner: DaemonCalendars['runner'] }) {
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
      more.onEndpointBack();
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
    files: () => listing.files(),
    ...more.runner,
  });
  const liveNotes = liveNotesLane(config, place, log, { clock: clockOf(options), ...options.liveNotes });
  // A running job holds the caches; a minute after the last one ends they are let go (§8).
  const run: typeof runJob = async (...args) => {
    const done = place.hold();
    try {
      // A cold run process starts beside the checks the job runner makes before the run (§8).
      place.startAhead();
      // A summary never waits for notes made while a meeting runs: they stop now (§3 step 9).
      await liveNotes?.summaryStarts(args[0].key);
      return await runJob(...args);
    } finally {
      liveNotes?.summaryEnded();
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
    files: () => listing.files(),
    ...(liveNotes && { onUnfinished: (transcript: string) => liveNotes.transcriptGrew(transcript, { resume: true }) }),
  });
  return { tracker, board, queue, enqueue, catchUp, endpoint, liveNotes };
}

/** Notes while the meeting runs (`Daemon.LiveNotes`), where the runs happen; none with a pipeline that makes none. */
function liveNotesLane(config: AppConfig, place: RunPlace, log: Logger, more: { clock: Clock; settleMs?: number }): LiveNotesLane | undefined {
  const notes = place.runs.notes;
  if (!config.settings.Daemon.LiveNotes || !notes) return undefined;
  return new LiveNotesLane({ vault: place.base.vault, log, notes: (meetingPath, run) => notes(meetingPath, run), hold: () => place.hold(), ...more });
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

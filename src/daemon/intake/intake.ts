import type { Clock } from '../../clock.js';
import type { Settings } from '../../config.js';
import type { Logger } from '../../log.js';
import type { FileWatch } from '../../tools/cache/file-cache.js';
import { findMeetingOfSummary, findMeetingOfTranscript } from '../../vault/notes/locate-meeting.js';
import { Vault } from '../../vault/files/vault.js';
import { triggerFolders, type VaultEvent, type VaultEventSource } from './file-events.js';
import { resumedTrigger, takeLeftover } from '../runs/unstarted-jobs.js';
import type { Job } from '../runs/queue.js';
import type { CatchUp, ScanResult } from './catch-up.js';
import { type Schedule, scheduleCatchUp } from './schedule.js';
import { sweepTempFiles } from './temp-sweep.js';
import type { Trigger, TriggerTracker } from './triggers.js';

/**
 * The daemon's intake (docs/design.md §2): file events from the watcher and catch-up scans
 * (at start, on `Daemon.ReconcileSchedule`) become jobs for the queue. It stops taking work
 * as soon as the daemon is stopping; `settled()` is what the stop waits for.
 */

export interface LastScan {
  at: string;
  startup: boolean;
  checked: number;
  read: number;
  enqueued: number;
  durationMs: number;
}

export interface IntakeOptions {
  vault: Vault;
  settings: Settings;
  log: Logger;
  tracker: TriggerTracker;
  catchUp: CatchUp;
  /** Puts a job on the queue; returns what the queue did with it (for the log). */
  enqueue(job: Job): string;
  stopping(): boolean;
  clock: Clock;
  /** The invalidations and watcher trust of the runs' caches (tools/binding/run-caches.ts). */
  watch: FileWatch;
  /** More to catch up on in each scan: the inbox (docs/design.md §9). */
  onScan?(startup: boolean): Promise<void>;
  /** Told when a scan has ended and its jobs are enqueued (the daemon collects its garbage). */
  afterScan?(): void;
  /** A transcript changed and fired no trigger (it may be growing: docs/design.md §3 step 9). */
  onTranscript?(transcriptPath: string, content: string): void;
  /** A transcript's event: whether a recorder is still writing it (runs/meetings-in-progress.ts). */
  onRecording?(transcript: string, recording: boolean): void;
  /** Every raw change the watcher sees, before the write has settled (a transcript seen finishing, runs/finishing-ahead.ts). */
  onRawChange?(absPath: string): void;
}

export class Intake {
  lastScan: LastScan | undefined;
  readonly #o: IntakeOptions;
  readonly #reported = new Set<string>();
  // One scan at a time: a scheduled tick during the start-up scan waits for it.
  #scans: Promise<unknown> = Promise.resolve();
  // Events for one file are handled in order; different files in parallel.
  readonly #chains = new Map<string, Promise<void>>();
  #source: VaultEventSource | undefined;
  #schedule: Schedule | undefined;

  constructor(options: IntakeOptions) {
    this.#o = options;
  }

  /** One catch-up scan, after any scan still running; its jobs enqueued. */
  catchUp(startup = false): Promise<ScanResult> {
    const next = this.#scans.then(() => this.#scanOnce(startup));
    this.#scans = next.catch(() => undefined);
    return next;
  }

  async #scanOnce(startup: boolean): Promise<ScanResult> {
    const { log } = this.#o;
    const begun = this.#o.clock();
    const started = performance.now();
    let result: ScanResult;
    try {
      result = await this.#o.catchUp.scan({ startup });
    } catch (err) {
      // What the scan built before it threw is let go all the same.
      this.#o.afterScan?.();
      throw err;
    }
    if (this.#o.stopping()) return result;
    await this.#o.onScan?.(startup).catch((err: unknown) => log.error({ err }, 'catch-up scan of the inbox failed'));
    // A stop that began while the inbox was looked at: nothing more is enqueued or said.
    if (this.#o.stopping()) return result;
    // A broken note is reported when first found, not every few minutes until someone fixes it.
    for (const problem of result.problems) if (!this.#reported.has(problem)) log.warn({ scan: true }, problem);
    this.#reported.clear();
    for (const problem of result.problems) this.#reported.add(problem);
    for (const job of result.jobs) this.#o.enqueue(job);
    this.lastScan = {
      at: begun.toISOString(),
      startup,
      checked: result.checked,
      read: result.read,
      enqueued: result.jobs.length,
      durationMs: Math.round(performance.now() - started),
    };
    log[result.jobs.length > 0 || startup ? 'info' : 'debug'](
      { ...this.lastScan },
      `catch-up scan: ${result.jobs.length} job(s) from ${result.checked} note(s), ${result.read} read`,
    );
    this.#o.afterScan?.();
    return result;
  }

  /** Catch-up on `Daemon.ReconcileSchedule` (a valid expression: the configuration checked it). */
  schedule(): void {
    this.#schedule = scheduleCatchUp(this.#o.settings.Daemon.ReconcileSchedule, async () => void (await this.catchUp(false)), this.#o.log);
  }

  /**
   * Starts the watcher and resolves when it is ready. The folders it watches are created
   * first: a folder that does not exist yet cannot be watched, and the first transcript
   * would go unseen.
   */
  async watch(source: (vault: Vault) => VaultEventSource, folders: { Projects: string; Summaries: string; Meetings?: string }): Promise<void> {
    const { vault } = this.#o;
    for (const folder of [...triggerFolders(vault), folders.Projects]) await vault.fs.mkdir(folder, { recursive: true });
    const watcher = source(vault);
    this.#source = watcher;
    watcher.on((event) => this.#onEvent(event));
    // The search text cache, the past-summary index and the meeting notes' heads drop what
    // changed at once, so a warm search or run start reads nothing from disk (they re-check
    // everything every few minutes anyway).
    watcher.onChange?.((p) => {
      this.#o.watch.invalidate(p);
      this.#o.onRawChange?.(p);
    });
    // A folder left unwatched (the system's watch limit) would leave its cached files trusted;
    // one out of the cached folders (a calendar's, §12) leaves nothing cached unheard of.
    const trusted = [folders.Summaries, folders.Projects, ...(folders.Meetings ? [folders.Meetings] : [])];
    let complete = true;
    watcher.onIncomplete?.((folder) => {
      if (!trusted.some((f) => Vault.isInside(f, folder) || Vault.isInside(folder, f))) return;
      complete = false;
      this.#o.watch.stopTrusting();
    });
    await watcher.ready;
    if (watcher.onChange && complete) this.#o.watch.trust(trusted, { clock: this.#o.clock });
  }

  /**
   * What the start-up leaves to do after "ready" (on a large vault the first scan reads every
   * frontmatter), and after the watcher is ready, so nothing between the scan and the first
   * event is missed.
   */
  async startup(): Promise<ScanResult> {
    const { vault, log } = this.#o;
    // A crash (SIGKILL, power loss) may have left temporary files of atomic writes behind.
    await sweepTempFiles(vault, log, { clock: this.#o.clock }).catch((err: unknown) => log.warn({ err }, 'could not look for leftover temporary files'));
    const leftover = await takeLeftover(vault).catch((err: unknown) => {
      log.warn({ err }, 'could not read the jobs left by the last stop');
      return [];
    });
    for (const job of leftover) this.#o.enqueue({ ...job, trigger: resumedTrigger(job.trigger) });
    return this.catchUp(true);
  }

  #onEvent(event: VaultEvent): void {
    const { vault, log, tracker, stopping } = this.#o;
    if (stopping()) return;
    const previous = this.#chains.get(event.path) ?? Promise.resolve();
    const next = previous
      .then(async () => {
        if (stopping()) return;
        const content = event.type === 'unlink' ? undefined : await vault.readIfExists(event.path);
        // Before the trigger: a finished transcript ends its hold, and its job holds the run process from then.
        const recording = tracker.recording(event, content);
        if (recording !== undefined) this.#o.onRecording?.(event.path, recording);
        const trigger = tracker.onEvent(event, content);
        log.debug({ event: event.type, path: vault.rel(event.path), trigger: trigger?.kind }, 'file event');
        if (trigger && !stopping()) await this.#onTrigger(trigger);
        else if (!trigger && content !== undefined && vault.kindOf(event.path) === 'transcript') this.#o.onTranscript?.(event.path, content);
      })
      .catch((err: unknown) => log.error({ err, path: vault.rel(event.path) }, 'file event not handled'))
      .finally(() => {
        if (this.#chains.get(event.path) === next) this.#chains.delete(event.path);
      });
    this.#chains.set(event.path, next);
  }

  async #onTrigger(trigger: Trigger): Promise<void> {
    const { vault, log, enqueue } = this.#o;
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
  }

  /** Resolves once every file event received so far has been handled (jobs enqueued). */
  async eventsHandled(): Promise<void> {
    while (this.#chains.size > 0) await Promise.allSettled([...this.#chains.values()]);
  }

  /** Waits for the events being handled and the scan running (after close, no new ones come). */
  async settled(): Promise<void> {
    await Promise.allSettled([...this.#chains.values(), this.#scans]);
  }

  /** Stops the schedule and the watcher. */
  async close(): Promise<void> {
    this.#schedule?.stop();
    // Without the watcher the caches must check files on disk again.
    this.#o.watch.stopTrusting();
    await this.#source?.close();
  }
}

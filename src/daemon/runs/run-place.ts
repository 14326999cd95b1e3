import type { Clock } from '../../clock.js';
import type { AppConfig } from '../../config.js';
import type { Logger } from '../../log.js';
import type { ProcessBase } from '../../process-base.js';
import type { Runtime } from '../../runtime.js';
import type { FileWatch } from '../../tools/cache/file-cache.js';
import type { RunCachesOptions } from '../../tools/binding/run-caches.js';
import type { Fs } from '../../vault/files/fs.js';
import type { WriteListener } from '../../vault/files/vault.js';
import type { LiveNotesResult } from '../../meeting/long-transcript/live-notes.js';
import type { MeetingRuns, PipelineFns } from './job-runner.js';

/**
 * Where the daemon's runs happen (docs/design.md §8), as the rest of the daemon sees it: the
 * vault and what the daemon's own process needs of it, the runs, and the lifetime of what the
 * runs built. Two places: this process (`runsInThisProcess`, for tests on memfs and substitute
 * pipelines) and the run process (run-process/host.ts, what `run` uses), which ends when the
 * daemon has been idle, so that nothing a run loaded or built stays in the daemon's memory.
 */
export interface RunPlace {
  readonly base: ProcessBase;
  /** The watcher's trust and invalidations, for the runs' caches (the intake reports to it). */
  readonly watch: FileWatch;
  readonly runs: MeetingRuns;
  /** Every note written, by a run or by the daemon's own process (the triggers know their own writes). */
  onWrite(listener: WriteListener): void;
  /** A run begins: nothing it built is let go until the function returned is called (once). */
  hold(): () => void;
  /**
   * A meeting is being recorded (runs/meetings-in-progress.ts): start now what its run needs first
   * (the run process, its code, the tokenizer, the meeting notes' heads), under a `hold` of the caller's.
   */
  warm(): void;
  /**
   * A queued job begins: with no run process up, it starts now and warms what its run needs
   * first, while the daemon's own checks before the run go on (its fork and module load are
   * most of a cold run start, BENCHMARKS.md). Nothing when one is up: its caches are warm, and
   * a warm-up would only repeat the run's own look. Under a `hold` of the caller's.
   */
  startAhead(): void;
  /** Whether `startAhead` would start a run process now (none up, not closing); never in this process. */
  needsStart(): boolean;
  /** The daemon stops: let go, once the runs still holding it have ended. */
  close(): Promise<void>;
}

export interface RunPlaceOptions {
  log: Logger;
  clock: Clock;
  fs?: Fs;
  /** The idle release (its delay, timers and notice). */
  caches: RunCachesOptions;
}

/**
 * The runs in the daemon's own process: the pipeline's dependencies built here (runtime.ts),
 * loaded only now, so that a daemon whose runs happen elsewhere never loads them.
 */
export async function runsInThisProcess(
  config: AppConfig,
  o: RunPlaceOptions & { runtime?: Runtime; pipeline?: PipelineFns },
): Promise<RunPlace> {
  const runtime = o.runtime ?? (await buildRuntime(config, o));
  const fns = o.pipeline ?? (await defaultPipeline());
  const { caches, pipeline } = runtime;
  return {
    base: runtime,
    watch: caches.watch,
    runs: {
      summarize: (hooks, meetingPath, options) => fns.summarize({ ...pipeline, ...hooks }, meetingPath, options),
      retry: (hooks, summaryPath, options) => fns.retry({ ...pipeline, ...hooks }, summaryPath, options),
      ...(fns.notes && { notes: liveNotesIn(fns.notes, pipeline) }),
    },
    onWrite: (listener) => runtime.vault.onWrite(listener),
    hold: () => caches.hold(),
    // Tests and substitute pipelines: nothing is started ahead here.
    warm: () => undefined,
    startAhead: () => undefined,
    needsStart: () => false,
    close: () => {
      caches.close();
      return Promise.resolve();
    },
  };
}

/** A live notes pass in this process: its parts as the lane counts them, a failure as a result. */
function liveNotesIn(notes: NonNullable<PipelineFns['notes']>, pipeline: Runtime['pipeline']): NonNullable<MeetingRuns['notes']> {
  return (meetingPath, run) =>
    notes(pipeline, meetingPath, { signal: run.signal, onlyIfStarted: run.onlyIfStarted, onPart: (p) => run.onPart({ part: p.done + 1, parts: p.about }) }).catch(
      (err: unknown): LiveNotesResult => ({ status: 'failed', error: err instanceof Error ? err.message : String(err), ...(run.signal.aborted && { aborted: true }) }),
    );
}

async function buildRuntime(config: AppConfig, o: RunPlaceOptions): Promise<Runtime> {
  const { createRuntime } = await import('../../runtime.js');
  return createRuntime(config, { log: o.log, clock: o.clock, ...(o.fs ? { fs: o.fs } : {}), caches: o.caches });
}

async function defaultPipeline(): Promise<PipelineFns> {
  const { summarizeMeeting, retrySummary } = await import('../../meeting/pipeline.js');
  const { makeLiveNotes } = await import('../../meeting/long-transcript/live-notes.js');
  return { summarize: summarizeMeeting, retry: retrySummary, notes: makeLiveNotes };
}

import type { AppConfig } from '../../../config.js';
import { openProcessBase } from '../../../process-base.js';
import { FileWatch, type TrustOptions } from '../../../tools/cache/file-cache.js';
// Not run-caches.ts: the caches and their search stay out of the daemon's own process.
import { DEFAULT_IDLE_RELEASE_MS, IdleHolds, realIdleTimers } from '../../../tools/binding/idle-release.js';
import type { Vault, WriteListener } from '../../../vault/files/vault.js';
import type { MeetingRuns } from '../job-runner.js';
import type { RunPlace, RunPlaceOptions } from '../run-place.js';
import { DIED_PROBLEM, DIED_SHARED_PROBLEM, RunProcess, spawnRunChild, STALLED, STOP_EXIT_GRACE_MS, type SpawnRunChild } from './child-process.js';
import type { RunOutcome } from '../../../meeting/pipeline.js';
import type { TrustState } from './messages.js';
import { sweepTempFiles } from '../../intake/temp-sweep.js';

/**
 * The daemon's runs in the run process (docs/design.md §8): started for the first job, shared
 * by every job while one runs, ended a minute (`idleMs`) after the last one. Everything a run
 * loads and builds (the model client, the agent, the tools' caches, the search threads, the
 * tokenizer, their compiled code) lives and dies with it, so the idle daemon holds only what
 * watching, catch-up and the HTTP API need.
 */

/** `MEETING_ASSISTANT_IDLE_RELEASE_MS`: a shorter idle minute, so tests of the real daemon need not wait one. */
export function idleReleaseFromEnv(env: Record<string, string | undefined>): { idleMs?: number } {
  const ms = Number(env.MEETING_ASSISTANT_IDLE_RELEASE_MS);
  return Number.isFinite(ms) && ms > 0 ? { idleMs: ms } : {};
}

/**
 * A run process that dies under the same meeting this many times in a row (killed, out of
 * memory) is not given it again: a failure report says so (issue 43). Before, catch-up ran it
 * again at every scan, for ever, and no report was ever written.
 */
export const MAX_RUN_DEATHS = 3;

/** What a run may stay silent beyond `Endpoint.TimeoutSeconds` (a model request's own bound) before its process counts as stuck. */
const STALL_MARGIN_MS = 60_000;

/** `MEETING_ASSISTANT_STALL_MARGIN_MS`: a shorter margin, so tests of the real daemon need not wait a minute. */
export function stallMarginFromEnv(env: Record<string, string | undefined>): number {
  const ms = Number(env.MEETING_ASSISTANT_STALL_MARGIN_MS);
  return Number.isFinite(ms) && ms > 0 ? ms : STALL_MARGIN_MS;
}

/**
 * One more outcome of `target` against its deaths in a row: the failure report's text once the
 * process died under it MAX_RUN_DEATHS times in a row, or stalled; undefined otherwise. A death
 * while the process also ran other work (DIED_SHARED_PROBLEM) is no sign against this meeting:
 * it counts neither way, unless the process stalled.
 */
export function judgeDeath(deaths: Map<string, number>, target: string, outcome: RunOutcome): string | undefined {
  const died = outcome.reportProblem === DIED_PROBLEM || outcome.reportProblem === DIED_SHARED_PROBLEM;
  if (!died || outcome.aborted) {
    deaths.delete(target);
    return undefined;
  }
  const stalled = outcome.error?.includes(STALLED) === true;
  if (outcome.reportProblem === DIED_SHARED_PROBLEM && !stalled) return undefined;
  const times = (deaths.get(target) ?? 0) + 1;
  if (times < MAX_RUN_DEATHS && !stalled) {
    deaths.set(target, times);
    return undefined;
  }
  deaths.delete(target);
  // Said in the vault now, by a process that runs nothing of the meeting (meeting/death-report.ts).
  return stalled
    ? `${outcome.error ?? STALLED}; the run was ended`
    : `the run process ended during each of the last ${times} runs of this meeting (${outcome.error ?? 'unknown'}); it is not run again until you retry it`;
}

/** The watcher's trust, kept here and passed on to the run process's caches. */
class ForwardedWatch extends FileWatch {
  state: TrustState | undefined;

  constructor(
    vault: Vault,
    private readonly forward: (state: TrustState | undefined) => void,
  ) {
    super(vault);
  }

  override trust(folders: readonly string[], options: TrustOptions = {}): void {
    super.trust(folders, options);
    this.state = { folders: [...folders], ...(options.maxTrustMs !== undefined && { maxTrustMs: options.maxTrustMs }) };
    this.forward(this.state);
  }

  override stopTrusting(): void {
    super.stopTrusting();
    this.state = undefined;
    this.forward(undefined);
  }
}

export async function runsInRunProcess(config: AppConfig, o: RunPlaceOptions & { spawn?: SpawnRunChild }): Promise<RunPlace> {
  const base = await openProcessBase(config, { log: o.log, clock: o.clock, ...(o.fs ? { fs: o.fs } : {}) });
  // The daemon's token, not the token file as the child finds it later (deleted to have a new
  // one at the next start, say): a failure report's retry link must be one this daemon accepts.
  const childConfig: AppConfig = { ...config, settings: { ...config.settings, Http: { ...config.settings.Http, Token: base.token } } };
  const writeListeners: WriteListener[] = [];
  const watch = new ForwardedWatch(base.vault, (state) => current?.trust(state));
  // The daemon's own writes (imports, sessions) change what the run process may have cached.
  watch.onInvalidate((p) => current?.invalidate(p));

  let current: RunProcess | undefined;
  let closing: Promise<void> | undefined;
  /** Processes told to end and not gone yet. */
  const ending = new Set<RunProcess>();
  const endCurrent = (graceMs?: number): Promise<void> => {
    const child = current;
    current = undefined;
    if (!child) return Promise.resolve();
    ending.add(child);
    const ended = child.exit(graceMs);
    void ended.finally(() => ending.delete(child));
    return ended;
  };
  const processForRun = (): RunProcess => {
    if (current?.usable) return current;
    if (current) void endCurrent();
    current = new RunProcess({
      stallMs: config.settings.Endpoint.TimeoutSeconds * 1000 + stallMarginFromEnv(process.env),
      config: childConfig,
      log: o.log,
      trust: watch.state,
      onWrite: (p, content) => {
        for (const listener of writeListeners) listener(p, content);
      },
      spawn: o.spawn ?? spawnRunChild,
      // Its half-done atomic writes go now, not at the daemon's next start (days later): the
      // temporary files of a dead writer (intake/temp-sweep.ts).
      onDied: () => void sweepTempFiles(base.vault, o.log, { clock: o.clock }).catch((err: unknown) => o.log.warn({ err }, 'could not look for leftover temporary files')),
    });
    o.log.info({ childPid: current.pid }, `run process started (pid ${current.pid ?? 'unknown'})`);
    return current;
  };
  const idle = new IdleHolds({
    idleMs: o.caches.idleMs ?? DEFAULT_IDLE_RELEASE_MS,
    timers: o.caches.timers ?? realIdleTimers,
    onIdle: () => {
      if (!current) return;
      // Told once the process has ended: what it held is gone from the machine by then. Not
      // when a job came meanwhile: its new process holds what a run builds, nothing was let go.
      void endCurrent().then(() => {
        if (!current) o.caches.onRelease?.();
      });
    },
  });

  // Ahead of a run, a fork that throws (ENOMEM comes as a throw, not an 'error' event) is only
  // said: the callers hold the place outside their try (daemon.ts `run`, meetings-in-progress.ts),
  // and the run's own start tries again and fails that run with the reason.
  const startWarm = (what: string): void => {
    try {
      processForRun().warm();
    } catch (err) {
      o.log.warn({ err }, `could not ${what}: ${err instanceof Error ? err.message : String(err)}`);
    }
  };

  /** Deaths of the run process in a row, by the meeting (or failure report) it was running. */
  const deaths = new Map<string, number>();
  const counted = async (kind: 'summarize' | 'retry', target: string, outcome: RunOutcome): Promise<RunOutcome> => {
    const report = judgeDeath(deaths, target, outcome);
    return report === undefined ? outcome : processForRun().report(kind, target, report);
  };
  const runs: MeetingRuns = {
    summarize: async (hooks, meetingPath, options) => counted('summarize', meetingPath, await processForRun().run('summarize', hooks, meetingPath, options)),
    retry: async (hooks, summaryPath, options) => counted('retry', summaryPath, await processForRun().run('retry', hooks, summaryPath, options)),
    notes: (meetingPath, run) => processForRun().notes(meetingPath, run),
  };
  return {
    base,
    watch,
    runs,
    onWrite: (listener) => {
      writeListeners.push(listener);
      base.vault.onWrite(listener);
    },
    hold: () => idle.hold(),
    warm: () => {
      if (!closing) startWarm('warm the run process');
    },
    startAhead: () => {
      if (!closing && !current?.usable) startWarm('start the run process ahead');
    },
    needsStart: () => !closing && !current?.usable,
    close: () => {
      if (closing) return closing;
      // The stop's grace period lets running runs finish: the process ends after the last one.
      const runsEnded = new Promise<void>((resolve) => idle.close(resolve));
      // Within the stop's deadline (commands/run.ts): a process slow to let go is killed sooner.
      closing = runsEnded
        .then(() => endCurrent(STOP_EXIT_GRACE_MS))
        .then(() => Promise.all([...ending].map((child) => child.exit(STOP_EXIT_GRACE_MS))).then(() => undefined));
      return closing;
    },
  };
}

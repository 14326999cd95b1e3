import type { Settings } from '../config.js';
import type { Logger } from '../log.js';
import type { Vault } from '../vault/files/vault.js';
import type { InstanceLock } from '../instance/daemon-claim.js';
import { saveLeftover } from './runs/unstarted-jobs.js';
import type { RunQueue, StopResult } from './runs/queue.js';

/**
 * The daemon's stop (docs/design.md §2): take no more work, give running runs
 * `Daemon.ShutdownGraceSeconds`, abort the rest, keep the jobs that never started for the
 * next start, and give the vault back to the next daemon.
 */

export interface ShutdownOptions {
  vault: Vault;
  settings: Settings;
  log: Logger;
  queue: RunQueue;
  instance: Pick<InstanceLock, 'release'>;
  /** Marks the daemon as stopping, before anything is closed. */
  begin(): void;
  /** Stops taking work: schedule, watcher, HTTP server, search workers. */
  closeIntake(): Promise<void>;
  /** Waits for the file events and the scan the intake still has in hand. */
  settled(): Promise<void>;
}

export interface Shutdown {
  /** Idempotent: every call returns the same stop. */
  stop(reason?: string): Promise<StopResult>;
  /** Resolves when the daemon has stopped. */
  readonly done: Promise<StopResult>;
}

export function createShutdown(o: ShutdownOptions): Shutdown {
  let resolveDone!: (result: StopResult) => void;
  const done = new Promise<StopResult>((resolve) => {
    resolveDone = resolve;
  });
  let stopPromise: Promise<StopResult> | undefined;
  const run = async (reason: string): Promise<StopResult> => {
    const { log, queue, settings } = o;
    o.begin();
    const graceMs = settings.Daemon.ShutdownGraceSeconds * 1000;
    const { running, pending } = queue.size;
    log.info({ reason, running, pending, graceSeconds: settings.Daemon.ShutdownGraceSeconds }, `stopping (${reason})`);
    // A person at a terminal learns why nothing happens yet and how not to wait (docs/design.md §2).
    if (running > 0) {
      log.warn(
        { running, graceSeconds: settings.Daemon.ShutdownGraceSeconds },
        `waiting for ${running} run${running === 1 ? '' : 's'} to finish (up to ${settings.Daemon.ShutdownGraceSeconds} s); Ctrl-C again to stop now`,
      );
    }
    const [, result] = await Promise.all([o.closeIntake(), queue.stop(graceMs)]);
    await o.settled();
    // Writes a person's editor made into files the runs just replaced are merged before the
    // exit; those still to come are not waited for (Ctrl-C stops within 2 s, docs/design.md §2).
    await o.vault.settled({ now: true });
    await saveLeftover(o.vault, queue.unfinished()).catch((err: unknown) =>
      log.warn({ err }, 'could not save the unstarted jobs; catch-up finds most of them at next start'),
    );
    await o.instance.release().catch((err: unknown) => log.warn({ err }, 'could not remove the daemon file'));
    log.info({ ...result }, 'stopped');
    resolveDone(result);
    return result;
  };
  return {
    stop: (reason = 'stop requested') => (stopPromise ??= run(reason)),
    done,
  };
}

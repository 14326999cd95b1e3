import type { RunRecord } from '../runs/run-history.js';

/**
 * The endpoint's health as the status page shows it (docs/design.md §7): up, or down since
 * when. `waiting` is the slot for the endpoint wait of docs/design.md §2 (runs that wait for
 * an unreachable endpoint, probing it): its source fills it in; without one it stays empty.
 */
export interface EndpointHealth {
  /** up: the last run reached it; down: it could not be reached; unknown: no run yet. */
  state: 'up' | 'down' | 'unknown';
  /** When it was last seen in that state (ISO). */
  since?: string;
  /** What went wrong, for `down`. */
  detail?: string;
  /** Runs waiting for the endpoint to answer again, and since when. */
  waiting?: { since: string; runs: number };
}

/** A run that failed because the endpoint could not be reached at all (no answer, or none in time). */
const UNREACHABLE = /^ModelError \((network|timeout)\)/;

/**
 * Health read from the recent runs (newest first), as far as they tell: the newest run that
 * reached the model or failed to reach it. A run that failed for another reason (a broken
 * note, a refused request) says the endpoint answered.
 */
export function healthFromRuns(recent: readonly RunRecord[]): EndpointHealth {
  const latest = recent.find((run) => (run.modelRequests ?? 0) > 0 || UNREACHABLE.test(run.error ?? ''));
  if (!latest) return { state: 'unknown' };
  if (latest.status === 'failed' && UNREACHABLE.test(latest.error ?? '')) {
    // Down since the first of the latest unreachable failures in a row.
    let since = latest.finishedAt;
    for (const run of recent.slice(recent.indexOf(latest) + 1)) {
      if (run.status !== 'failed' || !UNREACHABLE.test(run.error ?? '')) break;
      since = run.finishedAt;
    }
    return { state: 'down', since, detail: latest.error! };
  }
  return { state: 'up', since: latest.finishedAt };
}

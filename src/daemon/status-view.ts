import path from 'node:path';
import { type Clock, systemClock } from '../clock.js';
import type { ImportEntry } from './import-board.js';
import type { QueuedJobInfo } from './queue.js';
import type { LiveRun, RunBoard } from './run-board.js';
import type { RunRecord } from './run-history.js';

/**
 * Everything the status page shows, gathered in one plain object: the page renders it, a
 * test or the bench can build one without a daemon.
 */

export interface EndpointView {
  url: string;
  model: string;
  api: string;
  /** The context window a run really has (see `StatusSources.endpointWindow`). */
  window: number;
}

export interface FailureView extends RunRecord {
  /** A retry of this meeting is waiting or running: no second button. */
  retryPending: boolean;
}

export interface StatusView {
  version: string;
  startedAt: string;
  now: string;
  /** The vault folder's name: the vault name Obsidian knows it by. */
  vaultName: string;
  endpoint: EndpointView;
  stopping: boolean;
  running: LiveRun[];
  /** Vault-relative paths. */
  pending: QueuedJobInfo[];
  /** Newest first. */
  recent: RunRecord[];
  /** Meetings whose latest run failed, newest first. */
  failures: FailureView[];
  /** The inbox's files and recent imports (docs/design.md §9). */
  imports?: ImportEntry[];
}

export interface StatusSources {
  version: string;
  startedAt: Date;
  vaultRoot: string;
  board: RunBoard;
  /** The queue's waiting jobs, vault-relative. */
  pending(): QueuedJobInfo[];
  stopping(): boolean;
  endpoint: Omit<EndpointView, 'window'>;
  /**
   * The window a run has: the smaller of `ContextWindow.Tokens` and the window the server last
   * told (ServerWindowSource.known(); the configured one until a server tells).
   */
  endpointWindow(): number;
  clock?: Clock;
  imports?(): ImportEntry[];
}

export function buildStatusView(sources: StatusSources): StatusView {
  const running = sources.board.live();
  const pending = sources.pending();
  const recent = [...sources.board.history.list()];
  const busy = new Set([...running.map((r) => r.meeting), ...pending.map((p) => p.key)]);
  return {
    version: sources.version,
    startedAt: sources.startedAt.toISOString(),
    now: (sources.clock ?? systemClock)().toISOString(),
    vaultName: path.basename(sources.vaultRoot),
    endpoint: { ...sources.endpoint, window: sources.endpointWindow() },
    stopping: sources.stopping(),
    running,
    pending,
    recent,
    failures: latestFailures(recent).map((r) => ({ ...r, retryPending: busy.has(r.meeting) })),
    ...(sources.imports ? { imports: sources.imports() } : {}),
  };
}

/** The runs that are the latest of their meeting and failed: what still needs a person. */
function latestFailures(recent: RunRecord[]): RunRecord[] {
  const seen = new Set<string>();
  const out: RunRecord[] = [];
  for (const run of recent) {
    if (seen.has(run.meeting)) continue;
    seen.add(run.meeting);
    if (run.status === 'failed') out.push(run);
  }
  return out;
}

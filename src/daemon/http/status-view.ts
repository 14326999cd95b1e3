import path from 'node:path';
import { type Clock, systemClock } from '../../clock.js';
import type { ImportEntry } from '../intake/import-board.js';
import type { LiveNotesEntry } from '../runs/live-notes-lane.js';
import type { QueuedJobInfo } from '../runs/queue.js';
import type { LiveRun, RunBoard } from '../runs/run-board.js';
import type { RunRecord } from '../runs/run-history.js';
import { type EndpointHealth, healthFromRuns } from './endpoint-health.js';
import { type ClaimStatus, describeClaim } from '../../instance/vault-claim.js';
import type { CalendarDayView } from '../../meeting-event/today-events.js';

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
  health: EndpointHealth;
}

export interface FailureView extends RunRecord {
  /** A retry of this meeting is waiting or running: no second button. */
  retryPending: boolean;
}

/** A good summary on the page: its run, its Regenerate button's state, and its text. */
export interface SummaryView extends FailureView {
  /** The summary note's body as HTML (summary-html.ts); undefined until read, or when it is gone. */
  html?: string;
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
  /** Meetings whose latest run wrote a summary, newest first, with its text (summary-texts.ts). */
  summaries: SummaryView[];
  /** The inbox's files and recent imports (docs/design.md §9). */
  imports?: ImportEntry[];
  /** Meetings whose notes are made while they run (docs/design.md §3 step 9). */
  liveNotes?: LiveNotesEntry[];
  /** Which machine runs the vault, when a sync tool shares it (docs/design.md §2, two machines). */
  machine?: string;
  /** Today's events and the calendars that could not be read (docs/design.md §12); absent without a calendar. */
  calendar?: CalendarDayView;
}

export interface StatusSources {
  version: string;
  startedAt: Date;
  vaultRoot: string;
  board: RunBoard;
  /** The queue's waiting jobs, vault-relative. */
  pending(): QueuedJobInfo[];
  stopping(): boolean;
  endpoint: Omit<EndpointView, 'window' | 'health'>;
  /** The endpoint's health; default: what the recent runs tell (endpoint-health.ts). */
  endpointHealth?(): EndpointHealth;
  /**
   * The window a run has: the smaller of `ContextWindow.Tokens` and the window the server last
   * told (ServerWindowSource.known(); the configured one until a server tells).
   */
  endpointWindow(): number;
  endpointDownSince?(): string | undefined;
  clock?: Clock;
  imports?(): ImportEntry[];
  liveNotes?(): LiveNotesEntry[];
  machine?(): ClaimStatus | undefined;
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
    endpoint: { ...sources.endpoint, window: sources.endpointWindow(), health: endpointHealth(sources, recent, running) },
    stopping: sources.stopping(),
    running,
    pending,
    recent,
    failures: latestFailures(recent).map((r) => ({ ...r, retryPending: busy.has(r.meeting) })),
    // The texts are read from the vault afterwards (summary-texts.ts), this view being synchronous.
    summaries: latestSummaries(recent).map((r) => ({ ...r, retryPending: busy.has(r.meeting) })),
    ...(sources.imports ? { imports: sources.imports() } : {}),
    ...(sources.liveNotes ? { liveNotes: sources.liveNotes() } : {}),
    ...machineOf(sources.machine?.()),
  };
}

/** Said on the page only when another machine shares the vault: alone, there is nothing to tell. */
function machineOf(claim: ClaimStatus | undefined): { machine?: string } {
  return claim && claim.others.length > 0 ? { machine: describeClaim(claim) } : {};
}

/** The endpoint wait (docs/design.md §2) probes the endpoint now: its word wins over what past runs tell. */
function endpointHealth(sources: StatusSources, recent: RunRecord[], running: readonly LiveRun[]): EndpointHealth {
  return endpointHealthNow(sources.endpointHealth?.() ?? healthFromRuns(recent), running, sources.endpointDownSince?.());
}

/** The page's endpoint line, also what `GET /api/status` says of it for the `status` command. */
export function endpointHealthNow(health: EndpointHealth, running: readonly LiveRun[], since: string | undefined): EndpointHealth {
  if (since === undefined) return health;
  const runs = running.filter((run) => run.waitingForEndpoint).length;
  return { state: 'down', since, ...(health.state === 'down' && health.detail ? { detail: health.detail } : {}), ...(runs > 0 && { waiting: { since, runs } }) };
}

/** The runs that are the latest of their meeting and failed: what still needs a person. */
function latestFailures(recent: RunRecord[]): RunRecord[] {
  return latestOfEach(recent).filter((run) => run.status === 'failed');
}

/** The runs that are the latest of their meeting and wrote its summary, at most SUMMARIES_SHOWN. */
function latestSummaries(recent: RunRecord[]): RunRecord[] {
  return latestOfEach(recent)
    .filter((run) => run.status === 'done' && run.summary !== undefined)
    .slice(0, SUMMARIES_SHOWN);
}

/** The page shows this many summaries' texts: each is a file read per refresh of the page. */
export const SUMMARIES_SHOWN = 10;

function latestOfEach(recent: RunRecord[]): RunRecord[] {
  const seen = new Set<string>();
  return recent.filter((run) => !seen.has(run.meeting) && (seen.add(run.meeting), true));
}

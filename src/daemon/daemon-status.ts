import type { CalendarLookup, CalendarSourceState } from '../calendar/types.js';
import type { AppConfig } from '../config.js';
import type { ClaimStatus } from '../instance/vault-claim.js';
import type { Vault } from '../vault/files/vault.js';
import type { RunningHttpServer } from './http/server.js';
import type { ImportEntry } from './intake/import-board.js';
import type { LastScan } from './intake/intake.js';
import type { Job, QueueStatus, RunQueue } from './runs/queue.js';
import type { LiveNotesEntry } from './runs/live-notes-lane.js';
import type { LiveRun } from './runs/run-board.js';
import type { EndpointHealth } from './http/endpoint-health.js';

/** What the daemon says of itself: `GET /api/status`, `meeting-assistant status` and the status page read it. */

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
  /** The endpoint as the status page shows it: up (last answered), down since when, unknown. */
  endpointHealth?: EndpointHealth;
  /** The running runs as the page shows them: what each waits for, its turn, its tokens. */
  runs?: LiveRun[];
  /** The inbox's files and recent imports (docs/design.md §9). */
  imports: ImportEntry[];
  /** Meetings whose notes are made while they run (docs/design.md §3 step 9): "notes: parts 1–4 of ~6". */
  liveNotes?: LiveNotesEntry[];
  /** This machine and the others that share the vault (docs/design.md §2, two machines). */
  machine?: ClaimStatus;
  /** How each calendar was last read (docs/design.md §12); absent without calendars. */
  calendars?: CalendarSourceState[];
}

/** Vault-relative paths in everything the status shows: the vault root is stated once. */
function relJob<T extends Job>(vault: Vault, job: T): T {
  return { ...job, key: vault.rel(job.key), target: vault.rel(job.target) };
}

export function daemonStatus(s: {
  config: AppConfig;
  vault: Vault;
  startedAt: Date;
  http: RunningHttpServer | undefined;
  stopping: boolean;
  queue: RunQueue;
  lastScan: LastScan | undefined;
  calendar?: CalendarLookup;
}): Omit<DaemonStatus, 'imports'> {
  const q = s.queue.status();
  const calendars = s.calendar?.sources() ?? [];
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
    ...(calendars.length > 0 && { calendars }),
  };
}

export function endpointState(s: { downSince?: string; waiting: number }): { downSince?: string; waiting: number } {
  return { ...(s.downSince !== undefined && { downSince: s.downSince }), waiting: s.waiting };
}

import type { RunProgress } from '../../../agent/progress.js';
import type { AppConfig } from '../../../config.js';
import type { LiveNotesResult } from '../../../meeting/long-transcript/live-notes.js';
import type { RunOutcome } from '../../../meeting/pipeline.js';

/**
 * What the daemon and its run process say to each other over the IPC channel (structured
 * clones, docs/design.md §8). A job has an id of the host's; an endpoint wait has one of the
 * run process's.
 */

/** The watcher's trust, as the run process's caches apply it (tools/cache/file-cache.ts). */
export interface TrustState {
  folders: string[];
  maxTrustMs?: number;
}

export type ToRunProcess =
  /** First message: the configuration the daemon read, and the watcher's trust so far. */
  | { type: 'start'; config: AppConfig; trust: TrustState | undefined }
  | { type: 'run'; id: number; kind: 'summarize' | 'retry'; path: string; trigger: string | undefined; endpointDownSince: string | undefined }
  /** No run: the failure report of a meeting whose runs ended the run process every time (meeting/death-report.ts). */
  | { type: 'report'; id: number; kind: 'summarize' | 'retry'; path: string; message: string }
  /** A live notes pass (docs/design.md §3 step 9); its progress and outcome come as a run's do. */
  | { type: 'notes'; id: number; path: string; onlyIfStarted: boolean }
  /** The run's signal (the grace period ended) or its stopWaiting (the daemon stops). */
  | { type: 'abort' | 'stop-waiting'; id: number }
  | { type: 'endpoint-up'; wait: number; waited: boolean }
  | { type: 'endpoint-failed'; wait: number; message: string }
  | { type: 'endpoint-state'; downSince: string | undefined }
  | { type: 'invalidate'; path: string }
  | { type: 'trust'; trust: TrustState | undefined }
  /** A meeting is being recorded: load and check now what a run needs first (its first request waits for none of it then). */
  | { type: 'warm' }
  /** Idle or stopping: let go and end. */
  | { type: 'exit' };

export type FromRunProcess =
  /** Sent every HEARTBEAT_MS while the process lives: a stopped (SIGSTOP) or stuck process falls silent. */
  | { type: 'alive' }
  /** One line of the run process's log, as JSON (the daemon logs it in its own log). */
  | { type: 'log'; line: string }
  | { type: 'progress'; id: number; runId: string; event: RunProgress }
  /** A note the run process wrote (the daemon's triggers must know their own writes). */
  | { type: 'write'; path: string; content: string }
  | { type: 'endpoint-wait'; id: number; wait: number }
  | { type: 'outcome'; id: number; outcome: RunOutcome }
  | { type: 'notes-outcome'; id: number; outcome: LiveNotesResult }
  /** The process cannot go on (its start failed, an error nothing caught): why, just before it exits. */
  | { type: 'failed'; message: string; stack: string | undefined };

/** How often the run process says it is alive (docs/design.md §8, issue 43). */
export const HEARTBEAT_MS = 1000;

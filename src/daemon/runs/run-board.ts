import type { RunProgress } from '../../agent/progress.js';
import type { JobKind } from './queue.js';
import type { RunHistory, RunRecord } from './run-history.js';

/**
 * What the daemon's runs are doing right now, for the status page: each running job with the
 * latest progress its pipeline reported (turn, tokens in use, transcript part), and the
 * finished runs (RunHistory). Progress arrives synchronously from the run and only overwrites
 * a few fields, so a busy run costs the board nothing worth measuring.
 */

export interface LiveRun {
  /** Vault-relative meeting note (or the note the job named). */
  meeting: string;
  title?: string;
  kind: JobKind;
  trigger: string;
  startedAt: string;
  runId?: string;
  turn?: { turn: number; maxTurns: number };
  context?: { tokens: number; window: number };
  transcriptPart?: { part: number; parts: number; from: number; to: number };
  /** The run waits for the model endpoint to answer (docs/design.md §2, "The endpoint down"). */
  waitingForEndpoint?: true;
}

export type LiveRunStart = Pick<LiveRun, 'meeting' | 'title' | 'kind' | 'trigger' | 'startedAt'>;

export class RunBoard {
  readonly #live = new Map<string, LiveRun>();

  constructor(readonly history: RunHistory) {}

  /** A job began (key: the queue's key, so one meeting is one entry). */
  start(key: string, run: LiveRunStart): void {
    this.#live.set(key, { ...run });
  }

  progress(key: string, runId: string, event: RunProgress): void {
    const run = this.#live.get(key);
    if (!run) return;
    run.runId = runId;
    if (event.kind === 'turn') {
      run.turn = { turn: event.turn, maxTurns: event.maxTurns };
      // The transcript's parts are read before the main conversation's first request: once it
      // runs, "part n of n" would say the run still reads them.
      delete run.transcriptPart;
    } else if (event.kind === 'context') run.context = { tokens: event.tokens, window: event.window };
    else run.transcriptPart = { part: event.part, parts: event.parts, from: event.from, to: event.to };
  }

  /** The run began or ended a wait for the endpoint. */
  waitingForEndpoint(key: string, waiting: boolean): void {
    const run = this.#live.get(key);
    if (!run) return;
    if (waiting) run.waitingForEndpoint = true;
    else delete run.waitingForEndpoint;
  }

  /** The job ended: off the live list; a real run (not a skipped job) goes into the history. */
  finish(key: string, record: RunRecord | undefined): Promise<void> {
    this.#live.delete(key);
    return record ? this.history.add(record) : Promise.resolve();
  }

  /** Oldest first, as they started. */
  live(): LiveRun[] {
    return [...this.#live.values()].map((r) => ({ ...r }));
  }
}

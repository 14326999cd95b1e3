import type { Clock } from '../../clock.js';
import type { Logger } from '../../log.js';
import type { RunProgress } from '../../agent/progress.js';
import type { EndpointGate } from '../../agent/model/retry.js';
import type { PipelineDeps, RunOutcome, RunOptions } from '../../meeting/pipeline.js';
import type { LiveNotesOptions, LiveNotesOutcome, LiveNotesResult } from '../../meeting/long-transcript/live-notes.js';
import type { LiveNotesRun } from './live-notes-lane.js';
import type { Vault } from '../../vault/files/vault.js';
import { HeadCache } from '../../vault/scan/head-cache.js';
import { type CliRun, cliRunOf } from '../../instance/cli-run-marker.js';
import { contextOfMeeting } from '../../vault/notes/locate-meeting.js';
import type { VaultFiles } from '../../vault/format/links.js';
import { gateOnBoard } from './endpoint-gate.js';
import { readNoteHead } from '../../vault/scan/note-head.js';
import type { Notifier } from './notify.js';
import type { Job, JobResult, JobRunner, QueuedAs } from './queue.js';
import type { RunBoard } from './run-board.js';
import type { RunRecord } from './run-history.js';

/**
 * One queued job through the pipeline, as the daemon runs it: a stale trigger is skipped,
 * the run's progress goes to the status page's board, its outcome to the log, the board's
 * history and (when asked for) a desktop notification.
 */

/** The pipeline's entry points (meeting/pipeline.ts), as the daemon calls them in its own process. */
export interface PipelineFns {
  summarize(deps: PipelineDeps, meetingPath: string, options: RunOptions): Promise<RunOutcome>;
  retry(deps: PipelineDeps, summaryPath: string, options: RunOptions): Promise<RunOutcome>;
  /** Notes while the meeting runs (meeting/long-transcript/live-notes.ts); absent: none are made. */
  notes?(deps: PipelineDeps, meetingPath: string, options: LiveNotesOptions): Promise<LiveNotesOutcome>;
}

/** What one run takes from the daemon, wherever it runs: where its progress goes, the endpoint's wait. */
export interface RunHooks {
  onProgress(runId: string, event: RunProgress): void;
  endpoint?: EndpointGate;
}

/**
 * Where the daemon's runs happen (docs/design.md §8): in the daemon's own process (tests, with
 * the pipeline's dependencies bound), or in the run process that ends when the daemon is idle
 * (run-process/).
 */
export interface MeetingRuns {
  summarize(hooks: RunHooks, meetingPath: string, options: RunOptions): Promise<RunOutcome>;
  retry(hooks: RunHooks, summaryPath: string, options: RunOptions): Promise<RunOutcome>;
  /** One live notes pass (docs/design.md §3 step 9) where the runs happen; absent: none are made. */
  notes?(meetingPath: string, run: LiveNotesRun): Promise<LiveNotesResult>;
}

export interface JobRunnerDeps {
  vault: Vault;
  log: Logger;
  runs: MeetingRuns;
  /** The daemon's wait for an endpoint that does not answer (docs/design.md §2). */
  endpoint?: EndpointGate;
  board: RunBoard;
  notifier: Notifier;
  clock: Clock;
  /** A meeting summarized (or left to a command-line run): catch-up may forget what it knew of it. */
  onDone(key: string): void;
  /** A failure whose report could not be written: catch-up runs the job again (docs/design.md §3 step 4). */
  onUnreported?(job: Job): void;
  /** The vault's files for a link to a note not yet created (the daemon's vault/scan/vault-listing.ts); default a walk. */
  files?: VaultFiles;
  /** Whether a command-line run has the meeting (default: its marker in this user's runtime folder, instance/cli-run-marker.ts). */
  cliRunOf?(key: string): Promise<CliRun | undefined>;
}

/** The meeting note's title, for the status page and notifications; undefined when it has none. */
async function titleOf(vault: Vault, meetingPath: string): Promise<string | undefined> {
  if (vault.kindOf(meetingPath) !== 'meeting') return undefined;
  const data = await readNoteHead(vault.fs, meetingPath).then((h) => h.data, () => undefined);
  const title = data?.title;
  return typeof title === 'string' && title.trim() !== '' ? title.trim() : undefined;
}

/** Triggers that retry a failure report (§2): ticking `retry`, catch-up, the endpoint back. */
const RETRIES_OF_A_REPORT = new Set(['retry', 'catch-up', 'endpoint']);

/** The summary note says `status: done` (unreadable or gone: not known to be done). */
async function summaryIsDone(vault: Vault, summaryPath: string): Promise<boolean> {
  const data = await readNoteHead(vault.fs, summaryPath).then((h) => h.data, () => undefined);
  return typeof data?.status === 'string' && data.status.trim() === 'done';
}

export function createJobRunner(deps: JobRunnerDeps): JobRunner {
  const { vault, log, board } = deps;

  const cliRun = deps.cliRunOf ?? ((key: string) => cliRunOf(vault, key));

  const runPipeline = async (job: Job, signal: AbortSignal, stopWaiting: AbortSignal, meeting: string, queued: QueuedAs): Promise<{ result: JobResult; outcome?: RunOutcome }> => {
    const cli = await cliRun(job.key);
    if (cli !== undefined) {
      // Not twice at once; catch-up looks again once the command has ended.
      const message = `not run now: \`meeting-assistant ${cli.command}\` (pid ${cli.pid}) is running this meeting`;
      log.info({ meeting, trigger: job.trigger }, message);
      deps.onDone(job.key);
      return { result: { status: 'skipped', message } };
    }
    if (job.kind === 'summarize' && job.trigger !== 'cli') {
      // A person's `summarize` runs regardless; a trigger may be stale by now: a follow-up after
      // the run that finished it, a catch-up of a meeting a person has since retried.
      const context = await contextOfMeeting(vault, job.target, new HeadCache(vault), deps.files).catch(() => undefined);
      if (context?.state === 'finished' || (context?.state === 'error' && job.trigger === 'catch-up')) {
        const message = `not summarized again: its context note is ${context.state}`;
        log.info({ meeting, trigger: job.trigger }, message);
        return { result: { status: 'skipped', message } };
      }
    }
    if (job.kind === 'retry' && queued.afterRun && RETRIES_OF_A_REPORT.has(job.trigger) && (await summaryIsDone(vault, job.target))) {
      // A failure report's retry asked for while the meeting ran (`retry` ticked again during
      // the retry): the run it waited for left a summary, which a second run would only replace.
      // A person's link, page, API call or command may regenerate a good summary: those run.
      const message = 'not retried again: its summary note is done';
      log.info({ meeting, trigger: job.trigger }, message);
      return { result: { status: 'skipped', message } };
    }
    // The status page follows the run's progress by the queue's key: one entry per meeting.
    const hooks: RunHooks = {
      onProgress: (runId, event) => board.progress(job.key, runId, event),
      ...(deps.endpoint && { endpoint: gateOnBoard(deps.endpoint, board, job.key) }),
    };
    const runOptions: RunOptions = { signal, stopWaiting, trigger: job.trigger };
    const outcome = job.kind === 'summarize' ? await deps.runs.summarize(hooks, job.target, runOptions) : await deps.runs.retry(hooks, job.target, runOptions);
    const summary = outcome.summaryPath ? vault.rel(outcome.summaryPath) : undefined;
    if (outcome.status === 'done') {
      deps.onDone(job.key);
      log.info({ runId: outcome.runId, meeting, summary, trigger: job.trigger }, `summary written: ${summary ?? meeting}`);
    } else if (outcome.aborted) {
      log.info({ runId: outcome.runId, meeting, trigger: job.trigger }, `run stopped unfinished: ${meeting} resumes at next start`);
    } else if (outcome.reportProblem !== undefined) {
      // The truth, not the report's name: there is none (a full disk, a read-only folder).
      deps.onUnreported?.(job);
      log.error(
        { runId: outcome.runId, meeting, summary, trigger: job.trigger, error: outcome.error, reportProblem: outcome.reportProblem },
        `meeting failed: ${meeting}: ${outcome.error ?? 'unknown error'} (${unreportedText(summary, outcome.reportProblem)})`,
      );
    } else {
      log.warn(
        { runId: outcome.runId, meeting, summary, trigger: job.trigger, error: outcome.error },
        `meeting failed: ${meeting}: ${outcome.error ?? 'unknown error'}${summary ? ` (failure report: ${summary})` : ''}`,
      );
    }
    const result: JobResult = {
      status: outcome.status,
      runId: outcome.runId,
      ...(outcome.aborted && { aborted: true }),
      ...(outcome.error !== undefined && {
        message: outcome.reportProblem === undefined ? outcome.error : `${outcome.error} (${unreportedText(summary, outcome.reportProblem)})`,
      }),
      // No report was written: the status page must not link to one.
      ...(summary !== undefined && outcome.reportProblem === undefined && { summaryPath: summary }),
    };
    return { result, outcome };
  };

  return async (job, signal, stopWaiting, queued) => {
    const meeting = vault.rel(job.key);
    const title = await titleOf(vault, job.key);
    const startedAt = deps.clock().toISOString();
    board.start(job.key, { meeting, ...(title !== undefined && { title }), kind: job.kind, trigger: job.trigger, startedAt });
    let record: RunRecord | undefined;
    try {
      const { result, outcome } = await runPipeline(job, signal, stopWaiting, meeting, queued);
      // A run stopped by shutdown resumes at next start: no outcome to record or announce yet.
      if (outcome && !outcome.aborted) {
        record = {
          runId: outcome.runId,
          kind: job.kind,
          trigger: job.trigger,
          meeting,
          ...(title !== undefined && { title }),
          startedAt,
          finishedAt: deps.clock().toISOString(),
          status: outcome.status,
          ...(result.message !== undefined && { error: result.message }),
          ...(result.summaryPath !== undefined && { summary: result.summaryPath }),
          ...(outcome.modelRequests !== undefined && { modelRequests: outcome.modelRequests }),
        };
        // Never waited for: a notification may wait for its click.
        void deps.notifier.runFinished(record);
      }
      return result;
    } finally {
      await board.finish(job.key, record);
    }
  };
}

/** What the log and the status page say of a failure report that could not be written. */
function unreportedText(summary: string | undefined, problem: string): string {
  return `could not write the failure report${summary ? ` ${summary}` : ''}: ${problem}; tried again at the next catch-up`;
}

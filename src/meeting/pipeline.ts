import { randomUUID } from 'node:crypto';
import { type Clock, systemClock } from '../clock.js';
import type { AppConfig } from '../config.js';
import type { Logger } from '../log.js';
import { Audit, auditJournalFolder } from '../audit.js';
import { AgentError, type WindowController } from '../agent/loop.js';
import { conversationStarts } from './conversation-start.js';
import { carriedTokens, logShape, shapedConversation, shapedTools, shapeLoggedOnFailure } from './run-shape.js';
import { runAgentPhases } from './phases.js';
import { SUMMARY_REMINDER } from './prompt.js';
import type { RunProgress } from '../agent/progress.js';
import type { EndpointGate } from '../agent/model/retry.js';
import { unreachableAdvice } from '../agent/model/endpoint-wait.js';
import { countingRequests } from './counted-requests.js';
import { summarizeWithoutTools } from './without-tools/summarize.js';
import { type ToollessCause, toollessCause } from './without-tools/cause.js';
import type { ToolsRefusals } from './without-tools/memory.js';
import { type PartProgress, type WindowRoom, windowRoom, notesForLongTranscript } from './long-transcript/notes-pass.js';
import { ModelError, type ModelClient } from '../agent/types.js';
import { DEFAULT_MAX_RESULT_CHARS } from '../tools/define/format.js';
import { toolOffer } from '../tools/offered-tools.js';
import { createToolBinding, createToolRegistry } from '../tools/registry.js';
import type { RunCaches } from '../tools/binding/run-caches.js';
import { staleSummaryReminder } from '../tools/meeting/speaker-names.js';
import type { RunState } from '../tools/binding/types.js';
import { readContextState, startSummarizing } from '../vault/notes/context.js';
import { BrokenMeetingError, type MeetingArtifacts, resolveMeeting } from '../vault/notes/meeting.js';
import { findMeetingOfSummary } from '../vault/notes/locate-meeting.js';
import type { FailureDetails } from '../vault/notes/summary.js';
import type { Vault } from '../vault/files/vault.js';
import { isExpectedError } from '../errors.js';
import {
  type FailureWriter,
  type LastResort,
  recordLastResort,
  reasonOf,
  settleContext,
  unwrittenReportNote,
  writeFailureReport,
} from './run-failure.js';

/** One meeting end to end: artifacts -> agent -> summary note or failure report. */

export interface PipelineDeps {
  vault: Vault;
  config: AppConfig;
  log: Logger;
  model: ModelClient;
  /** The clickable retry link for a summary note (vault-relative path). */
  retryUrl(summaryRelPath: string): string;
  /**
   * Builds the window budget of one run (compaction); absent means no tracking.
   * The daemon passes one factory so the remote-compaction memory (404 seen) is shared.
   */
  contextManager?: (log: Logger, signal?: AbortSignal) => WindowController & Partial<WindowRoom>;
  /** Where the run's timestamps come from; default the system clock. */
  clock?: Clock;
  /** Waits between retries; tests inject one that does not wait. */
  sleep?: (ms: number, signal?: AbortSignal) => Promise<void>;
  /** The daemon's wait for an endpoint that does not answer (docs/design.md §2); absent: such a run fails. */
  endpoint?: EndpointGate;
  /** Told how each run moves (turns, tokens, transcript parts); the daemon's status page listens. */
  onProgress?: (runId: string, event: RunProgress) => void;
  /** The caches the runs share (tools/binding/run-caches.ts); default: the run's own. */
  caches?: RunCaches;
  /** Servers that refused tools, for the process's life: their runs go without tools at once (docs/design.md §3 step 11). */
  toolsRefusals?: ToolsRefusals;
}

export interface RunOptions {
  signal?: AbortSignal;
  /** Fires when the daemon stops: a run waiting to retry ends at once and is resumed at next start. */
  stopWaiting?: AbortSignal;
  /** What started the run, for the logs: `transcript`, `catch-up`, `retry`, `cli`, `api`. */
  trigger?: string;
}

export interface RunOutcome {
  runId: string;
  status: 'done' | 'failed';
  /** Absolute paths, when they could be determined. */
  meetingPath?: string;
  summaryPath?: string;
  /** One line for people when failed. */
  error?: string;
  /** Requests sent to the model for the agent (retries included); absent when the run never reached it. */
  modelRequests?: number;
  /** Failed only because it was stopped (shutdown): nothing was reported, the meeting is to be resumed. */
  aborted?: boolean;
  /** Failed, and the failure report could not be written: why (logged; catch-up tries again). */
  reportProblem?: string;
}

/** Summarize one meeting, given its meeting note. Never throws for the meeting's own problems. */
export async function summarizeMeeting(
  deps: PipelineDeps,
  meetingPath: string,
  options: RunOptions = {},
): Promise<RunOutcome> {
  const runId = newRunId();
  const known: LastResort = { summaryWritten: false, resolve: () => resolveMeeting(deps.vault, meetingPath) };
  return guarded(deps, runId, meetingPath, known, async () => {
    const log = deps.log.child({ runId, meeting: deps.vault.rel(meetingPath) });
    log.info({ trigger: options.trigger ?? 'cli' }, 'run started');
    return runMeeting(deps, log, runId, meetingPath, undefined, options, known);
  });
}

/**
 * The retry operation (docs/design.md §2): resolve the meeting from the summary note's
 * `meeting` link, everything else from the meeting note, then overwrite the summary note
 * with a new summary or a new failure report.
 */
export async function retrySummary(
  deps: PipelineDeps,
  summaryPath: string,
  options: RunOptions = {},
): Promise<RunOutcome> {
  const runId = newRunId();
  const { vault } = deps;
  const known: LastResort = { summaryWritten: false };
  return guarded(deps, runId, undefined, known, async () => {
    let log = deps.log.child({ runId, summary: vault.rel(summaryPath) });
    log.info({ trigger: options.trigger ?? 'retry' }, 'retry started');
    let meetingPath: string;
    try {
      meetingPath = await findMeetingOfSummary(vault, summaryPath);
    } catch (err) {
      const message = `cannot retry ${vault.rel(summaryPath)}: ${errorMessage(err)}`;
      log.error({ err }, message);
      return { runId, status: 'failed', summaryPath, error: message };
    }
    log = log.child({ meeting: vault.rel(meetingPath) });
    return runMeeting(deps, log, runId, meetingPath, summaryPath, options, known);
  });
}

/**
 * Every error path of a run ends in the vault (docs/design.md §3 step 4): when the run's own
 * failure path throws (a logger, a clock, an audit that cannot render), the last resort
 * writes a plain failure report and sets the context note to `error`.
 */
async function guarded(
  deps: PipelineDeps,
  runId: string,
  meetingPath: string | undefined,
  known: LastResort,
  run: () => Promise<RunOutcome>,
): Promise<RunOutcome> {
  try {
    return await run();
  } catch (err) {
    const problem = await recordLastResort(failureWriter(deps), known, err);
    return {
      runId,
      status: 'failed',
      ...((meetingPath ?? known.artifacts?.meetingPath) !== undefined && { meetingPath: meetingPath ?? known.artifacts?.meetingPath }),
      ...(known.artifacts && { summaryPath: known.artifacts.summaryPath }),
      error: `${err instanceof Error ? err.name : 'Error'}: ${reasonOf(err)}`,
      ...(problem !== undefined && { reportProblem: problem }),
    };
  }
}

function failureWriter(deps: PipelineDeps): FailureWriter {
  return { vault: deps.vault, log: deps.log, clock: deps.clock ?? systemClock, retryUrl: deps.retryUrl };
}

function newRunId(): string {
  return randomUUID().slice(0, 8);
}

/** One run of one meeting, as its steps see it. */
interface MeetingRun {
  deps: PipelineDeps;
  log: Logger;
  runId: string;
  meetingPath: string;
  artifacts: MeetingArtifacts;
  options: RunOptions;
  state: RunState;
  model: ModelClient & { readonly requests: number };
  audit: Audit;
  now: Clock;
  /** Set when the summary was made without tools: the context note's section saying so. */
  toolless?: string;
}

async function runMeeting(
  deps: PipelineDeps,
  log: Logger,
  runId: string,
  meetingPath: string,
  summaryOverride: string | undefined,
  options: RunOptions,
  known: LastResort,
): Promise<RunOutcome> {
  const { vault } = deps;
  const resolve = async () => {
    // One look at the listing for the links and the claim check of one resolution (vault-listing.ts `view`).
    const found = await resolveMeeting(vault, meetingPath, deps.caches ? { meetingHeads: deps.caches.meetingHeads, listing: deps.caches.listing.view() } : {});
    return summaryOverride ? { ...found, summaryPath: summaryOverride } : found;
  };
  known.resolve = resolve;
  let artifacts: MeetingArtifacts;
  try {
    // An I/O error (not a broken meeting) is tried once more: without the artifacts, the
    // failure has nowhere to be reported.
    artifacts = await resolve().catch((err: unknown) => (isExpectedError(err) ? Promise.reject(err) : resolve()));
  } catch (err) {
    return failBrokenMeeting(deps, log, runId, meetingPath, summaryOverride, err);
  }
  known.artifacts = artifacts;
  const audit = new Audit(vault, {
    excluded: [artifacts.summaryPath, artifacts.contextPath],
    journal: auditJournalFolder(vault, artifacts.contextPath),
  });
  const run: MeetingRun = {
    deps,
    log,
    runId,
    meetingPath,
    artifacts,
    options,
    state: known,
    model: countingRequests(deps.model),
    audit,
    now: deps.clock ?? systemClock,
  };
  let failure: unknown;
  try {
    await beginRun(run);
    await summarize(run);
  } catch (err) {
    failure = err;
  }
  return failure === undefined ? recordSuccess(run) : recordFailure(run, failure);
}

/** The context note says `summarizing` (with an end time), and an interrupted run's changes are taken over. */
async function beginRun({ deps: { vault }, artifacts, audit, log, now }: MeetingRun): Promise<void> {
  // A context note still `summarizing` means the last run was killed or aborted: the files it
  // changed are reported with this run's (its audit journal), so no change goes unreported.
  const previousState = await readContextState(vault, artifacts.contextPath).catch(() => undefined);
  const resumed = await audit.resume(previousState === 'summarizing');
  if (resumed > 0) log.info({ files: resumed }, 'the interrupted run\'s changes are reported with this run\'s');
  await startSummarizing(vault, artifacts, now());
}

/** The agent's work: its tools, its first message (with notes of a long transcript), the loop. */
async function summarize(r: MeetingRun): Promise<void> {
  const { deps, artifacts, log, options, model, runId } = r;
  const { vault } = deps;
  const settings = deps.config.settings;
  const context = deps.contextManager?.(log, options.signal);
  const room = windowRoom(context, settings.ContextWindow);
  // The server's window, asked now (when the context manager can): the parts are sized by it.
  await room.prepare?.();
  const toolContext = createToolBinding({
    vault,
    settings,
    meeting: artifacts,
    audit: r.audit,
    log,
    run: r.state,
    signal: options.signal,
    // A transcript that fits the room is read in one result; the context manager cuts in tokens.
    maxResultChars: Math.max(DEFAULT_MAX_RESULT_CHARS, room.target * 5),
    ...(deps.caches ? { caches: deps.caches } : {}),
  });
  const retry = {
    attempts: settings.Reconnect.Attempts,
    delayMs: settings.Reconnect.DelaySeconds * 1000,
    sleep: deps.sleep,
    stopWaiting: options.stopWaiting,
    endpoint: deps.endpoint,
  };
  // A server that will not take tools, or a model that never calls one: a summary all the same (docs/design.md §3 step 11).
  const withoutTools = async (cause: ToollessCause) => {
    const onPart = (part: PartProgress) => deps.onProgress?.(runId, { kind: 'transcript-part', ...part });
    r.toolless = await summarizeWithoutTools({ vault, config: deps.config, binding: toolContext, model, retry, log, room, signal: options.signal, now: r.now, cause, onPart });
  };
  const refused = deps.toolsRefusals?.refusal(settings.Endpoint);
  if (refused !== undefined) return withoutTools({ kind: 'refused', serverWords: refused, remembered: true });
  // Only the tools that can act for this meeting; one conversation with all of them unless the
  // window cannot hold their schemas, then phases (docs/design.md §3 step 9).
  const offer = await toolOffer(toolContext);
  const starts = await conversationStarts(deps, artifacts, { pastTools: offer.past, projectTools: offer.projects });
  const tools = shapedTools(offer, (offered) => createToolRegistry(toolContext, offered));
  // The shape for the window known at each moment: the transcript's parts are sized by it, and
  // the agent's conversation takes it as it stands before its first request (a silent server's
  // cut of a part may have shown a smaller window than the run started with).
  const conversationNow = () => shapedConversation(room, starts, tools, withResumed);
  // A resumed run is told what its interrupted attempt already wrote (docs/design.md §3 step 4).
  const resumed = r.audit.resumedNotice();
  const withResumed = (message: string) => (resumed ? `${message}\n\n${resumed}` : message);
  const notes = await notesForLongTranscript({
    vault,
    meeting: artifacts,
    model,
    retry,
    log,
    room,
    ...(options.signal ? { signal: options.signal } : {}),
    get carried() {
      return carriedTokens(conversationNow(), withResumed);
    },
    onPart: (part) => deps.onProgress?.(runId, { kind: 'transcript-part', ...part }),
  }).catch(shapeLoggedOnFailure(log, conversationNow));
  const conversation = conversationNow();
  const { start, projectTools } = conversation;
  logShape(log, conversation);
  let firstMessage = withResumed(start.firstMessage);
  if (notes) firstMessage = `${firstMessage}\n\n${notes}`;

  const result = await runAgentPhases({
    ...(projectTools && start.projects ? { projects: { ...start.projects, tools: projectTools, firstMessage: projectMessage(start.projects, resumed) } } : {}),
    summary: () => r.state.summaryBody,
    room,
    model,
    tools: conversation.tools,
    instructions: start.instructions,
    firstMessage,
    maxTurns: settings.Agent.MaxTurns,
    maxOutputTokens: settings.ContextWindow.MaxOutputTokens,
    maxArgumentBytes: settings.Agent.MaxFileBytes,
    retry,
    context,
    summaryWritten: () => r.state.summaryWritten,
    summaryReminder: SUMMARY_REMINDER,
    summaryIssue: () => staleSummaryReminder(r.state),
    log,
    signal: options.signal,
    onProgress: deps.onProgress && ((event) => deps.onProgress!(runId, event)),
    stopWaiting: options.stopWaiting,
  }).catch((err: unknown) => {
    const cause = toollessCause(err);
    if (!cause || r.state.summaryWritten) throw err;
    if (cause.kind === 'refused') deps.toolsRefusals?.remember(settings.Endpoint, cause.serverWords, log);
    return withoutTools(cause);
  });
  if (result) log.info({ turns: result.turns }, 'agent finished');
}

/** The project phase's first message; a resumed run's is told what the interrupted attempt wrote too, since appends are made there. */
function projectMessage(phase: { firstMessage(summary: string): string }, resumed: string | undefined): (summary: string) => string {
  return (summary) => (resumed ? `${phase.firstMessage(summary)}\n\n${resumed}` : phase.firstMessage(summary));
}

/** The audit of outside changes, as the context note records it ('' when there were none). */
function auditSection({ audit, now }: MeetingRun): string {
  return audit.isEmpty ? '' : audit.render(now());
}

async function recordSuccess(r: MeetingRun): Promise<RunOutcome> {
  const { deps, artifacts, log } = r;
  // The summary is written; a notebook that cannot be updated (a person broke its frontmatter
  // meanwhile, say) is logged, and its journal stays, so a later run still reports the changes.
  const note = [r.toolless, auditSection(r)].filter(Boolean).join('\n\n');
  if (await settleContext(failureWriter(deps), artifacts, 'finished', note)) await forgetJournal(r.audit, log);
  log.info({ summary: deps.vault.rel(artifacts.summaryPath) }, 'run finished');
  return { runId: r.runId, status: 'done', meetingPath: r.meetingPath, summaryPath: artifacts.summaryPath, modelRequests: r.model.requests };
}

async function recordFailure(r: MeetingRun, failure: unknown): Promise<RunOutcome> {
  const { deps, artifacts, log } = r;
  const details = failureDetails(failure);
  const aborted = failure instanceof ModelError && failure.kind === 'aborted';
  if (aborted) log.info({ attempts: details.attempts }, 'run stopped (the daemon is stopping)');
  else log.error({ err: failure, ...details }, 'run failed');
  // An aborted run (shutdown) leaves `summarizing` so catch-up resumes the meeting at next start;
  // its audit journal stays, and the resumed run reports these changes with its own (appending
  // them now too would report them twice).
  let reportProblem: string | undefined;
  if (!aborted) {
    // Rendered before the failure report is written: the audit section lists outside changes as they stood.
    const audit = auditSection(r);
    if (!r.state.summaryWritten) reportProblem = await writeFailureReport(failureWriter(deps), artifacts, details);
    const errorNote = r.state.summaryWritten
      ? `## Error (${r.now().toISOString()})\n\nThe summary was written, but the run then failed: ${details.type}` +
        `${details.status ? ` (HTTP ${details.status})` : ''}: ${details.message}`
      : reportProblem !== undefined
        ? unwrittenReportNote(deps.vault, artifacts.summaryPath, reportProblem, r.now())
        : '';
    // A context note that cannot be written stays `summarizing`: the next start resumes the meeting.
    if (await settleContext(failureWriter(deps), artifacts, 'error', [audit, errorNote].filter(Boolean).join('\n\n'))) {
      await forgetJournal(r.audit, log);
    }
  }
  return {
    runId: r.runId,
    status: 'failed',
    meetingPath: r.meetingPath,
    summaryPath: artifacts.summaryPath,
    error: `${details.type}: ${details.message}`,
    modelRequests: r.model.requests,
    ...(aborted && { aborted: true }),
    ...(reportProblem !== undefined && { reportProblem }),
  };
}

/** The audit is in the context note: its journal must not be reported again. */
async function forgetJournal(audit: Audit, log: Logger): Promise<void> {
  await audit.clearJournal().catch((err: unknown) => log.warn({ err }, 'could not remove the audit journal'));
}

function failureDetails(err: unknown): FailureDetails {
  if (err instanceof ModelError) {
    return { type: `ModelError (${err.kind})`, status: err.status, message: err.message, attempts: err.attempts, ...unreachableAdvice(err) };
  }
  if (err instanceof AgentError) return { type: `AgentError (${err.kind})`, message: err.message };
  if (err instanceof Error) return { type: err.name || 'Error', message: err.message };
  return { type: 'Error', message: String(err) };
}

function errorMessage(err: unknown): string {
  return err instanceof Error ? err.message : String(err);
}

async function failBrokenMeeting(
  deps: PipelineDeps,
  log: Logger,
  runId: string,
  meetingPath: string,
  summaryOverride: string | undefined,
  err: unknown,
): Promise<RunOutcome> {
  const summaryPath = summaryOverride ?? (err instanceof BrokenMeetingError ? err.summaryPath : undefined);
  const known = isExpectedError(err);
  const details: FailureDetails = known
    ? { type: 'BrokenMeeting', message: errorMessage(err) }
    : { type: err instanceof Error ? err.name : 'Error', message: errorMessage(err) };
  log.error({ err, summary: summaryPath && deps.vault.rel(summaryPath) }, `meeting cannot run: ${details.message}`);
  const reportProblem = summaryPath ? await writeFailureReport(failureWriter(deps), { meetingPath, summaryPath }, details) : undefined;
  return {
    runId,
    status: 'failed',
    meetingPath,
    summaryPath,
    error: `${details.type}: ${details.message}`,
    ...(reportProblem !== undefined && { reportProblem }),
  };
}

import path from 'node:path';
import { randomUUID } from 'node:crypto';
import { type Clock, systemClock } from './clock.js';
import type { AppConfig } from './config.js';
import type { Logger } from './log.js';
import { Audit, auditJournalFolder } from './audit.js';
import { AgentError, type ContextController, runAgentLoop } from './agent/loop.js';
import { buildInstructions, firstUserMessage, type ProjectAgentsFile } from './agent/prompt.js';
import {
  type LanguageChoice,
  type SummaryShape,
  summaryShapeSection,
  templateFact,
  unnamedSpeakersFact,
} from './agent/summary-shape.js';
import type { RunProgress } from './agent/progress.js';
import { fixedTokens, messagesTokens } from './agent/tokens.js';
import { type ContextRoom, contextRoom, notesForLongTranscript } from './agent/transcript-notes.js';
import { ModelError, type ModelClient } from './agent/types.js';
import { DEFAULT_MAX_RESULT_CHARS } from './tools/format.js';
import { offeredTools, toolOffer } from './tools/offer.js';
import { createToolContext, createToolRegistry } from './tools/registry.js';
import type { RunState } from './tools/types.js';
import { appendToContextBody, createContextNote, readContextState, setContextState } from './vault/context.js';
import { readNote } from './vault/frontmatter.js';
import { isNotFound } from './vault/fs.js';
import {
  BrokenMeetingError,
  findMeetingOfSummary,
  type MeetingArtifacts,
  resolveMeeting,
} from './vault/meeting.js';
import { type FailureDetails, type FailureReportInput, isFailureReportText, renderFailureReport } from './vault/summary.js';
import { resolveTemplate } from './vault/template.js';
import { guessLanguage } from './vault/summary-sections.js';
import { transcriptSpeech, unnamedSpeakers } from './vault/transcript.js';
import type { Vault } from './vault/vault.js';
import { isExpectedError } from './errors.js';

/** One meeting end to end: artifacts -> agent -> summary note or failure report. */

export interface PipelineDeps {
  vault: Vault;
  config: AppConfig;
  log: Logger;
  model: ModelClient;
  /** The clickable retry link for a summary note (vault-relative path). */
  retryUrl(summaryRelPath: string): string;
  /**
   * Builds the context-window manager of one run (compaction); absent means no tracking.
   * The daemon passes one factory so the remote-compaction memory (404 seen) is shared.
   */
  contextManager?: (log: Logger, signal?: AbortSignal) => ContextController & Partial<ContextRoom>;
  /** Where the run's timestamps come from; default the system clock. */
  clock?: Clock;
  /** Waits between retries; tests inject one that does not wait. */
  sleep?: (ms: number, signal?: AbortSignal) => Promise<void>;
  /** Told how each run moves (turns, tokens, transcript parts); the daemon's status page listens. */
  onProgress?: (runId: string, event: RunProgress) => void;
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
}

/** Summarize one meeting, given its meeting note. Never throws for the meeting's own problems. */
export async function summarizeMeeting(
  deps: PipelineDeps,
  meetingPath: string,
  options: RunOptions = {},
): Promise<RunOutcome> {
  const runId = newRunId();
  const log = deps.log.child({ runId, meeting: deps.vault.rel(meetingPath) });
  log.info({ trigger: options.trigger ?? 'cli' }, 'run started');
  return runMeeting(deps, log, runId, meetingPath, undefined, options);
}

/**
 * The retry operation (DESIGN section 2): resolve the meeting from the summary note's
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
  return runMeeting(deps, log, runId, meetingPath, summaryPath, options);
}

function newRunId(): string {
  return randomUUID().slice(0, 8);
}

async function runMeeting(
  deps: PipelineDeps,
  log: Logger,
  runId: string,
  meetingPath: string,
  summaryOverride: string | undefined,
  options: RunOptions,
): Promise<RunOutcome> {
  const { vault } = deps;
  const now = deps.clock ?? systemClock;
  let artifacts: MeetingArtifacts;
  try {
    artifacts = await resolveMeeting(vault, meetingPath);
    if (summaryOverride) artifacts = { ...artifacts, summaryPath: summaryOverride };
  } catch (err) {
    return failBrokenMeeting(deps, log, runId, meetingPath, summaryOverride, err);
  }

  const settings = deps.config.settings;
  const run: RunState = { summaryWritten: false };
  const model = countingRequests(deps.model);
  const audit = new Audit(vault, {
    excluded: [artifacts.summaryPath, artifacts.contextPath],
    journal: auditJournalFolder(vault, artifacts.contextPath),
  });
  let failure: unknown;
  try {
    // A context note still `summarizing` means the last run was killed or aborted: the files it
    // changed are reported with this run's (its audit journal), so no change goes unreported.
    const previousState = await readContextState(vault, artifacts.contextPath).catch(() => undefined);
    const resumed = await audit.resume(previousState === 'summarizing');
    if (resumed > 0) log.info({ files: resumed }, 'the interrupted run\'s changes are reported with this run\'s');
    await createContextNote(vault, artifacts, { state: 'summarizing' });
    const contextNote = await readNote(vault, artifacts.contextPath);
    await setContextState(vault, artifacts.contextPath, 'summarizing', {
      ...(isBlank(contextNote.data.end_time) ? { end_time: artifacts.endTime ?? now().toISOString() } : {}),
    });

    const context = deps.contextManager?.(log, options.signal);
    const room = contextRoom(context, settings.ContextWindow);
    // The server's window, asked now (when the context manager can): the parts are sized by it.
    await room.prepare?.();
    const toolContext = createToolContext({
      vault,
      settings,
      meeting: artifacts,
      audit,
      log,
      run,
      signal: options.signal,
      // A transcript that fits the room is read in one result; the context manager cuts in tokens.
      maxResultChars: Math.max(DEFAULT_MAX_RESULT_CHARS, room.target * 5),
    });
    // Fixed for the whole run: only the tools that can act for this meeting (DESIGN 3.9).
    const offer = await toolOffer(toolContext);
    const start = await conversationStart(deps, artifacts, offer.projects || offer.past);
    const { instructions } = start;
    const tools = createToolRegistry(toolContext, offeredTools(offer));
    log.debug({ tools: tools.schemas.length, ...offer }, 'tools offered');
    const retry = {
      attempts: settings.Reconnect.Attempts,
      delayMs: settings.Reconnect.DelaySeconds * 1000,
      sleep: deps.sleep,
      stopWaiting: options.stopWaiting,
    };
    let { firstMessage } = start;
    const notes = await notesForLongTranscript({
      vault,
      meeting: artifacts,
      model,
      retry,
      log,
      room,
      ...(options.signal ? { signal: options.signal } : {}),
      carried: fixedTokens({ instructions, tools: tools.schemas }) + messagesTokens([{ role: 'user', content: firstMessage }]),
      onPart: (part) => deps.onProgress?.(runId, { kind: 'transcript-part', ...part }),
    });
    if (notes) firstMessage = `${firstMessage}\n\n${notes}`;

    const result = await runAgentLoop({
      model,
      tools,
      instructions,
      firstMessage,
      maxTurns: settings.Agent.MaxTurns,
      maxOutputTokens: settings.ContextWindow.MaxOutputTokens,
      retry,
      context,
      summaryWritten: () => run.summaryWritten,
      log,
      signal: options.signal,
      onProgress: deps.onProgress && ((event) => deps.onProgress!(runId, event)),
      stopWaiting: options.stopWaiting,
    });
    log.info({ turns: result.turns }, 'agent finished');
  } catch (err) {
    failure = err;
  }

  const auditSection = audit.isEmpty ? '' : audit.render(now());
  if (failure === undefined) {
    try {
      await finishContext(deps, artifacts, 'finished', auditSection);
      await forgetJournal(audit, log);
    } catch (err) {
      // The summary is written; only the notebook could not be updated (a person broke its
      // frontmatter meanwhile, say). The journal stays, so a later run still reports the changes.
      log.error({ err, context: vault.rel(artifacts.contextPath) }, 'the summary is written, but the context note could not be updated');
    }
    log.info({ summary: vault.rel(artifacts.summaryPath) }, 'run finished');
    return { runId, status: 'done', meetingPath, summaryPath: artifacts.summaryPath, modelRequests: model.requests };
  }

  const details = failureDetails(failure);
  const aborted = failure instanceof ModelError && failure.kind === 'aborted';
  if (aborted) log.info({ attempts: details.attempts }, 'run stopped (the daemon is stopping)');
  else log.error({ err: failure, ...details }, 'run failed');
  // An aborted run (shutdown) leaves `summarizing` so catch-up resumes the meeting at next start;
  // its audit journal stays, and the resumed run reports these changes with its own (appending
  // them now too would report them twice).
  if (!aborted) {
    try {
      if (!run.summaryWritten) await writeFailureReport(deps, artifacts, details);
      const errorNote = run.summaryWritten
        ? `## Error (${now().toISOString()})\n\nThe summary was written, but the run then failed: ${details.type}` +
          `${details.status ? ` (HTTP ${details.status})` : ''}: ${details.message}`
        : '';
      await finishContext(deps, artifacts, 'error', [auditSection, errorNote].filter(Boolean).join('\n\n'));
      await forgetJournal(audit, log);
    } catch (err) {
      log.error({ err }, 'could not record the failure in the vault');
    }
  }
  return {
    runId,
    status: 'failed',
    meetingPath,
    summaryPath: artifacts.summaryPath,
    error: `${details.type}: ${details.message}`,
    modelRequests: model.requests,
    ...(aborted && { aborted: true }),
  };
}

/** The run's model client, counting the requests it sends (the status page shows them). */
function countingRequests(model: ModelClient): ModelClient & { readonly requests: number } {
  let requests = 0;
  return {
    api: model.api,
    complete: (request) => {
      requests++;
      return model.complete(request);
    },
    get requests() {
      return requests;
    },
  };
}

/** The audit is in the context note: its journal must not be reported again. */
async function forgetJournal(audit: Audit, log: Logger): Promise<void> {
  await audit.clearJournal().catch((err: unknown) => log.warn({ err }, 'could not remove the audit journal'));
}

function isBlank(value: unknown): boolean {
  return value === undefined || value === null || (typeof value === 'string' && value.trim() === '');
}

/** The audit (and any error note) and the final state land in one atomic write of the context note. */
async function finishContext(
  deps: PipelineDeps,
  artifacts: MeetingArtifacts,
  state: 'finished' | 'error',
  appendix: string,
): Promise<void> {
  try {
    await appendToContextBody(deps.vault, artifacts.contextPath, appendix, { state });
  } catch (err) {
    if (!isNotFound(err)) throw err;
    // A person moved or deleted the context note during the run: the final state and the audit
    // go to a new one where the meeting says it is, rather than nowhere (the run ended in an
    // exception and the meeting would have been run again at the next start).
    const body = appendix.trim() === '' ? '' : `${appendix.replace(/\s+$/, '')}\n`;
    await createContextNote(deps.vault, artifacts, { state, body });
  }
}

/**
 * The instructions (the prompt, the summary's shape, the projects' AGENTS.md) and the first
 * user message (the meeting, its unnamed speakers, its template).
 */
async function conversationStart(
  deps: PipelineDeps,
  artifacts: MeetingArtifacts,
  projectTools: boolean,
): Promise<{ instructions: string; firstMessage: string }> {
  const { vault } = deps;
  // Read once for the shape (the language it is spoken in) and the speaker labels; a
  // transcript that cannot be read here fails later, in the agent's own read.
  const transcript = await vault.readIfExists(artifacts.transcriptPath).catch(() => undefined);
  const shape = await summaryShapeOf(deps, artifacts, transcript);
  const instructions = buildInstructions(
    deps.config.settings.Agent.InitialPrompt,
    await readAgentsFiles(deps, artifacts),
    { projectTools, shape: summaryShapeSection(shape) },
  );
  const firstMessage = firstUserMessage({
    meetingNote: vault.rel(artifacts.meetingPath),
    title: artifacts.title,
    startTime: artifacts.startTime,
    endTime: artifacts.endTime,
    attendees: artifacts.attendees,
    projects: artifacts.projects,
    template: templateFact(shape.template),
    speakers: unnamedSpeakersFact(transcript === undefined ? [] : unnamedSpeakers(transcript, artifacts.attendees)),
  });
  return { instructions, firstMessage };
}

/**
 * The summary's shape for this meeting: its `template`, else Agent.DefaultTemplate, else the
 * built-in structure; its `language`, else Agent.Language, else the transcript's (named when
 * its words make it clear). A template that was asked for and cannot be read is a
 * TemplateError: the run fails with a report naming it.
 */
async function summaryShapeOf(deps: PipelineDeps, artifacts: MeetingArtifacts, transcript: string | undefined): Promise<SummaryShape> {
  const { vault } = deps;
  const agent = deps.config.settings.Agent;
  const link = artifacts.template ?? (agent.DefaultTemplate.trim() || undefined);
  const template = link && (await resolveTemplate(vault, link, artifacts.template ? 'meeting' : 'config'));
  const heard = transcript === undefined ? undefined : guessLanguage(transcriptSpeech(transcript));
  const language: LanguageChoice = artifacts.language
    ? { value: artifacts.language, source: 'meeting' }
    : agent.Language.trim()
      ? { value: agent.Language.trim(), source: 'config' }
      : heard
        ? { value: heard, source: 'transcript' }
        : undefined;
  return {
    ...(template ? { template: { name: template.name, rel: vault.rel(template.path), body: template.body } } : {}),
    language,
    taskFormat: agent.TaskFormat,
  };
}

async function readAgentsFiles(deps: PipelineDeps, artifacts: MeetingArtifacts): Promise<ProjectAgentsFile[]> {
  const projectsRoot = deps.config.layout.folders.Projects;
  const files: ProjectAgentsFile[] = [];
  for (const project of artifacts.projects) {
    // Only direct subfolders: a project name is never a path.
    if (!project || project.includes('/') || project.includes('\\') || project === '.' || project === '..') continue;
    const content = await deps.vault.readIfExists(path.join(projectsRoot, project, 'AGENTS.md'));
    if (content !== undefined) files.push({ project, content });
  }
  return files;
}

function failureDetails(err: unknown): FailureDetails {
  if (err instanceof ModelError) {
    return { type: `ModelError (${err.kind})`, status: err.status, message: err.message, attempts: err.attempts };
  }
  if (err instanceof AgentError) return { type: `AgentError (${err.kind})`, message: err.message };
  if (err instanceof Error) return { type: err.name || 'Error', message: err.message };
  return { type: 'Error', message: String(err) };
}

function errorMessage(err: unknown): string {
  return err instanceof Error ? err.message : String(err);
}

/**
 * Write the failure report at the summary path. A file there that is not a failure report
 * (a good summary being retried, a note a person put there) is copied to `.trash/` first.
 */
async function writeFailureReport(
  deps: PipelineDeps,
  input: FailureReportInput,
  details: FailureDetails,
): Promise<void> {
  const { vault } = deps;
  const report = renderFailureReport(vault, input, details, {
    retryUrl: deps.retryUrl(vault.rel(input.summaryPath)),
    failedAt: (deps.clock ?? systemClock)(),
  });
  await vault.replace(input.summaryPath, report, (existing) => !isFailureReportText(existing));
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
  if (summaryPath) {
    try {
      await writeFailureReport(deps, { meetingPath, summaryPath }, details);
    } catch (writeErr) {
      log.error({ err: writeErr }, 'could not write the failure report');
    }
  }
  return { runId, status: 'failed', meetingPath, summaryPath, error: `${details.type}: ${details.message}` };
}

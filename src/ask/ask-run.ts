import { runAgentLoop, type WindowController } from '../agent/loop.js';
import type { ProgressSink } from '../agent/progress.js';
import type { ModelClient } from '../agent/types.js';
import type { Settings } from '../config.js';
import type { Logger } from '../log.js';
import type { McpContext } from '../mcp/tool.js';
import { AskTools } from './ask-tools.js';
import { askFailure } from './failure.js';
import { askFirstMessage, type AskFilters, askInstructions, LOOK_FIRST } from './instructions.js';
import { type AskSource, sourcesOf } from './sources.js';

/**
 * One question to the meetings (docs/design.md §11): an agent run (agent/loop.ts) whose only
 * tools are the four read-only ones of §10, with `Agent.MaxTurns` and the window budget of §3.
 * It writes nothing; the question and the answer reach the log at debug level only.
 */

export interface AskDeps {
  settings: Settings;
  log: Logger;
  model: ModelClient;
  /**
   * The four tools' context (mcp/meeting-tools.ts), built once for the process: its meeting
   * index and search caches serve every question, so a second question reads only what changed.
   */
  meetings: McpContext;
  /** This question's window budget (agent/window/window-budget.ts); absent: no tracking. */
  context?: (log: Logger) => WindowController;
}

export interface AskRequest {
  question: string;
  filters: AskFilters;
  signal?: AbortSignal;
  /** The answer's text as it arrives (streamed requests); absent: one whole answer per request. */
  onText?: (text: string) => void;
}

export interface AskAnswer {
  answer: string;
  sources: AskSource[];
  /** Model requests made. */
  turns: number;
  /** Tool calls made, by name. */
  toolCalls: Record<string, number>;
}

export async function askMeetings(deps: AskDeps, request: AskRequest): Promise<AskAnswer> {
  const { settings, log } = deps;
  const signal = request.signal ?? new AbortController().signal;
  const read: string[] = [];
  const ctx: McpContext = { ...deps.meetings, log, onRead: (rel) => read.push(rel) };
  const tools = new AskTools(ctx, request.filters, signal);
  log.debug({ question: request.question, filters: request.filters }, 'question');
  const started = Date.now();
  try {
    const result = await runAgentLoop({
      model: deps.model,
      tools,
      instructions: askInstructions(settings.Agent.Language),
      firstMessage: askFirstMessage(request.question, request.filters),
      maxTurns: settings.Agent.MaxTurns,
      maxOutputTokens: settings.ContextWindow.MaxOutputTokens,
      maxArgumentBytes: settings.Agent.MaxFileBytes,
      // No wait for an endpoint that does not answer (docs/design.md §2's is for runs): a person is waiting, and is told.
      retry: { attempts: settings.Reconnect.Attempts, delayMs: settings.Reconnect.DelaySeconds * 1000 },
      ...(deps.context ? { context: deps.context(log) } : {}),
      // The run is done once the model answered after looking: no summary to write.
      summaryWritten: () => tools.calls.size > 0,
      summaryReminder: LOOK_FIRST,
      log,
      signal,
      ...(request.onText ? streamByTurn(request.onText) : {}),
    });
    const answer = result.finalText.trim();
    const sources = await sourcesOf(ctx.index, read, answer);
    log.debug({ answer }, 'answer');
    log.info({ turns: result.turns, toolCalls: Object.fromEntries(tools.calls), sources: sources.length, ms: Date.now() - started }, 'question answered');
    return { answer, sources, turns: result.turns, toolCalls: Object.fromEntries(tools.calls) };
  } catch (err) {
    const failure = askFailure(err, settings);
    log.info({ ms: Date.now() - started, error: failure.message }, 'question not answered');
    throw failure;
  }
}

/**
 * Text a model writes before it calls a tool ("let me look that up") streams too: a later
 * turn's text then starts a paragraph of its own rather than running on in the same line.
 */
function streamByTurn(onText: (text: string) => void): { onText: (text: string) => void; onProgress: ProgressSink } {
  let wrote = false;
  let newTurn = false;
  return {
    onText(text) {
      if (newTurn && wrote) onText('\n\n');
      newTurn = false;
      wrote = true;
      onText(text);
    },
    onProgress(event) {
      if (event.kind === 'turn') newTurn = true;
    },
  };
}

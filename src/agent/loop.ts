import type { Logger } from '../log.js';
import { CallGuards } from './call-guards.js';
import type { ProgressSink } from './progress.js';
import { type EndpointGate, withRetry } from './model/retry.js';
import { logTurn } from './turn-line.js';
import { estimateRequestTokens } from './window/tokens.js';
import {
  type Message,
  ModelError,
  type ModelClient,
  type ModelRequest,
  type ModelResponse,
  type ToolCall,
  type ToolExecutor,
  type ToolSchema,
} from './types.js';
import { MeetingAssistantError } from '../errors.js';

export interface LoopConversation {
  instructions: string;
  messages: Message[];
}

/** What the loop needs of the context-window manager (src/agent/window/window-budget.ts). */
export interface WindowController {
  beforeRequest(conv: LoopConversation, tools: ToolSchema[], signal?: AbortSignal): Promise<void>;
  afterResponse(request: ModelRequest, response: ModelResponse): 'ok' | 'truncated';
  /** `cause` is the error that asked for it (a context-length 400 may name the real limit). */
  forceCompact(conv: LoopConversation, tools: ToolSchema[], signal?: AbortSignal, cause?: unknown): Promise<unknown>;
  /** What a request may ask for: less than `MaxOutputTokens` once the server showed a smaller window. */
  readonly maxOutputTokens?: number;
  /** The window that counts now (for progress reports). */
  readonly window?: number;
  /**
   * Shortens a tool result that would not fit the window (with a note on how to read the
   * rest): one whole 3-hour transcript would otherwise be a newest group no compaction can shrink.
   */
  limitToolResult?(content: string, tool: string, calls: number): string;
}

export type AgentErrorKind = 'max-turns' | 'no-summary' | 'unfinished-summary' | 'truncated' | 'no-tool-calls' | 'cut-calls';

/** The agent ended without doing its job (not an endpoint failure: those are ModelErrors). */
export class AgentError extends MeetingAssistantError {
  constructor(
    readonly kind: AgentErrorKind,
    message: string,
  ) {
    super(message, false);
  }
}

export interface AgentLoopOptions {
  model: ModelClient;
  tools: ToolExecutor;
  instructions: string;
  firstMessage: string;
  maxTurns: number;
  maxOutputTokens: number;
  retry: { attempts: number; delayMs: number; sleep?: (ms: number, signal?: AbortSignal) => Promise<void>; endpoint?: EndpointGate | undefined };
  context?: WindowController;
  /** True once the summary note has been written in this run. */
  summaryWritten: () => boolean;
  /** What the model is told, once, when it stops before the summary is written (the meeting's words, not the engine's). */
  summaryReminder: string;
  /**
   * What the written summary still lacks, as the model is told it (undefined: nothing). A run
   * does not end on it: the model is reminded once, and fails when it ends again unchanged.
   */
  summaryIssue?: () => string | undefined;
  log: Logger;
  signal?: AbortSignal;
  /** Told of every turn and, after each response, of the tokens in use. */
  onProgress?: ProgressSink;
  /** Ends a wait between tries at once (the daemon is stopping); see RetryPolicy.stopWaiting. */
  stopWaiting?: AbortSignal;
  /**
   * The phase ends as soon as a response's tool calls leave the summary written with nothing
   * to fix (a project phase follows: docs/design.md §3 step 9), without asking for a closing answer.
   */
  endOnceSummarized?: boolean;
  /** Requests an earlier phase of the run made: they count against `maxTurns`, and turns are numbered on from them. */
  turnsBefore?: number;
  /** Set: every answer is streamed and its visible text handed here as it arrives (ModelRequest.onText). */
  onText?: (text: string) => void;
  /** A call whose arguments are larger is not run (`Agent.MaxFileBytes`; at most call-guards.ts MAX_ARGUMENT_BYTES). */
  maxArgumentBytes?: number;
}

export interface AgentLoopResult {
  /** Requests of the main conversation (retries of one step count once), earlier phases included. */
  turns: number;
  finalText: string;
  conversation: LoopConversation;
}

/** Silent truncation seen this many times in a row means compaction cannot help. */
const MAX_TRUNCATION_RECOVERIES = 3;
/**
 * A call cut by the length limit this many times in a row: asking again will not help (each
 * request a whole output's worth of generation on a local model), the limit must rise.
 */
const MAX_CUT_CALLS = 3;

/** docs/design.md §3 step 11: a call cut by the length limit is never run half. */
export const CUT_CALL_NOTE =
  'Your last answer ended before its tool call was complete (the output length limit cut it), so the call was not run. ' +
  'Make the call again, whole; if its arguments are long, split the work into several smaller calls.';
/** docs/design.md §3 step 11: an answer that is all reasoning is asked for again, once. */
export const ANSWER_NOTE =
  'Your last answer held only reasoning and no answer. Do not think aloud again: answer now, by calling the tools you need or with your reply.';

/**
 * The agent loop (docs/design.md §3 step 3): send the conversation and the tool schemas, run
 * every tool call, send the results, until the model answers without tool calls. Endpoint
 * failures that survive the retry policy propagate as ModelError.
 */
export async function runAgentLoop(options: AgentLoopOptions): Promise<AgentLoopResult> {
  const { tools, log, signal, context } = options;
  const conversation: LoopConversation = {
    instructions: options.instructions,
    messages: [{ role: 'user', content: options.firstMessage }],
  };
  let turns = options.turnsBefore ?? 0;
  const reminded = new Set<string>();
  let overflowRetried = false;
  let truncations = 0;
  let calledTools = false;
  let askedToAnswer = false;
  let cuts = 0;
  const guards = new CallGuards(options.maxArgumentBytes);

  for (;;) {
    if (signal?.aborted) throw new ModelError('the run was aborted', { kind: 'aborted' });
    if (turns >= options.maxTurns) {
      throw new AgentError('max-turns', `the model did not finish within Agent.MaxTurns (${options.maxTurns}) requests`);
    }
    await context?.beforeRequest(conversation, tools.schemas, signal);
    const request: ModelRequest = {
      instructions: conversation.instructions,
      messages: [...conversation.messages],
      tools: tools.schemas,
      maxOutputTokens: context?.maxOutputTokens ?? options.maxOutputTokens,
      signal,
      ...(options.onText ? { onText: options.onText } : {}),
    };
    turns++;
    options.onProgress?.({ kind: 'turn', turn: turns, maxTurns: options.maxTurns });
    let response: ModelResponse;
    const turnStarted = Date.now();
    try {
      response = await sendTurn(options, request, turns);
    } catch (err) {
      if (err instanceof ModelError && err.contextTooLong && context && !overflowRetried) {
        // One more try after compaction (docs/design.md §3 step 4).
        log.warn({ turn: turns, err: err.message }, 'endpoint says the context is too long: compacting and trying once more');
        overflowRetried = true;
        turns--;
        await context.forceCompact(conversation, tools.schemas, signal, err);
        continue;
      }
      throw err;
    }
    overflowRetried = false;

    if (context && context.afterResponse(request, response) === 'truncated') {
      // A server that silently cut the prompt answered about a conversation we did not send:
      // never act on that answer.
      truncations++;
      if (truncations > MAX_TRUNCATION_RECOVERIES) {
        throw new AgentError('truncated', 'the endpoint keeps truncating the prompt even after compaction');
      }
      await context.forceCompact(conversation, tools.schemas, signal);
      continue;
    }
    truncations = 0;
    if (options.onProgress && context?.window) {
      options.onProgress({ kind: 'context', tokens: tokensAfter(request, response), window: context.window });
    }

    if (response.cutCall || (response.finishReason === 'length' && response.toolCalls.length > 0)) {
      logTurn(log, turns, response, Date.now() - turnStarted);
      if (++cuts >= MAX_CUT_CALLS) {
        throw new AgentError(
          'cut-calls',
          `the model's tool call was cut by the output length limit ${cuts} times in a row (${request.maxOutputTokens} tokens): ` +
            'raise ContextWindow.MaxOutputTokens (and the server\'s own output limit, if it sets one), then retry',
        );
      }
      log.warn({ turn: turns, finishReason: response.finishReason }, 'a tool call was cut before its end: not run, the model is asked again');
      pushNote(conversation, response.content, CUT_CALL_NOTE);
      continue;
    }
    cuts = 0;
    if (response.reasoningOnly && !askedToAnswer) {
      logTurn(log, turns, response, Date.now() - turnStarted);
      log.info({ turn: turns }, 'the answer held only reasoning: asking once for the answer');
      askedToAnswer = true;
      pushNote(conversation, response.content, ANSWER_NOTE);
      continue;
    }

    conversation.messages.push({
      role: 'assistant',
      content: response.content,
      ...(response.toolCalls.length > 0 ? { toolCalls: guards.echo(response.toolCalls) } : {}),
    });

    if (response.toolCalls.length > 0) {
      calledTools = true;
      const failed = await runToolCalls(options, conversation, response.toolCalls, guards);
      logTurn(log, turns, response, Date.now() - turnStarted, failed);
      if (options.endOnceSummarized && options.summaryWritten() && options.summaryIssue?.() === undefined) {
        return { turns, finalText: response.content, conversation };
      }
      continue;
    }
    logTurn(log, turns, response, Date.now() - turnStarted);

    const reminder = reminderOnStop(options, reminded, turns, calledTools ? undefined : response.content);
    if (reminder === undefined) return { turns, finalText: response.content, conversation };
    reminded.add(reminder);
    conversation.messages.push({ role: 'user', content: reminder });
  }
}

/**
 * The model answered without tool calls: undefined when the run may end, else what it is told
 * first (once each: the same reminder needed twice fails the run).
 */
function reminderOnStop(options: AgentLoopOptions, reminded: ReadonlySet<string>, turn: number, textOnly: string | undefined): string | undefined {
  if (!options.summaryWritten()) {
    if (reminded.has(options.summaryReminder) && textOnly !== undefined) {
      // docs/design.md §2: many small local models have no tool calling at all.
      throw new AgentError('no-tool-calls', 'the model answered in text without ever calling a tool, even after a reminder');
    }
    if (reminded.has(options.summaryReminder)) throw new AgentError('no-summary', 'the model stopped without writing the summary, even after a reminder');
    options.log.info({ turn }, 'model stopped without write_summary: reminding it once');
    return options.summaryReminder;
  }
  const issue = options.summaryIssue?.();
  if (issue === undefined) return undefined;
  if (reminded.has(issue)) throw new AgentError('unfinished-summary', `the model stopped with a summary still to fix, even after a reminder: ${issue}`);
  options.log.info({ turn }, 'model stopped with a summary still to fix: reminding it');
  return issue;
}

/**
 * The model's answer and what it is told about it. The answer goes in even when it holds no
 * text: the templates of the very models that land here (Gemma's, Mistral's) refuse two user
 * messages in a row.
 */
function pushNote(conversation: LoopConversation, answer: string, note: string): void {
  conversation.messages.push({ role: 'assistant', content: answer !== '' ? answer : NO_TEXT });
  conversation.messages.push({ role: 'user', content: note });
}

/** What stands for an answer that had no text (an empty assistant message is refused by some servers). */
const NO_TEXT = '(no answer)';

/** One request with the retry policy; its outcome logged as `model response`. */
async function sendTurn(options: AgentLoopOptions, request: ModelRequest, turn: number): Promise<ModelResponse> {
  const started = Date.now();
  let attempt = 0;
  const response = await withRetry(
    (n) => {
      attempt = n;
      return options.model.complete(request);
    },
    {
      attempts: options.retry.attempts,
      delayMs: options.retry.delayMs,
      sleep: options.retry.sleep,
      endpoint: options.retry.endpoint,
      log: options.log,
      signal: options.signal,
      stopWaiting: options.stopWaiting,
      label: `turn ${turn}`,
    },
  );
  options.log.debug(
    {
      turn,
      attempt,
      status: 'ok',
      ms: Date.now() - started,
      toolCalls: response.toolCalls.length,
      usage: response.usage,
      finishReason: response.finishReason,
    },
    'model response',
  );
  return response;
}

/** Each call run in order, its result (cut to the context's budget) appended to the conversation. */
async function runToolCalls(options: AgentLoopOptions, conversation: LoopConversation, calls: readonly ToolCall[], guards: CallGuards): Promise<boolean[]> {
  const { tools, context } = options;
  const failed: boolean[] = [];
  for (const call of calls) {
    const result = await guards.run(call, tools);
    failed.push(result.isError);
    const content = context?.limitToolResult ? context.limitToolResult(result.content, call.name, calls.length) : result.content;
    conversation.messages.push({ role: 'tool', toolCallId: call.id, name: call.name, content });
  }
  return failed;
}

/** Tokens in use after a response: the server's own count when it reports one, else our estimate. */
function tokensAfter(request: ModelRequest, response: ModelResponse): number {
  const usage = response.usage;
  if (usage && usage.inputTokens > 0) return usage.inputTokens + usage.outputTokens;
  return estimateRequestTokens(request);
}

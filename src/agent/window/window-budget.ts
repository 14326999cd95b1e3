import type { Settings } from '../../config.js';
import { defaultMaxOutputTokens } from '../../window-defaults.js';
import type { Logger } from '../../log.js';
import { compactLocally, type LocalCompactionReport, summaryPromptTokens } from './compaction.js';
import { contextLimitFrom, promptTokensFrom } from './refusal-limits.js';
import { fitReadResult, keptAfterCollapse } from './read-sizing.js';
import type { RemoteCompactor } from './remote-compaction.js';
import { estimateRequestTokens, fixedTokens, messagesTokens } from './tokens.js';
import { cutAgain, startsWith, truncationSuspicion, windowShownByCut } from './truncation.js';
import type { Conversation, Message, ModelClient, ModelRequest, ModelResponse, ToolSchema } from '../types.js';
import { MeetingAssistantError } from '../../errors.js';

/**
 * Context-window tracking and compaction for one run (docs/design.md §3 step 5).
 *
 * Tokens in use: after a response, its usage (input + output) when the endpoint reports it,
 * else the tokenizer's estimate of the request. Before the next request that figure grows by
 * the estimate of what was appended since (tool results, a reminder), and it is never taken
 * below the estimate of the request about to be sent, so a server that under-reports cannot
 * talk the run into an overflow. Budget = window − output allowance. When the remaining share
 * of the budget falls below `Compaction.Threshold`, the conversation is compacted: remotely
 * when an endpoint offers it, then locally, until the request is back under
 * (1 − Threshold) × budget.
 *
 * The window starts as the smaller of `ContextWindow.Tokens` and what the server says it has
 * (src/agent/window/server-window.ts, asked before the first request), and only shrinks when the
 * server shows it is smaller still: a silently truncated prompt (the reported prompt tokens
 * are what it kept) or a refusal (llama.cpp's 400 and LM Studio's 200 error name `n_ctx`).
 *
 * Silent truncation is judged from the server's own counts, never from how they compare with
 * our tokenizer (a server's tokenizer may count 20-40 % less on other languages, code or
 * numbers, and a false alarm costs an answer): a count that hardly grows, or falls, while the
 * conversation grew, or one far below what the server would keep. One suspicion per run at
 * most: after it, the server's counts are trusted for the rest of the run, except the very
 * count of that cut again when the window it showed was inferred (truncation.ts windowShownByCut).
 */

export { contextLimitFrom } from './refusal-limits.js';
export type { Conversation } from '../types.js';

export interface WindowBudgetOptions {
  settings: Settings['ContextWindow'];
  api: 'chat-completions' | 'responses';
  /** Used by the "summarize older spans" stage (a request without tools). */
  model: ModelClient;
  /** Absent when there is no remote endpoint to ask. */
  remote?: RemoteCompactor;
  log: Logger;
  /**
   * The window the server says it has (undefined: it does not tell), asked once before the
   * first request of the run. Absent: `ContextWindow.Tokens` is used as configured.
   */
  serverWindow?: () => Promise<number | undefined>;
}

export interface CompactionReport extends LocalCompactionReport {
  /** Why compaction ran: the threshold, a silent truncation, or the endpoint's 400. */
  reason: 'threshold' | 'truncation' | 'too-long';
  /** The remote compaction's answer replaced the older messages. */
  remote: boolean;
}

/** The conversation cannot be made to fit the window the server has: the run must fail rather than go on blind. */
export class WindowOverflowError extends MeetingAssistantError {
  constructor(message: string) {
    super(message, false);
  }
}

/** A 400 that names no limit: the retry asks for this share of what was rejected. */
const TOO_LONG_SHRINK = 0.75;
/** A tool result may take this share of the room the conversation has under the target. */
const TOOL_RESULT_SHARE = 0.5;
const MIN_TOOL_RESULT_TOKENS = 256;
/** A read result may fill this share of the room left after collapsing (our estimate may be low). */
const ROOM_SHARE = 0.9;
/** The reply that asked for the result, when the server did not report its size. */
const REPLY_GUESS = 200;
/** Tokenizers disagree by up to a fifth or so; a larger ratio is a cache or a cut, not a scale. */
const MAX_SCALE = 1.4;
/** Usage may say the server counts more than our tokenizer; trust that only up to a point. */
const MIN_SCALE = 0.5;

/** What one request may ask for: MaxOutputTokens (window-defaults.ts), or a quarter of a smaller window the server showed. */
export function outputReserve(window: number, settings: Settings['ContextWindow']): number {
  if (window >= settings.Tokens) return settings.MaxOutputTokens;
  return Math.max(1, Math.min(settings.MaxOutputTokens, Math.floor(window / 4)));
}

/** The request size compaction brings a conversation down to: (1 − Threshold) × (window − output). */
export function compactionTarget(window: number, settings: Settings['ContextWindow']): number {
  return Math.floor((1 - settings.Compaction.Threshold) * (window - outputReserve(window, settings)));
}

/**
 * Advice to size ContextWindow for a server window of `window` tokens that the configuration
 * accepts: Tokens, and MaxOutputTokens too when its value would not be below that Tokens.
 */
export function lowerTokensAdvice(window: number, settings: Settings['ContextWindow']): string {
  const tokens = `lower MeetingAssistant.ContextWindow.Tokens to ${window} or less`;
  if (settings.MaxOutputTokens < window) return tokens;
  return `${tokens} and ContextWindow.MaxOutputTokens below it (${defaultMaxOutputTokens(window)}, a quarter; or leave MaxOutputTokens out, it then follows Tokens)`;
}

export const SERVER_SETTINGS =
  'Ollama: OLLAMA_CONTEXT_LENGTH or "PARAMETER num_ctx" in the Modelfile; llama.cpp: -c (--ctx-size); ' +
  'LM Studio: the model\'s context length; vLLM: --max-model-len';

export class WindowBudget {
  readonly #settings: Settings['ContextWindow'];
  readonly #api: 'chat-completions' | 'responses';
  readonly #model: ModelClient;
  readonly #remote: RemoteCompactor | undefined;
  readonly #log: Logger;
  readonly #serverWindow: (() => Promise<number | undefined>) | undefined;
  #window: number;
  /** The window the server said it has, once asked (it then keeps every prompt up to it). */
  #told: number | undefined;
  #prepared = false;
  /** The last request sent and what the server reported for it. */
  #last: { messages: readonly Message[]; fixed: number; input?: number; output?: number } | undefined;
  /** The last request's server count and our estimate, kept through compaction (truncation.ts sameCountAgain). */
  #counted: { input: number; estimate: number } | undefined;
  /** After one suspicion of truncation, the server's counts are taken as they are. */
  #trusted = false;
  /**
   * When that suspicion only inferred the window (twice what Ollama kept, truncation.ts
   * windowShownByCut): the count it reported. The same count again, for a larger request, is a
   * server that keeps no more than that, and teaches the window once more.
   */
  #watch: number | undefined;
  /** The window the last cut showed, until forceCompact takes it. */
  #truncatedAt: number | undefined;
  #fixed = 0;
  #firstTokens = 0;
  #remoteFallbackLogged = false;
  #lastCompaction: CompactionReport | undefined;

  constructor(options: WindowBudgetOptions) {
    this.#settings = options.settings;
    this.#api = options.api;
    this.#model = options.model;
    this.#remote = options.remote;
    this.#log = options.log;
    this.#serverWindow = options.serverWindow;
    this.#window = options.settings.Tokens;
  }

  /**
   * Asks the server for its window, once per run (beforeRequest does it; a pre-pass that
   * sizes its own requests calls it first). A server that tells nothing leaves the
   * configured window.
   */
  async prepare(): Promise<void> {
    if (this.#prepared) return;
    this.#prepared = true;
    const told = this.#serverWindow ? await this.#serverWindow().catch(() => undefined) : undefined;
    if (told !== undefined && told > 0) {
      this.#told = told;
      this.#window = Math.min(this.#window, told);
    }
    this.#log.info(
      { window: this.#window, configured: this.#settings.Tokens, serverWindow: told, maxOutputTokens: this.maxOutputTokens },
      // Readable at a terminal too, where the fields are not shown.
      `context window ${this.#window} tokens (${told === undefined ? 'as configured: the server does not tell' : `the server has ${told}`}), answers up to ${this.maxOutputTokens}`,
    );
  }

  /** The context window in use: `ContextWindow.Tokens`, or less once the server showed less. */
  get window(): number {
    return this.#window;
  }

  /**
   * What requests should ask for at most: `MaxOutputTokens`, or a quarter of a window the
   * server showed to be smaller than configured.
   */
  get maxOutputTokens(): number {
    return outputReserve(this.#window, this.#settings);
  }

  /** The server showed a smaller window outside the main conversation (a transcript notes request was cut). */
  shrinkWindow(tokens: number): void {
    if (tokens > 0 && tokens < this.#window) this.#window = Math.floor(tokens);
  }

  /** Tokens − MaxOutputTokens (of the window in use). */
  get budget(): number {
    return this.#window - this.maxOutputTokens;
  }

  /** The request size compaction brings a conversation down to: (1 − Threshold) × budget. */
  get target(): number {
    return compactionTarget(this.#window, this.#settings);
  }

  /** Tokens the next request will use, as `beforeRequest` judges it. */
  tokensInUse(conv: Conversation, tools: readonly ToolSchema[]): number {
    const estimate = estimateRequestTokens({ instructions: conv.instructions, messages: conv.messages, tools });
    const last = this.#last;
    if (!last || last.input === undefined || !startsWith(conv.messages, last.messages)) return estimate;
    // The reply is in the output tokens; what came after it is new.
    const appended = conv.messages.slice(last.messages.length).filter((m) => m.role !== 'assistant');
    return Math.max(estimate, last.input + (last.output ?? 0) + messagesTokens(appended));
  }

  /** Before each main request: compacts conv.messages in place when the remaining share of the budget is below Threshold (and Enabled). */
  async beforeRequest(conv: Conversation, tools: ToolSchema[], signal?: AbortSignal): Promise<void> {
    await this.prepare();
    this.#remember(conv, tools);
    if (!this.#settings.Compaction.Enabled) return;
    const tokens = this.tokensInUse(conv, tools);
    if (this.#remaining(tokens) >= this.#settings.Compaction.Threshold) return;
    const report = await this.#compact(conv, tools, tokens, this.target, 'threshold', signal);
    this.#lastCompaction = report;
    if (!report.fits) {
      this.#log.warn(
        { tokens: report.after, target: report.target, budget: this.budget },
        'the conversation is still over the compaction target: the instructions, tool schemas, first message and newest tool results alone are this large',
      );
    }
  }

  /**
   * After each response, with the request that produced it: records usage (or the tokenizer
   * estimate) and logs tokens/budget/remaining ratio. Returns 'truncated' when the server's
   * counts show it did not see the whole prompt (then the loop discards the response, calls
   * forceCompact and sends again); at most once per run.
   */
  afterResponse(request: ModelRequest, response: ModelResponse): 'ok' | 'truncated' {
    const estimate = estimateRequestTokens(request);
    const fixed = fixedTokens(request);
    this.#fixed = fixed;
    const previous = this.#last;
    this.#last = { messages: request.messages, fixed };
    const reported = response.usage && response.usage.inputTokens > 0 ? response.usage : undefined;
    const before = this.#counted;
    this.#counted = reported && { input: reported.inputTokens, estimate };
    let suspicion: string | undefined;
    if (reported && !this.#trusted) {
      suspicion = truncationSuspicion({ request, reported: reported.inputTokens, estimate, fixed, previous, before, told: this.#told }, this.#log);
    } else if (reported && this.#watch !== undefined) {
      suspicion = cutAgain(reported.inputTokens, estimate, this.#watch);
    }
    if (reported && suspicion) {
      this.#last = undefined;
      const shown = windowShownByCut(reported.inputTokens, this.#window, previous?.input);
      this.#truncatedAt = shown.window;
      this.#trusted = true;
      this.#watch = shown.guess ? reported.inputTokens : undefined;
      this.#log.warn(
        { reported: reported.inputTokens, estimated: estimate, window: this.#window, learned: shown.window, why: suspicion },
        `The server reported ${reported.inputTokens} prompt tokens for about ${estimate} sent (${suspicion}): it seems to have silently ` +
          `cut the conversation to fit a smaller context window than ContextWindow.Tokens (${this.#settings.Tokens}). ` +
          `The answer is discarded and the conversation compacted to fit ${shown.window} tokens` +
          (shown.guess ? ` (Ollama's cut of a ${shown.window}-token window keeps ${reported.inputTokens})` : '') +
          '; for the rest of this run the server\'s counts are trusted' +
          (shown.guess ? ` (only the same count of ${reported.inputTokens} again, for a larger request, would show another cut)` : '') +
          `. Raise the server's context length (${SERVER_SETTINGS}), or ${lowerTokensAdvice(shown.window, this.#settings)}.`,
      );
      return 'truncated';
    }
    let tokens = estimate;
    if (reported) {
      this.#last.input = reported.inputTokens;
      this.#last.output = reported.outputTokens;
      tokens = reported.inputTokens + reported.outputTokens;
    }
    const budget = this.budget;
    // debug, not info: at info each turn is one readable line (docs/design.md §2, #22 point 6),
    // and the turn line already says the tokens; this is the window's bookkeeping.
    this.#log.debug(
      { tokens, budget, remaining: round(this.#remaining(tokens)), estimated: estimate, reported: reported !== undefined },
      'context',
    );
    return 'ok';
  }

  /**
   * After a context-too-long 400 or a truncation: compact now so the next request fits (the
   * observed window when truncation was seen). Pass the 400's error as `cause`: when its
   * message names the server's limit, that becomes the window. Throws WindowOverflowError
   * when compaction is disabled or cannot bring the conversation under the target, so that
   * the run fails with a reason instead of sending what cannot fit.
   */
  async forceCompact(conv: Conversation, tools: ToolSchema[], signal?: AbortSignal, cause?: unknown): Promise<void> {
    this.#lastCompaction = await this.#forceCompact(conv, tools, signal, cause);
  }

  /** The last compaction's report: which stages ran, tokens before and after (for tests and status). */
  get lastCompaction(): CompactionReport | undefined {
    return this.#lastCompaction;
  }

  async #forceCompact(conv: Conversation, tools: ToolSchema[], signal?: AbortSignal, cause?: unknown): Promise<CompactionReport> {
    this.#remember(conv, tools);
    const estimate = estimateRequestTokens({ instructions: conv.instructions, messages: conv.messages, tools });
    let reason: CompactionReport['reason'];
    let target: number;
    if (this.#truncatedAt !== undefined) {
      reason = 'truncation';
      this.#window = Math.min(this.#window, this.#truncatedAt);
      this.#truncatedAt = undefined;
      target = this.target;
    } else {
      reason = 'too-long';
      const limit = contextLimitFrom(cause);
      if (limit !== undefined) {
        this.#window = Math.min(this.#window, limit);
        target = this.target;
        // llama.cpp also says how many tokens it counted: compaction then aims in its units.
        const counted = promptTokensFrom(cause);
        if (counted !== undefined && counted > estimate) target = Math.floor((target * estimate) / counted);
      } else {
        // The server refused prompt + output allowance; its window is smaller than that.
        this.#window = Math.min(this.#window, estimate + this.maxOutputTokens);
        target = Math.min(this.target, Math.floor(estimate * TOO_LONG_SHRINK));
      }
    }
    this.#last = undefined;
    if (!this.#settings.Compaction.Enabled) {
      if (estimate <= target) return this.#nothingToDo(reason, estimate, target);
      throw new WindowOverflowError(
        `The conversation (about ${estimate} tokens) does not fit the server's context window (about ${this.#window} tokens) ` +
          `and compaction is disabled (ContextWindow.Compaction.Enabled). Enable it, or raise the server's context length (${SERVER_SETTINGS}).`,
      );
    }
    if (estimate <= target) return this.#nothingToDo(reason, estimate, target);
    const report = await this.#compact(conv, tools, estimate, target, reason, signal);
    // The target leaves headroom under the budget; only a request over the budget itself
    // cannot be sent (report.target is in the estimate's units, hence the ratio).
    const budgetInEstimateUnits = Math.floor(report.target / (1 - this.#settings.Compaction.Threshold));
    if (!report.fits && report.after > budgetInEstimateUnits) {
      throw new WindowOverflowError(
        `The conversation cannot be made to fit the server's context window (about ${this.#window} tokens): after compaction ` +
          `it still needs about ${report.after} tokens for the instructions, the tool schemas, the first message and the newest ` +
          `tool results. Raise the server's context length (${SERVER_SETTINGS}) and ContextWindow.Tokens to match.`,
      );
    }
    return report;
  }

  /**
   * A tool result cut to the room it may take, with a note on how to read the rest: a read
   * keeps as many whole lines as fit and its header names them. Call it on every result before
   * it is appended: one whole 3-hour transcript would otherwise be a most-recent group that no
   * compaction can shrink. `calls` is the number of results answering the same message.
   */
  limitToolResult(content: string, tool: string, calls = 1): string {
    return fitReadResult(content, this.maxToolResultTokens(calls), tool);
  }

  /**
   * The most tokens one of `calls` results answering the same message may take: the room
   * under the compaction target once the instructions, tool schemas, first message and what
   * stays of the conversation when the results already answered are collapsed (compaction's
   * first stage) are counted, in the server's units when its counts are known; at least half
   * the room. At about 3 characters a token this also gives the tools' own per-result limit
   * (maxResultChars).
   */
  maxToolResultTokens(calls = 1): number {
    const last = this.#last;
    // The server's count over our estimate of the last request: the room in our units.
    const estimate = last ? last.fixed + messagesTokens(last.messages) : 0;
    const scale = last?.input !== undefined && estimate > 0 ? Math.min(MAX_SCALE, Math.max(1, last.input / estimate)) : 1;
    const room = Math.max(0, Math.floor(this.target / scale) - this.#fixed - this.#firstTokens);
    // Never less than half the room: a long history is for compaction to condense, not a
    // reason to show a handful of lines.
    const afterCollapse = last ? (room - keptAfterCollapse(last.messages.slice(1)) - (last.output ?? REPLY_GUESS)) * ROOM_SHARE : 0;
    const free = Math.max(room * TOOL_RESULT_SHARE, afterCollapse);
    return Math.max(MIN_TOOL_RESULT_TOKENS, Math.floor(free / Math.max(1, calls)));
  }

  #remember(conv: Conversation, tools: readonly ToolSchema[]): void {
    this.#fixed = fixedTokens({ instructions: conv.instructions, tools });
    const first = conv.messages[0];
    this.#firstTokens = first ? messagesTokens([first]) : 0;
  }

  #remaining(tokens: number): number {
    const budget = this.budget;
    return budget > 0 ? (budget - tokens) / budget : -1;
  }

  #nothingToDo(reason: CompactionReport['reason'], tokens: number, target: number): CompactionReport {
    return { reason, remote: false, before: tokens, after: tokens, target, stages: [], fits: true };
  }

  /**
   * Remote first when there is one, then the local stages while still over. `tokens` may come
   * from usage: the target is scaled to the estimate's units, since compaction measures with
   * the tokenizer.
   */
  async #compact(
    conv: Conversation,
    tools: readonly ToolSchema[],
    tokens: number,
    target: number,
    reason: CompactionReport['reason'],
    signal: AbortSignal | undefined,
  ): Promise<CompactionReport> {
    const estimate = estimateRequestTokens({ instructions: conv.instructions, messages: conv.messages, tools });
    const scale = tokens > estimate ? Math.max(MIN_SCALE, estimate / tokens) : 1;
    const targetEstimate = Math.floor(target * scale);
    this.#log.info({ reason, tokens, estimated: estimate, budget: this.budget, target: targetEstimate }, 'compacting the conversation');
    this.#last = undefined;

    let remote = false;
    if (this.#remote) {
      const compacted = await this.#remote.compact(conv, signal, (why) => this.#remoteFellBack(why));
      if (compacted) {
        if (this.#api === 'chat-completions' && compacted.some((m) => m.role === 'compaction')) {
          // The compactor checks this; a chat request must never carry an opaque item.
          this.#remoteFellBack('the answer holds an opaque compaction item, unusable with chat-completions');
        } else {
          conv.messages.splice(0, conv.messages.length, ...compacted);
          remote = true;
        }
      }
    }
    const budget = this.budget;
    const local = await compactLocally(conv, {
      target: targetEstimate,
      tools,
      log: this.#log,
      model: this.#model,
      maxOutputTokens: this.maxOutputTokens,
      // The summarizing request carries history and asks for an answer: it must fit the window too.
      renderLimit: Math.max(256, Math.floor(budget * 0.9) - summaryPromptTokens()),
      ...(signal ? { signal } : {}),
    });
    const report: CompactionReport = { ...local, before: estimate, reason, remote };
    this.#log.info(
      { reason, remote, before: estimate, after: report.after, target: targetEstimate, stages: report.stages.map((s) => s.stage) },
      'compaction done',
    );
    return report;
  }

  #remoteFellBack(reason: string): void {
    this.#log[this.#remoteFallbackLogged ? 'debug' : 'warn']({ reason }, 'remote compaction not used: compacting locally');
    this.#remoteFallbackLogged = true;
  }
}

function round(n: number): number {
  return Math.round(n * 1000) / 1000;
}

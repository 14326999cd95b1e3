import type { Logger } from '../../log.js';
import { countTokens, fixedTokens, MESSAGE_OVERHEAD, messageTokens, messagesTokens, truncateToTokens } from './tokens.js';
import { callsById, groupMessages, type Group } from './message-groups.js';
import type { Conversation, Message, ModelClient, ToolCall, ToolSchema } from '../types.js';
import { MeetingAssistantError } from '../../errors.js';

/**
 * Local compaction (docs/design.md §3 step 5b): stages that each shrink the conversation a
 * little more than the one before, run in order and only while the request is still over
 * the target. Invariants every stage keeps, so that both wire APIs accept the result:
 * - `messages[0]` (the first user message) is never touched, and the instructions live
 *   outside the messages;
 * - a group (an assistant message with tool calls and all their results) is kept or dropped
 *   whole, and no result outlives its call;
 * - the most recent group is always kept.
 */

export type StageName =
  | 'collapse-tool-results'
  | 'summarize-older'
  | 'keep-last-user-turns'
  | 'drop-oldest-groups'
  | 'shorten-recent-results';

/** The stages in the order they run. The last one is ours, beyond the design's four: see `shortenRecentResults`. */
export const STAGES: readonly StageName[] = [
  'collapse-tool-results',
  'summarize-older',
  'keep-last-user-turns',
  'drop-oldest-groups',
  'shorten-recent-results',
];

export interface StageReport {
  stage: StageName;
  before: number;
  after: number;
  /** Why the stage changed nothing it tried to change (the summary call failed and was undone). */
  undone?: string;
}

export interface LocalCompactionReport {
  before: number;
  after: number;
  target: number;
  /** The stages that ran, in order; a stage runs only while the request is over the target. */
  stages: StageReport[];
  fits: boolean;
}

export interface StageInput {
  /** Tokens (estimate) the whole request must come down to. */
  target: number;
  /** Instructions, tool schemas and reply priming: what compaction cannot change. */
  fixed: number;
  log: Logger;
  /** For `summarize-older`; without it the stage is skipped. */
  model?: ModelClient;
  /** The output allowance of the summarizing request. */
  maxOutputTokens: number;
  /** Tokens of conversation text the summarizing request may carry (it must fit the window too). */
  renderLimit: number;
  /** How long the summary that replaces the older messages may be. */
  summaryTokens: number;
  signal?: AbortSignal;
}

export type Stage = (messages: Message[], ctx: StageInput) => Promise<Message[]>;

/** Marks the message that stands in for summarized history; later stages keep it pinned. */
export const SUMMARY_HEADER = '[Summary of the earlier part of this conversation, condensed to save context]';
const PLACEHOLDER_PREFIX = '[Result of ';
/** The most a read result is shortened to, so that it still says something. */
const MIN_RESULT_TOKENS = 200;
/** Room kept for the note that says how to read the rest. */
const NOTE_TOKENS = 80;
const ARGS_IN_PLACEHOLDER = 160;
/** Design: keep only the last four user turns. */
const USER_TURNS_KEPT = 4;

export const COMPACTION_PROMPT = `You condense the history of an assistant that is summarizing a meeting with tools, so that it can go on working with less context.
You get the older part of its conversation as text. Write a compact account that keeps everything needed to finish the job:
- what was read already (which notes and files, which line ranges of the transcript) and what is still unread;
- the content learned so far: topics discussed, decisions, action items with their owners and dates, names and their correct spelling, open questions;
- what was already written (summary, notebook, project files, attendees, dictionary) and what remains to do.
Be factual and terse; use short bullet points; do not invent anything; do not call tools; no preamble.`;

/** Total request tokens of `messages` under the context's fixed part. */
function measure(messages: readonly Message[], ctx: Pick<StageInput, 'fixed'>): number {
  return ctx.fixed + messagesTokens(messages);
}

function isSummary(message: Message): boolean {
  return message.role === 'user' && message.content.startsWith(SUMMARY_HEADER);
}

/** History that stands for older messages: our summaries and remote compaction items. */
function isPinned(message: Message): boolean {
  return message.role === 'compaction' || isSummary(message);
}

function clip(text: string, max: number): string {
  const flat = text.replace(/\s+/g, ' ').trim();
  return flat.length > max ? `${flat.slice(0, max)}…` : flat;
}

// ---------------------------------------------------------------------------------------------
// Stage 1: collapse old tool results

/** The one line an old tool result becomes: which tool, with which arguments, how big it was. */
export function collapsedResult(name: string, args: string | undefined, tokens: number): string {
  const shown = args === undefined ? '' : clip(args, ARGS_IN_PLACEHOLDER);
  return `${PLACEHOLDER_PREFIX}${name}(${shown}) removed to save context (it was ${tokens} tokens); call the tool again if you need it.]`;
}

/** Replaces the results of old tool calls, oldest first, by one-line placeholders until the request fits. */
export const collapseToolResults: Stage = async (messages, ctx) => {
  const groups = groupMessages(messages);
  const protectedFrom = groups.at(-1)?.start ?? messages.length;
  const calls = callsById(messages);
  const out = messages.slice();
  let total = measure(out, ctx);
  for (let i = 1; i < protectedFrom && total > ctx.target; i++) {
    const message = out[i]!;
    if (message.role !== 'tool' || message.content.startsWith(PLACEHOLDER_PREFIX)) continue;
    const before = messageTokens(message);
    const replaced: Message = {
      ...message,
      content: collapsedResult(message.name, calls.get(message.toolCallId)?.arguments, before - MESSAGE_OVERHEAD),
    };
    const after = messageTokens(replaced);
    if (after >= before) continue;
    out[i] = replaced;
    total -= before - after;
  }
  return out;
};

// ---------------------------------------------------------------------------------------------
// Stage 2: summarize the older part with the model

/** One line per message, as the summarizing model reads the history. */
function renderMessage(message: Message, calls: Map<string, ToolCall>): string {
  switch (message.role) {
    case 'user':
      return `User: ${message.content}`;
    case 'assistant': {
      const lines = message.content.trim() ? [`Assistant: ${message.content}`] : [];
      for (const call of message.toolCalls ?? []) lines.push(`Assistant called ${call.name}(${call.arguments})`);
      return lines.join('\n');
    }
    case 'tool': {
      const call = calls.get(message.toolCallId);
      return `Result of ${message.name}${call ? `(${clip(call.arguments, ARGS_IN_PLACEHOLDER)})` : ''}:\n${message.content}`;
    }
    case 'compaction':
      return '';
  }
}

/**
 * The history as text within `limit` tokens: when it is longer, every message is cut to the
 * same largest length that fits (short messages stay whole), so no part of the history is
 * silently dropped.
 */
export function renderHistory(messages: readonly Message[], limit: number): string {
  const calls = callsById(messages);
  const parts = messages.map((m) => renderMessage(m, calls)).filter((p) => p !== '');
  const sizes = parts.map(countTokens);
  const separators = parts.length * 2;
  const total = sizes.reduce((a, b) => a + b, 0) + separators;
  if (total <= limit) return parts.join('\n\n');
  // Water-filling: the largest cap c with sum(min(size, c)) within the limit.
  const room = Math.max(0, limit - separators - parts.length * 4);
  let lo = 0;
  let hi = Math.max(...sizes, 0);
  while (lo < hi) {
    const mid = Math.ceil((lo + hi) / 2);
    const used = sizes.reduce((a, s) => a + Math.min(s, mid), 0);
    if (used <= room) lo = mid;
    else hi = mid - 1;
  }
  const cap = lo;
  return parts
    .map((part, i) => (sizes[i]! > cap ? `${truncateToTokens(part, cap)} …[cut]` : part))
    .join('\n\n');
}

/**
 * Replaces the older messages (all but the most recent groups that fit in half the room left)
 * with one summary written by the model. When the call fails or does not help, the messages
 * are left as they were and the next stage goes on.
 */
export const summarizeOlder: Stage = async (messages, ctx) => {
  if (!ctx.model) return messages;
  const groups = groupMessages(messages);
  if (groups.length < 2) return messages;
  const first = messages[0];
  const firstTokens = first ? messageTokens(first) : 0;
  const tailRoom = Math.max(0, (ctx.target - ctx.fixed - firstTokens - ctx.summaryTokens) / 2);
  let tailStart = groups.length - 1;
  let tailTokens = groupTokens(messages, groups[tailStart]!);
  while (tailStart > 1) {
    const size = groupTokens(messages, groups[tailStart - 1]!);
    if (tailTokens + size > tailRoom) break;
    tailTokens += size;
    tailStart--;
  }
  const olderEnd = groups[tailStart]!.start;
  const older = messages.slice(1, olderEnd);
  const pinned = older.filter((m) => m.role === 'compaction');
  const span = older.filter((m) => m.role !== 'compaction');
  if (span.length === 0 || messagesTokens(span) <= ctx.summaryTokens + MESSAGE_OVERHEAD) return messages;

  const words = Math.max(50, Math.floor(ctx.summaryTokens * 0.7));
  let content: string;
  try {
    const response = await ctx.model.complete({
      instructions: COMPACTION_PROMPT,
      messages: [
        {
          role: 'user',
          content: `Condense this history in at most ${words} words.\n\n${renderHistory(span, ctx.renderLimit)}`,
        },
      ],
      tools: [],
      maxOutputTokens: ctx.maxOutputTokens,
      ...(ctx.signal ? { signal: ctx.signal } : {}),
    });
    content = response.toolCalls.length > 0 ? '' : response.content.trim();
  } catch (err) {
    if (ctx.signal?.aborted) throw err;
    throw new StageUndone(`the summarizing request failed: ${err instanceof Error ? err.message : String(err)}`);
  }
  if (!content) throw new StageUndone('the model answered the summarizing request without text');
  const summary: Message = {
    role: 'user',
    content: `${SUMMARY_HEADER}\n${truncateToTokens(content, ctx.summaryTokens)}`,
  };
  const out = [...(first ? [first] : []), ...pinned, summary, ...messages.slice(olderEnd)];
  if (messagesTokens(out) >= messagesTokens(messages)) throw new StageUndone('the summary was not shorter than the history');
  return out;
};

function groupTokens(messages: readonly Message[], group: Group): number {
  return messagesTokens(messages.slice(group.start, group.end));
}

/** A stage that gave up and left the conversation as it was; the reason is logged and reported. */
export class StageUndone extends MeetingAssistantError {
  constructor(reason: string) {
    super(reason, false);
  }
}

// ---------------------------------------------------------------------------------------------
// Stage 3: keep only the last four user turns

/**
 * A user turn is what the model got back in one round: a user message, or the results of one
 * assistant message's tool calls (in an agent run nearly every turn is the latter). The cut
 * falls at the start of the group holding the fourth-last turn; summaries and remote
 * compaction items before it are kept, since they stand for the history already condensed.
 */
export const keepLastUserTurns: Stage = async (messages) => {
  const groups = groupMessages(messages);
  const turns = groups.filter((g) => {
    const head = messages[g.start]!;
    if (isPinned(head)) return false;
    return head.role === 'user' || (head.role === 'assistant' && (head.toolCalls?.length ?? 0) > 0);
  });
  if (turns.length <= USER_TURNS_KEPT) return messages;
  const cut = turns[turns.length - USER_TURNS_KEPT]!.start;
  const pinned = messages.slice(1, cut).filter(isPinned);
  return [...messages.slice(0, 1), ...pinned, ...messages.slice(cut)];
};

// ---------------------------------------------------------------------------------------------
// Stage 4: drop the oldest groups

/** Drops whole groups, oldest first (summaries included), until the request fits; never the most recent group. */
export const dropOldestGroups: Stage = async (messages, ctx) => {
  const groups = groupMessages(messages);
  let total = measure(messages, ctx);
  let dropped = 0;
  while (dropped < groups.length - 1 && total > ctx.target) {
    total -= groupTokens(messages, groups[dropped]!);
    dropped++;
  }
  if (dropped === 0) return messages;
  return [...messages.slice(0, 1), ...messages.slice(groups[dropped]!.start)];
};

// ---------------------------------------------------------------------------------------------
// Stage 5: shorten the results that are left

/**
 * Beyond the design's four stages: when the first message and the most recent group alone
 * are over the target (one enormous tool result), no request could ever fit, so the results
 * still there are cut, largest first, each ending with a note on how to read the rest. The
 * group stays whole; only its text shrinks.
 */
export const shortenRecentResults: Stage = async (messages, ctx) => {
  let excess = measure(messages, ctx) - ctx.target;
  if (excess <= 0) return messages;
  const out = messages.slice();
  const order = out
    .map((m, i) => ({ i, m }))
    .filter(({ i, m }) => i > 0 && m.role === 'tool')
    .sort((a, b) => messageTokens(b.m) - messageTokens(a.m));
  for (const { i, m } of order) {
    if (excess <= 0 || m.role !== 'tool') break;
    const tokens = messageTokens(m) - MESSAGE_OVERHEAD;
    const keep = Math.max(MIN_RESULT_TOKENS, tokens - excess);
    if (keep >= tokens) continue;
    const shortened: Message = { ...m, content: shortenToolResult(m.content, keep, m.name) };
    const saved = messageTokens(m) - messageTokens(shortened);
    if (saved <= 0) continue;
    out[i] = shortened;
    excess -= saved;
  }
  return out;
};

/**
 * A tool result cut to about `maxTokens`, at a line boundary, with a note saying what was
 * left out and how to read it: read results (`cat -n` lines) name the next line to ask for.
 */
export function shortenToolResult(content: string, maxTokens: number, tool: string): string {
  const total = countTokens(content);
  if (total <= maxTokens) return content;
  let kept = truncateToTokens(content, Math.max(1, maxTokens - NOTE_TOKENS));
  const lastBreak = kept.lastIndexOf('\n');
  if (lastBreak > kept.length / 2) kept = kept.slice(0, lastBreak);
  const header = /\(lines (\d+)-(\d+) of (\d+)\)/.exec(content.split('\n', 1)[0] ?? '');
  let lastLine: number | undefined;
  const numbered = /^\s*(\d+)\t/gm;
  for (let match = numbered.exec(kept); match; match = numbered.exec(kept)) lastLine = Number(match[1]);
  let note = `[Result shortened to fit the context window: it was ${total} tokens.`;
  if (lastLine !== undefined) {
    const of = header ? ` of ${header[3]}` : '';
    note += ` Shown up to line ${lastLine}${of}. Read the rest with ${tool} in smaller ranges, starting with from: ${lastLine + 1}, to: ${lastLine + 100}.]`;
  } else {
    note += ' Ask for less at a time (a narrower range or query).]';
  }
  return `${kept}\n${note}`;
}

// ---------------------------------------------------------------------------------------------
// The stages together

const STAGE_FUNCTIONS: Record<StageName, Stage> = {
  'collapse-tool-results': collapseToolResults,
  'summarize-older': summarizeOlder,
  'keep-last-user-turns': keepLastUserTurns,
  'drop-oldest-groups': dropOldestGroups,
  'shorten-recent-results': shortenRecentResults,
};

export interface LocalCompactionOptions {
  /** Tokens (estimate) the whole request must come down to. */
  target: number;
  tools: readonly ToolSchema[];
  log: Logger;
  /** For the summarizing stage; without it that stage changes nothing. */
  model?: ModelClient;
  /** Output allowance of the summarizing request (default 1024). */
  maxOutputTokens?: number;
  /** Tokens of history the summarizing request may carry (default: what fits the target). */
  renderLimit?: number;
  /** Length of the summary that replaces older messages (default: a quarter of the room left). */
  summaryTokens?: number;
  signal?: AbortSignal;
  /** Only these stages (tests); all of them by default. */
  stages?: readonly StageName[];
}

let summaryPromptCount: number | undefined;

/**
 * Tokens of the summarizing request around the history it carries. Counted on first use, not
 * at load: the tokenizer's table is loaded only when a run needs it.
 */
export function summaryPromptTokens(): number {
  return (summaryPromptCount ??= countTokens(COMPACTION_PROMPT) + 3 * MESSAGE_OVERHEAD + 16);
}

/** The stage context with the defaults filled in. */
export function stageContext(conv: Pick<Conversation, 'instructions'>, options: LocalCompactionOptions): StageInput {
  const fixed = fixedTokens({ instructions: conv.instructions, tools: options.tools });
  const room = Math.max(0, options.target - fixed);
  return {
    target: options.target,
    fixed,
    log: options.log,
    ...(options.model ? { model: options.model } : {}),
    maxOutputTokens: options.maxOutputTokens ?? 1024,
    renderLimit: options.renderLimit ?? Math.max(256, options.target - summaryPromptTokens()),
    summaryTokens: options.summaryTokens ?? Math.min(2048, Math.max(128, Math.floor(room / 4))),
    ...(options.signal ? { signal: options.signal } : {}),
  };
}

/**
 * Runs the stages in order, each only while the request is over `target`, and replaces
 * `conv.messages` in place with the result. Logs one line per stage with the tokens before
 * and after.
 */
export async function compactLocally(conv: Conversation, options: LocalCompactionOptions): Promise<LocalCompactionReport> {
  const ctx = stageContext(conv, options);
  let messages = conv.messages.slice();
  const before = measure(messages, ctx);
  const stages: StageReport[] = [];
  let total = before;
  for (const stage of options.stages ?? STAGES) {
    if (total <= ctx.target) break;
    const report: StageReport = { stage, before: total, after: total };
    try {
      messages = await STAGE_FUNCTIONS[stage](messages, ctx);
    } catch (err) {
      if (!(err instanceof StageUndone)) throw err;
      report.undone = err.message;
    }
    total = measure(messages, ctx);
    report.after = total;
    stages.push(report);
    ctx.log.info(
      { stage, before: report.before, after: report.after, ...(report.undone ? { undone: report.undone } : {}) },
      'compaction stage',
    );
    if (report.undone) ctx.log.warn({ stage, reason: report.undone }, 'compaction stage undone: going on with the next one');
  }
  conv.messages.splice(0, conv.messages.length, ...messages);
  return { before, after: total, target: ctx.target, stages, fits: total <= ctx.target };
}

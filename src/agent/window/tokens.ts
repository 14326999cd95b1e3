import { createRequire } from 'node:module';
import type * as Cl100k from 'gpt-tokenizer/encoding/cl100k_base';
import type { Message, ToolSchema } from '../types.js';
import { unloadPackage } from '../../loaded-packages.js';

// The encoding-specific entry (one BPE table, about a third of o200k_base's load time), loaded
// on first use: the table is some 35 MB of an idle daemon's memory otherwise, and a daemon
// that waits for meetings does not need it until the first one.
const requireCjs = createRequire(import.meta.url);
let bpe: typeof Cl100k | undefined;
function tokenizer(): typeof Cl100k {
  return (bpe ??= requireCjs('gpt-tokenizer/encoding/cl100k_base') as typeof Cl100k);
}

/**
 * Token counting for the context budget (docs/design.md §3 step 5).
 *
 * Encoding: cl100k_base. The default endpoints are local models whose vocabularies grew out of
 * it (Qwen 2/3, Llama 3), so it counts close to what they count; for OpenAI's o200k models
 * it counts English the same or slightly higher, which errs on the safe side of the budget.
 * Exactness is not the point: when the endpoint reports usage, that wins.
 *
 * The estimate mirrors how chat templates render a request: every message costs its text plus
 * a few tokens of framing (role, start and end markers), tool calls cost their name and
 * argument text, tool schemas cost their JSON, and the reply is primed with a few tokens.
 */

/** Framing of one message in a chat template (`<|im_start|>role\n … <|im_end|>\n`). */
export const MESSAGE_OVERHEAD = 5;
/** Framing of one tool call inside an assistant message (`<tool_call>{"name": …, "arguments": …}</tool_call>`). */
export const TOOL_CALL_OVERHEAD = 16;
/** Framing of one tool result (`<tool_response>…</tool_response>`, or the call id). */
export const TOOL_RESULT_OVERHEAD = 8;
/** Framing of one tool schema in the tools section. */
export const TOOL_SCHEMA_OVERHEAD = 4;
/** The text templates put around the tool schemas (how to call them). */
export const TOOLS_PREAMBLE = 100;
/** The assistant header that primes the reply. */
export const REPLY_PRIMING = 3;
/**
 * Opaque compaction items are encrypted: their text says nothing about the tokens the
 * server restores from them. A quarter of the characters is a deliberately pessimistic guess;
 * the next response's usage corrects it.
 */
export const ENCRYPTED_CHARS_PER_TOKEN = 4;

// Text must never be read as control tokens: a transcript may contain `<|endoftext|>`.
const AS_TEXT = { disallowedSpecial: new Set<string>() };

/**
 * Byte-pair merging is quadratic in the length of one pre-token: a run of 200,000 characters
 * without a space (a small model repeating one character, hostile tool arguments, a pasted
 * blob) took half a minute and blocked the daemon. A run is encoded in slices of this
 * length; a cut costs at most a token, which the estimate can afford.
 */
const SLICE = 256;
/**
 * No piece handed to the tokenizer is much longer than this, cut where a space starts: its
 * pre-tokenizer regex overflowed the stack on a line of 6,000,000 characters (issue #24), and
 * finding the runs with a regex of our own did too. One linear scan, no regex.
 */
const MAX_PIECE = 16 * 1024;

/** Whitespace as the tokenizer's pre-tokenizer splits on it (`\s`). */
function isSpace(c: number): boolean {
  return (
    c === 32 || (c >= 9 && c <= 13) || c === 0xa0 || c === 0x1680 || (c >= 0x2000 && c <= 0x200a) ||
    c === 0x2028 || c === 0x2029 || c === 0x202f || c === 0x205f || c === 0x3000 || c === 0xfeff
  );
}

/** `text` as pieces that are each cheap to encode and together are `text`. */
export function pieces(text: string): string[] {
  if (text.length < 2 * SLICE) return [text];
  const out: string[] = [];
  let start = 0;
  let runStart = -1;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (isSpace(c)) {
      runStart = -1;
      // The space begins the next piece: it belongs to the word after it, as the tokenizer sees it.
      if (i - start >= MAX_PIECE) {
        out.push(text.slice(start, i));
        start = i;
      }
      continue;
    }
    if (runStart < 0) runStart = i;
    // Never between the two halves of a surrogate pair.
    if (i + 1 - runStart >= SLICE && !(c >= 0xd800 && c <= 0xdbff)) {
      out.push(text.slice(start, i + 1));
      start = i + 1;
      runStart = i + 1;
    }
  }
  if (start < text.length) out.push(text.slice(start));
  return out;
}

/**
 * Long texts are counted again and again: the instructions every turn, a tool result when it
 * is shortened and then estimated. The most recent ones are remembered.
 */
const LONG_TEXT = 1000;
const longCounts = new Map<string, number>();
const LONG_CACHE_SIZE = 16;

export function countTokens(text: string): number {
  if (text === '') return 0;
  const long = text.length >= LONG_TEXT;
  if (long) {
    const cached = longCounts.get(text);
    if (cached !== undefined) return cached;
  }
  const { countTokens: bpeCount } = tokenizer();
  let n = 0;
  for (const piece of pieces(text)) n += bpeCount(piece, AS_TEXT);
  if (long) {
    if (longCounts.size >= LONG_CACHE_SIZE) longCounts.delete(longCounts.keys().next().value!);
    longCounts.set(text, n);
  }
  return n;
}

/** The first `max` tokens of `text` (the whole text when it is shorter). */
export function truncateToTokens(text: string, max: number): string {
  if (max <= 0) return '';
  const { encode, decode } = tokenizer();
  const tokens: number[] = [];
  for (const piece of pieces(text)) {
    for (const token of encode(piece, AS_TEXT)) tokens.push(token);
    if (tokens.length > max) break;
  }
  if (tokens.length <= max) return text;
  return decode(tokens.slice(0, max));
}

// Messages are treated as immutable values (compaction replaces them, never edits them), so
// their counts are remembered per object: an estimate per turn then tokenizes only what is new.
const messageCounts = new WeakMap<Message, number>();
const schemaCounts = new WeakMap<ToolSchema, number>();

/** Tokens one message adds to a request, framing included. */
export function messageTokens(message: Message): number {
  const cached = messageCounts.get(message);
  if (cached !== undefined) return cached;
  let n = MESSAGE_OVERHEAD;
  switch (message.role) {
    case 'user':
      n += countTokens(message.content);
      break;
    case 'assistant':
      n += countTokens(message.content);
      for (const call of message.toolCalls ?? []) {
        n += TOOL_CALL_OVERHEAD + countTokens(call.name) + countTokens(call.arguments);
      }
      break;
    case 'tool':
      n += TOOL_RESULT_OVERHEAD + countTokens(message.content);
      break;
    case 'compaction':
      n += Math.ceil(message.encryptedContent.length / ENCRYPTED_CHARS_PER_TOKEN);
      break;
  }
  messageCounts.set(message, n);
  return n;
}

export function messagesTokens(messages: readonly Message[]): number {
  let n = 0;
  for (const message of messages) n += messageTokens(message);
  return n;
}

/** Tokens of the tool schemas as a template renders them: the function definitions as JSON. */
export function toolsTokens(tools: readonly ToolSchema[]): number {
  let n = tools.length > 0 ? TOOLS_PREAMBLE : 0;
  for (const tool of tools) {
    let count = schemaCounts.get(tool);
    if (count === undefined) {
      count =
        TOOL_SCHEMA_OVERHEAD +
        countTokens(
          JSON.stringify({
            type: 'function',
            function: { name: tool.name, description: tool.description, parameters: tool.parameters },
          }),
        );
      schemaCounts.set(tool, count);
    }
    n += count;
  }
  return n;
}

/** The system instructions (long ones, the few distinct prompts of a daemon, are remembered by countTokens). */
export function instructionsTokens(instructions: string): number {
  return MESSAGE_OVERHEAD + countTokens(instructions);
}

/** What does not change while a run compacts: instructions, tool schemas and the reply priming. */
export function fixedTokens(request: { instructions: string; tools: readonly ToolSchema[] }): number {
  return instructionsTokens(request.instructions) + toolsTokens(request.tools) + REPLY_PRIMING;
}

/** The size of a request as the model will see it: instructions, messages, tool calls and results, tool schemas. */
export function estimateRequestTokens(request: {
  instructions: string;
  messages: readonly Message[];
  tools: readonly ToolSchema[];
}): number {
  return fixedTokens(request) + messagesTokens(request.messages);
}

/**
 * Let go of the BPE table and the remembered long counts (the idle release of the caches'
 * owner, tools/binding/run-caches.ts: docs/design.md §8): some 35 MB an idle daemon does not need.
 * The next count loads the table again (loaded-packages.ts).
 */
export function releaseTokenizer(): void {
  longCounts.clear();
  if (!bpe) return;
  bpe = undefined;
  unloadPackage(requireCjs, 'gpt-tokenizer');
}

/** True while the BPE table is loaded (tests of the release). */
export function tokenizerLoaded(): boolean {
  return bpe !== undefined;
}

import { normalizeArguments } from './call-arguments.js';
import { type CallIds } from '../exchange.js';
import { stripThinking } from './strip-thinking.js';
import { readTextCalls } from './text-calls.js';
import type { ModelResponse, ToolCall, ToolSchema } from '../../types.js';

/**
 * What both wire clients make of an answer's text and calls (docs/design.md §3 step 11): the
 * structured calls with their arguments mended, or, when there are none, the calls written as
 * text in the content (text-calls.ts); ids invented where missing, so that the results pair up;
 * the visible text without thinking. A structured answer with well-formed calls comes out as
 * it went in.
 */

export interface RawCall {
  id: string | undefined;
  name: unknown;
  arguments: unknown;
}

export type SettledAnswer = Pick<ModelResponse, 'content' | 'toolCalls' | 'cutCall' | 'reasoningOnly' | 'callsAsText'>;

/**
 * `reasoned`: the answer carried reasoning outside its content (`reasoning_content`,
 * `reasoning`, `thinking`, a Responses `reasoning` item), never read as text.
 */
export function settleAnswer(rawContent: string, rawCalls: readonly RawCall[], tools: readonly ToolSchema[], ids: CallIds, reasoned: boolean): SettledAnswer {
  let content: string;
  let found: { id: string | undefined; name: string; arguments: string }[];
  let cut = false;
  let shape: string | undefined;
  if (rawCalls.length > 0) {
    content = stripThinking(rawContent);
    // An object left open is passed on as sent: the tool's error says so. Only the finish
    // reason tells a cut (the loop never runs calls of a `length` answer).
    found = rawCalls.map((call) => ({ id: call.id, name: typeof call.name === 'string' ? call.name : '', arguments: normalizeArguments(call.arguments).text }));
  } else {
    const read = readTextCalls(rawContent, tools);
    content = read.content;
    found = read.calls.map((call) => ({ id: call.id, name: call.name, arguments: call.arguments }));
    cut = read.cut;
    shape = read.shape;
  }
  const assigned = rawCalls.length > 0 ? ids.assign(found.map((call) => call.id)) : ids.assignText(found.map((call) => call.id));
  const toolCalls: ToolCall[] = found.map((call, i) => ({ id: assigned[i]!, name: call.name, arguments: call.arguments }));
  const settled: SettledAnswer = { content, toolCalls };
  if (rawCalls.length === 0 && toolCalls.length > 0) settled.callsAsText = shape ?? 'text';
  if (cut) settled.cutCall = true;
  else if (content === '' && toolCalls.length === 0 && (reasoned || rawContent.trim() !== '')) settled.reasoningOnly = true;
  return settled;
}

/** Whether a chat message carries reasoning in one of the fields servers use for it. */
export function hasReasoningField(message: Record<string, unknown>): boolean {
  return ['reasoning_content', 'reasoning', 'thinking'].some((key) => {
    const value = message[key];
    return (typeof value === 'string' && value.trim() !== '') || (typeof value === 'object' && value !== null);
  });
}

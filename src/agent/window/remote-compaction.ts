import type OpenAI from 'openai';
import type { Settings } from '../../config.js';
import type { Logger } from '../../log.js';
import { conversationProblems, groupMessages } from './message-groups.js';
import { responsesRequestBody } from '../model/responses.js';
import { type Conversation, type Message, ModelError, type ToolCall } from '../types.js';
import { exchange, type ExchangeCall, isObject, type JsonObject, requestOptions } from '../model/exchange.js';

/**
 * Remote compaction (docs/design.md §3 step 5a): the conversation is posted to
 * `BaseUrl + ContextWindow.Compaction.CompactPath` in the Responses-API request shape
 * (OpenAI's `POST /v1/responses/compact`), and the answer replaces the older part of the
 * conversation when it is valid and usable with the configured wire API.
 *
 * What the answer may hold (`object: "response.compaction"`, an `output` array):
 * - `message` items (roles user and assistant; `system`/`developer` ones are skipped, since
 *   the instructions are always sent on their own): usable with both APIs;
 * - `function_call` with their `function_call_output`: usable with both, as whole pairs;
 * - `compaction` items (opaque `encrypted_content`): only the Responses API can send them
 *   back, so with `chat-completions` such an answer is not usable;
 * - `reasoning` items: accepted and left out, as the clients never send reasoning back;
 * anything else makes the answer unusable. Unusable answers, error statuses, network errors
 * and timeouts all mean "compact locally instead".
 */
export interface RemoteCompactor {
  /**
   * The compacted messages (first user message first, the newest tool-call group last), or
   * undefined to fall back to local compaction; `onFallback` then hears why.
   */
  compact(conv: Conversation, signal?: AbortSignal, onFallback?: (reason: string) => void): Promise<Message[] | undefined>;
}

export interface RemoteCompactorOptions {
  /** The SDK client of the endpoint (`createOpenAI`: retries off, BaseUrl ending in /v1). */
  openai: OpenAI;
  settings: Settings;
  log: Logger;
  /**
   * The key, only to know whether one is sent and to mask it out of server messages; by
   * default the SDK client's own (none when it holds createOpenAI's placeholder).
   */
  apiKey?: string | undefined;
}

export function createRemoteCompactor(options: RemoteCompactorOptions): RemoteCompactor {
  return new HttpRemoteCompactor(options);
}

const NO_KEY_PLACEHOLDER = 'no-key';

/** Statuses that mean "this server has no such operation": do not ask again. */
const ABSENT_STATUSES = new Set([404, 405]);

class HttpRemoteCompactor implements RemoteCompactor {
  readonly #options: RemoteCompactorOptions;
  readonly #context: ExchangeCall;
  /** Set once the endpoint showed it cannot help; the compactor lives as long as the daemon. */
  #disabled: string | undefined;

  constructor(options: RemoteCompactorOptions) {
    this.#options = options;
    const endpoint = options.settings.Endpoint;
    // createOpenAI puts a placeholder in the SDK when no key is configured.
    const sdkKey = options.openai.apiKey;
    const apiKey = options.apiKey ?? (sdkKey && sdkKey !== NO_KEY_PLACEHOLDER ? sdkKey : undefined);
    this.#context = {
      endpoint,
      hasKey: !!apiKey,
      apiKey,
      path: options.settings.ContextWindow.Compaction.CompactPath,
    };
  }

  async compact(conv: Conversation, signal?: AbortSignal, onFallback?: (reason: string) => void): Promise<Message[] | undefined> {
    const { log } = this.#options;
    const fallback = (reason: string): undefined => {
      log.debug({ reason }, 'remote compaction not used');
      onFallback?.(reason);
      return undefined;
    };
    if (this.#disabled) return fallback(this.#disabled);
    const first = conv.messages[0];
    if (!first) return fallback('the conversation is empty');

    // The newest tool-call group stays as it is after the compacted items: the model is in
    // the middle of using those results.
    const groups = groupMessages(conv.messages);
    const last = groups.at(-1);
    const lastHead = last ? conv.messages[last.start] : undefined;
    const keepTail = last !== undefined && lastHead?.role === 'assistant' && (lastHead.toolCalls?.length ?? 0) > 0;
    const olderEnd = keepTail ? last.start : conv.messages.length;
    if (olderEnd <= 1) return fallback('there is nothing older than the newest tool calls to compact');
    const older = conv.messages.slice(0, olderEnd);
    const tail = conv.messages.slice(olderEnd);

    const settings = this.#options.settings;
    const request = responsesRequestBody(settings.Endpoint.Model, {
      instructions: conv.instructions,
      messages: older,
      tools: [],
      maxOutputTokens: 0,
    });
    const body = { model: request.model, input: request.input, instructions: request.instructions };

    let answer: JsonObject;
    try {
      answer = await exchange(this.#context, signal, (s) =>
        this.#options.openai.post(this.#context.path, { body, ...requestOptions(s, this.#context) }).asResponse(),
      );
    } catch (err) {
      if (signal?.aborted) throw err;
      const message = err instanceof Error ? err.message : String(err);
      if (err instanceof ModelError && err.status !== undefined && ABSENT_STATUSES.has(err.status)) {
        this.#disabled = `${message} (the endpoint has no compaction: not asked again while the daemon runs)`;
        log.info({ status: err.status, path: this.#context.path }, 'remote compaction is not offered by the endpoint: using local compaction from now on');
        return fallback(this.#disabled);
      }
      return fallback(message);
    }

    const translated = translateCompaction(answer, settings.Endpoint.Api);
    if ('problem' in translated) {
      if (translated.permanent) this.#disabled = `${translated.problem} (not asked again while the daemon runs)`;
      return fallback(translated.problem);
    }
    // messages[0] must stay the first user message: the loop and local compaction keep it pinned.
    const rest = translated.messages.filter((m) => !(m.role === 'user' && m.content === (first.role === 'user' ? first.content : undefined)));
    const result = [first, ...rest, ...tail];
    const problems = conversationProblems(result);
    if (problems.length > 0) return fallback(`the compacted conversation is not well formed: ${problems[0]}`);
    log.info(
      { before: conv.messages.length, after: result.length, items: translated.messages.length, opaque: translated.opaque },
      'remote compaction',
    );
    return result;
  }
}

type Problem = { problem: string; permanent?: boolean };
type Translation = { messages: Message[]; opaque: number } | Problem;

/** The conversation being rebuilt from the answer's output items, in order. */
interface Rebuilt {
  messages: Message[];
  opaque: number;
  /** The tool calls of the assistant message a run of function_call items is adding to. */
  pendingCalls: ToolCall[] | undefined;
  /** Call id to tool name, for the outputs that answer them. */
  callNames: Map<string, string>;
}

/** Checks the answer's shape and turns its output items into conversation messages. */
export function translateCompaction(answer: unknown, api: 'chat-completions' | 'responses'): Translation {
  if (!isObject(answer)) return { problem: 'the answer is not a JSON object' };
  if (answer.object !== 'response.compaction') {
    return { problem: `the answer's object is ${JSON.stringify(answer.object)}, not "response.compaction"` };
  }
  if (!Array.isArray(answer.output)) return { problem: 'the answer has no output array' };
  const rebuilt: Rebuilt = { messages: [], opaque: 0, pendingCalls: undefined, callNames: new Map() };
  for (const [index, item] of answer.output.entries()) {
    if (!isObject(item)) return { problem: `output item ${index} is not an object` };
    const problem = translateItem(item, index, api, rebuilt);
    if (problem) return problem;
  }
  const { messages, opaque } = rebuilt;
  if (messages.length === 0) return { problem: 'the answer has no usable output items' };
  const problems = conversationProblems(messages);
  if (problems.length > 0) return { problem: `the output is not a well-formed conversation: ${problems[0]}` };
  return { messages, opaque };
}

/** One output item added to the conversation; a Problem when it cannot be. */
function translateItem(item: Record<string, unknown>, index: number, api: 'chat-completions' | 'responses', rebuilt: Rebuilt): Problem | undefined {
  const { messages } = rebuilt;
  const type = item.type ?? (typeof item.role === 'string' ? 'message' : undefined);
  // A run of calls stays open only while function_call items follow each other.
  if (type !== 'function_call') rebuilt.pendingCalls = undefined;
  switch (type) {
    case 'message': {
      const text = messageText(item.content);
      if (text === undefined) return { problem: `output item ${index} (message) has no readable content` };
      if (item.role === 'system' || item.role === 'developer') return undefined;
      if (item.role !== 'user' && item.role !== 'assistant') {
        return { problem: `output item ${index} is a message with role ${JSON.stringify(item.role)}` };
      }
      messages.push({ role: item.role, content: text });
      return undefined;
    }
    case 'function_call':
      return addCall(item, index, rebuilt);
    case 'function_call_output': {
      const id = typeof item.call_id === 'string' ? item.call_id : '';
      const name = rebuilt.callNames.get(id);
      if (name === undefined) return { problem: `output item ${index} (function_call_output) answers no call before it` };
      const output = typeof item.output === 'string' ? item.output : messageText(item.output);
      if (output === undefined) return { problem: `output item ${index} (function_call_output) has no readable output` };
      messages.push({ role: 'tool', toolCallId: id, name, content: output });
      return undefined;
    }
    case 'compaction': {
      if (typeof item.encrypted_content !== 'string' || item.encrypted_content === '') {
        return { problem: `output item ${index} (compaction) has no encrypted_content` };
      }
      if (api !== 'responses') {
        // The same endpoint will answer the same way next time.
        return {
          problem: 'the answer holds an opaque compaction item, which only Endpoint.Api "responses" can send back',
          permanent: true,
        };
      }
      messages.push({
        role: 'compaction',
        encryptedContent: item.encrypted_content,
        ...(typeof item.id === 'string' ? { id: item.id } : {}),
      });
      rebuilt.opaque++;
      return undefined;
    }
    case 'reasoning':
      return undefined;
    default:
      return { problem: `output item ${index} has an unknown type ${JSON.stringify(type)}` };
  }
}

/** A function_call item: joins the assistant message before it, or the run of calls it continues. */
function addCall(item: Record<string, unknown>, index: number, rebuilt: Rebuilt): Problem | undefined {
  const id = typeof item.call_id === 'string' ? item.call_id : undefined;
  if (!id || typeof item.name !== 'string' || item.name === '') {
    return { problem: `output item ${index} (function_call) lacks a call_id or a name` };
  }
  const call: ToolCall = {
    id,
    name: item.name,
    arguments: typeof item.arguments === 'string' ? item.arguments : JSON.stringify(item.arguments ?? {}),
  };
  rebuilt.callNames.set(id, item.name);
  if (rebuilt.pendingCalls) {
    rebuilt.pendingCalls.push(call);
    return undefined;
  }
  const previous = rebuilt.messages.at(-1);
  if (previous?.role === 'assistant' && !previous.toolCalls) {
    rebuilt.pendingCalls = previous.toolCalls = [call];
  } else {
    rebuilt.pendingCalls = [call];
    rebuilt.messages.push({ role: 'assistant', content: '', toolCalls: rebuilt.pendingCalls });
  }
  return undefined;
}

/** A message's text: a string, or the text of its `input_text`/`output_text`/`text` parts. */
function messageText(content: unknown): string | undefined {
  if (typeof content === 'string') return content;
  if (!Array.isArray(content)) return undefined;
  const texts: string[] = [];
  for (const part of content) {
    if (!isObject(part)) return undefined;
    if ((part.type === 'input_text' || part.type === 'output_text' || part.type === 'text') && typeof part.text === 'string') {
      texts.push(part.text);
    } else {
      return undefined;
    }
  }
  return texts.join('');
}

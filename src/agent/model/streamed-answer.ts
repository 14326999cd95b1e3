import { EventStreamError, readEventStream } from './event-stream.js';
import { MAX_ANSWER_BYTES } from '../../http-io.js';
import { exchange, type ExchangeCall, invalidResponse, isObject, type JsonObject, readJsonAnswer, tooLargeError } from './exchange.js';
import { VisibleText } from './answers/visible-text.js';

/**
 * A streamed answer (docs/design.md §11: the answer shown as it arrives) rebuilt into the
 * shape of the whole answer of its wire API, so that the clients parse both alike and a
 * stream changes nothing but when the text is seen. Its visible text goes to `onText` as it
 * comes, reasoning held back (visible-text.ts).
 */

interface StreamReducer {
  push(event: unknown): void;
  /** The whole answer, as the non-streamed request would have had it. */
  answer(): JsonObject;
}

/**
 * One streamed exchange (exchange.ts: the same timeout, abort and error wording). `unshown`
 * gives the part of the settled answer's text not handed on yet, for the caller to hand on: all
 * of it when the server sent one whole answer, or when the stream was held back as a possible
 * call written as text; what follows the text already shown when a marker stopped the stream
 * but the settled answer reads no call there (a quoted marker); else nothing.
 */
export async function exchangeStreamed(
  context: ExchangeCall,
  signal: AbortSignal | undefined,
  api: 'chat-completions' | 'responses',
  onText: (text: string) => void,
  send: (signal: AbortSignal) => Promise<Response>,
): Promise<{ answer: JsonObject; unshown: (settled: string) => string }> {
  let unshown = (settled: string): string => settled;
  const answer = await exchange(context, signal, send, async (response) => {
    const read = await readStreamedAnswer(response, context, api, onText);
    if (read.streamed && !read.suppressed) unshown = () => '';
    else if (read.streamed) unshown = (settled) => (settled.startsWith(read.shown) ? settled.slice(read.shown.length) : '');
    return read.answer;
  });
  return { answer, unshown };
}

/** A body that is not a stream (a server that ignores `stream: true`) is read as a whole answer. */
export async function readStreamedAnswer(
  response: Response,
  context: ExchangeCall,
  api: 'chat-completions' | 'responses',
  onText: (text: string) => void,
): Promise<{ answer: JsonObject; streamed: boolean; suppressed: boolean; shown: string }> {
  if (!/text\/event-stream/i.test(response.headers.get('content-type') ?? '')) {
    return { answer: await readJsonAnswer(response, context), streamed: false, suppressed: false, shown: '' };
  }
  const visible = new VisibleText();
  let shown = '';
  const emit = (piece: string): void => {
    const text = visible.push(piece);
    if (text === '') return;
    shown += text;
    onText(text);
  };
  const reducer = api === 'responses' ? responsesReducer(context, emit) : chatReducer(context, emit);
  try {
    await readEventStream(response, MAX_ANSWER_BYTES, () => tooLargeError(context), (event) => reducer.push(event));
    const rest = visible.end();
    if (rest !== '') onText(rest);
    shown += rest;
    return { answer: reducer.answer(), streamed: true, suppressed: visible.suppressed, shown };
  } catch (err) {
    // A retry would show the part already shown a second time: once text went out, a broken
    // stream is a failure of its own (a timeout or an abort stays what it is).
    const aborted = err instanceof Error && err.name === 'AbortError';
    if (shown !== '' && !aborted) {
      const detail = err instanceof Error ? err.message : String(err);
      throw invalidResponse(context, `the stream broke after part of the answer was shown (${detail}); not retried, so that it is not shown twice`);
    }
    if (err instanceof EventStreamError) throw invalidResponse(context, `the stream broke: ${err.message}`, { brokenBody: true });
    throw err;
  }
}

interface CallParts {
  id?: string;
  name: string;
  arguments: string;
}

/**
 * `chat.completion.chunk` events: content and tool-call pieces by index, the usage in the last
 * chunk. Some servers number every parallel call `index: 0` (Ollama #15457) or send the `id`
 * only in a call's first piece: a piece with another id than the call being built, or a name
 * once that call's arguments are whole, begins the next call (docs/design.md §3 step 11).
 */
function chatReducer(context: ExchangeCall, emit: (text: string) => void): StreamReducer {
  let content = '';
  let reasoning = '';
  let finishReason: string | undefined;
  let usage: unknown;
  let error: unknown;
  const calls: CallParts[] = [];
  /** The call each index is building now. */
  const current = new Map<number, CallParts>();
  const begin = (index: number): CallParts => {
    const call: CallParts = { name: '', arguments: '' };
    calls.push(call);
    current.set(index, call);
    return call;
  };
  return {
    push(event) {
      if (!isObject(event)) return;
      if (event.error !== undefined) error = event.error;
      if (isObject(event.usage)) usage = event.usage;
      const choice: unknown = Array.isArray(event.choices) ? event.choices[0] : undefined;
      if (!isObject(choice)) return;
      if (typeof choice.finish_reason === 'string') finishReason = choice.finish_reason;
      const delta = isObject(choice.delta) ? choice.delta : {};
      if (typeof delta.content === 'string' && delta.content !== '') {
        content += delta.content;
        emit(delta.content);
      }
      // Kept only to tell an all-reasoning answer from an empty one; never read as text.
      for (const key of ['reasoning_content', 'reasoning', 'thinking']) {
        const piece = delta[key];
        if (typeof piece === 'string' && reasoning.length < 64) reasoning += piece;
      }
      if (!Array.isArray(delta.tool_calls)) return;
      delta.tool_calls.filter(isObject).forEach((piece, i) => {
        const index = typeof piece.index === 'number' ? piece.index : i;
        const fn = isObject(piece.function) ? piece.function : {};
        const id = typeof piece.id === 'string' && piece.id !== '' ? piece.id : undefined;
        const name = typeof fn.name === 'string' && fn.name !== '' ? fn.name : undefined;
        let call = current.get(index);
        if (!call || startsAnother(call, id, name)) call = begin(index);
        if (id !== undefined) call.id = id;
        if (name !== undefined && call.name === '') call.name = name;
        if (typeof fn.arguments === 'string') call.arguments += fn.arguments;
        else if (isObject(fn.arguments)) call.arguments += JSON.stringify(fn.arguments);
      });
    },
    answer() {
      if (error !== undefined && content === '' && calls.length === 0) return { error };
      // Every server ends a choice with its reason: a stream without one was cut, which a later try may not be.
      if (finishReason === undefined) throw invalidResponse(context, 'the stream ended before the answer was complete', { brokenBody: true });
      const toolCalls = calls.map((call) => ({ ...(call.id ? { id: call.id } : {}), type: 'function', function: { name: call.name, arguments: call.arguments } }));
      const message = {
        role: 'assistant',
        content,
        ...(reasoning.trim() !== '' ? { reasoning_content: reasoning } : {}),
        ...(toolCalls.length > 0 ? { tool_calls: toolCalls } : {}),
      };
      return { choices: [{ index: 0, message, ...(finishReason ? { finish_reason: finishReason } : {}) }], ...(usage ? { usage } : {}) };
    },
  };
}

/** A piece that cannot continue `call`: another id, or a name after the call's arguments are already whole. */
function startsAnother(call: CallParts, id: string | undefined, name: string | undefined): boolean {
  if (id !== undefined && call.id !== undefined) return id !== call.id;
  if (name === undefined || call.name === '') return false;
  if (id !== undefined) return true;
  return name !== call.name || wholeJson(call.arguments);
}

function wholeJson(text: string): boolean {
  if (text.trim() === '') return false;
  try {
    JSON.parse(text);
    return true;
  } catch {
    return false;
  }
}

/** Responses events: `response.output_text.delta` as it comes, the whole response in the closing event. */
function responsesReducer(context: ExchangeCall, emit: (text: string) => void): StreamReducer {
  let final: JsonObject | undefined;
  let error: unknown;
  return {
    push(event) {
      if (!isObject(event)) return;
      if (event.type === 'response.output_text.delta' && typeof event.delta === 'string') emit(event.delta);
      else if (
        (event.type === 'response.completed' || event.type === 'response.incomplete' || event.type === 'response.failed') &&
        isObject(event.response)
      ) {
        final = event.response;
      } else if (event.type === 'error') error = isObject(event.error) ? event.error : event;
    },
    answer() {
      if (final) return final;
      if (error !== undefined) return { error };
      // Cut before its last event: like a body cut in the middle, a later try may not be.
      throw invalidResponse(context, 'the stream ended before the response was complete', { brokenBody: true });
    },
  };
}

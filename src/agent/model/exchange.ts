import type OpenAI from 'openai';
import { APIConnectionError, APIConnectionTimeoutError, APIError, APIUserAbortError } from 'openai';
import { BLOCKED_PORT_ADVICE, isBlockedPort } from './blocked-port.js';
import { MAX_ANSWER_BYTES, readCappedText } from '../../http-io.js';
import { type Clock, systemClock } from '../../clock.js';
import type { Settings } from '../../config.js';
import { CONTEXT_TOO_LONG, ModelError, type Usage } from '../types.js';
import { isToolsRefusal, ToolsRefusedError } from './tools-refused.js';

/**
 * What the two wire clients share: running one HTTP exchange under the configured timeout and
 * the caller's abort signal, reading the body ourselves so that a broken answer is classified
 * precisely, and turning every failure into a `ModelError` a person can act on.
 */

export type Endpoint = Settings['Endpoint'];

export interface ExchangeCall {
  endpoint: Endpoint;
  /** Whether a key was configured: a 401 message differs when none was. */
  hasKey: boolean;
  /** The key itself, only so it can be masked out of server messages; never printed. */
  apiKey: string | undefined;
  /** The operation's path below BaseUrl, e.g. `/chat/completions`. */
  path: string;
  /** What a Retry-After date is measured against. */
  clock?: Clock;
}

/** What a model client may be given besides the endpoint and key (tests pass their own). */
export interface ModelClientOptions {
  /** The SDK instance (default: createOpenAI for the endpoint). */
  sdk?: OpenAI;
  clock?: Clock;
}

export type JsonObject = Record<string, unknown>;

export const isObject = (value: unknown): value is JsonObject =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

/**
 * Run one request. `send` gets the signal to pass to the SDK and must resolve with the raw
 * `Response` (`.asResponse()`): the SDK's timeout only covers the wait for the headers, so the
 * whole exchange, body included, runs under our own timer. `read` turns the body into the
 * answer (default: one JSON object; streamed-answer.ts reads a stream).
 */
export async function exchange(
  context: ExchangeCall,
  signal: AbortSignal | undefined,
  send: (signal: AbortSignal) => Promise<Response>,
  read: (response: Response) => Promise<JsonObject> = (response) => readJsonAnswer(response, context),
): Promise<JsonObject> {
  const timeoutMs = context.endpoint.TimeoutSeconds * 1000;
  const controller = new AbortController();
  let timedOut = false;
  const timer = setTimeout(() => {
    timedOut = true;
    controller.abort();
  }, timeoutMs);
  const onAbort = () => controller.abort();
  if (signal?.aborted) controller.abort();
  else signal?.addEventListener('abort', onAbort, { once: true });
  try {
    return await read(await send(controller.signal));
  } catch (err) {
    if (err instanceof ModelError) throw err;
    if (timedOut) throw timeoutError(context, err);
    if (signal?.aborted) throw abortedError(err);
    throw toModelError(err, context);
  } finally {
    clearTimeout(timer);
    signal?.removeEventListener('abort', onAbort);
  }
}

/** The body as one JSON object, read under the answer cap (docs/design.md §3 step 4). */
export async function readJsonAnswer(response: Response, context: ExchangeCall): Promise<JsonObject> {
  const text = await readCappedText(response, MAX_ANSWER_BYTES, () => tooLargeError(context));
  return parseBody(text, context);
}

export function tooLargeError(context: ExchangeCall): ModelError {
  return new ModelError(
    `The endpoint ${endpointUrl(context)} sent an answer larger than ${MAX_ANSWER_BYTES / (1024 * 1024)} MB; it was refused ` +
      `unread (no model answer is that large: a proxy or a server fault). Not retried.`,
    { kind: 'invalid-response' },
  );
}

function parseBody(text: string, context: ExchangeCall): JsonObject {
  let body: unknown;
  try {
    body = JSON.parse(text);
  } catch {
    throw invalidResponse(context, `the body is not JSON (${describeText(text)})`, { brokenBody: true });
  }
  if (!isObject(body)) throw invalidResponse(context, `the body is JSON but not an object (${describeText(text)})`);
  return body;
}

export function invalidResponse(context: ExchangeCall, detail: string, options: { brokenBody?: boolean } = {}): ModelError {
  return new ModelError(
    `The endpoint ${endpointUrl(context)} did not answer with a valid ${operationName(context.path)}: ${detail}. ` +
      `Check that Endpoint.BaseUrl points at an OpenAI-compatible API and that Endpoint.Api matches what it serves.`,
    { kind: 'invalid-response', ...options },
  );
}

/**
 * A 200 whose body holds only an error. LM Studio answers a prompt over its loaded context
 * this way ("…loaded with context length of only 4096 tokens…"): that is the same refusal as
 * a context-too-long 400, so it is reported as one and teaches the window the same way.
 */
export function errorAnswer(context: ExchangeCall, answer: JsonObject): ModelError {
  const error = answer.error;
  const text = typeof error === 'string' ? error : isObject(error) && typeof error.message === 'string' ? error.message : undefined;
  if (text !== undefined && CONTEXT_TOO_LONG.test(text)) {
    return new ModelError(`HTTP 200 with an error from ${endpointUrl(context)}: ${text}`, { kind: 'http', status: 400, cause: { error } });
  }
  const expected = context.path.endsWith('/responses') ? 'it has no output array' : 'it has no choices[0].message';
  return invalidResponse(context, text !== undefined ? `it reported an error: ${text}` : expected);
}

export function abortedError(cause?: unknown): ModelError {
  return new ModelError('The request to the model endpoint was aborted.', { kind: 'aborted', cause });
}

function timeoutError(context: ExchangeCall, cause: unknown): ModelError {
  return new ModelError(
    `The model endpoint ${endpointUrl(context)} did not answer within ${context.endpoint.TimeoutSeconds} s ` +
      `(Endpoint.TimeoutSeconds).`,
    { kind: 'timeout', cause },
  );
}

/** Map anything the SDK or fetch threw to a `ModelError`. */
export function toModelError(err: unknown, context: ExchangeCall): ModelError {
  if (err instanceof ModelError) return err;
  if (err instanceof APIUserAbortError || isAbortError(err)) return abortedError(err);
  if (err instanceof APIConnectionTimeoutError) return timeoutError(context, err);
  if (err instanceof APIConnectionError) {
    return new ModelError(`Could not reach the model endpoint ${endpointUrl(context)}: ${connectionDetail(err)}.`, {
      kind: 'network',
      cause: err,
    });
  }
  if (err instanceof APIError && typeof err.status === 'number') return httpError(err, err.status, context);
  // undici reports a connection dropped while the body was being read as `TypeError: terminated`.
  if (err instanceof TypeError && (err.message === 'terminated' || err.message === 'fetch failed' || hasCode(err))) {
    return new ModelError(
      `The connection to the model endpoint ${endpointUrl(context)} broke: ${connectionDetail(err)}.`,
      { kind: 'network', cause: err },
    );
  }
  return invalidResponse(context, mask(err instanceof Error ? err.message : String(err), context));
}

function httpError(err: APIError, status: number, context: ExchangeCall): ModelError {
  const detail = mask(serverMessage(err), context).replace(/[.\s]+$/, '');
  const { endpoint } = context;
  let message = `HTTP ${status} from ${endpointUrl(context)}${detail ? `: ${detail}` : ''}`;
  if (status === 401) {
    const envVar = endpoint.ApiKeyEnvironmentVariable;
    message +=
      `. The API key is ${context.hasKey ? 'wrong' : 'missing'}: set Endpoint.ApiKey in the config` +
      (envVar ? ` or the environment variable ${envVar} (Endpoint.ApiKeyEnvironmentVariable)` : '') +
      '.';
  } else if (status === 403) {
    message += `. The API key is not allowed to use this endpoint or the model "${endpoint.Model}" (Endpoint.ApiKey, Endpoint.Model).`;
  } else if (status === 404) {
    message +=
      `. Check that the model "${endpoint.Model}" (Endpoint.Model) is available on the endpoint and that ` +
      `Endpoint.BaseUrl (${endpoint.BaseUrl}) is right (OpenAI-compatible servers usually end it in /v1)` +
      (context.path.startsWith('/responses') ? ', and that the server offers the Responses API (Endpoint.Api)' : '') +
      '.';
  } else {
    message += '.';
  }
  // A server that will not take tools: not a fault to retry (docs/design.md §3 step 11).
  if (isToolsRefusal(status, detail)) return new ToolsRefusedError(message, detail, { status, cause: err });
  return new ModelError(message, {
    kind: 'http',
    status,
    retryAfterMs: retryAfterMs(err.headers, context.clock),
    cause: err,
  });
}

/**
 * The server's own words: OpenAI's `{ error: { message } }`, LM Studio's `{ error: "…" }`, or
 * a proxy's HTML page reduced to its text.
 */
function serverMessage(err: APIError): string {
  const body: unknown = err.error;
  if (typeof body === 'string') return clip(body);
  if (isObject(body) && typeof body.message === 'string') return clip(body.message);
  if (isObject(body)) return clip(JSON.stringify(body));
  // The SDK prefixes the status; without a JSON body the message is the raw text.
  const raw = err.message.replace(/^\d{3}\s*/, '');
  if (/status code \(no body\)/.test(raw)) return '';
  return clip(raw);
}

/** HTML pages from proxies and long bodies become one short line. */
function clip(text: string, max = 300): string {
  let out = text;
  if (/<\/?[a-z][\s\S]*>/i.test(out)) {
    out = out
      .replace(/<(script|style)[\s\S]*?<\/\1>/gi, ' ')
      .replace(/<[^>]+>/g, ' ')
      .replace(/&nbsp;/g, ' ');
  }
  out = out.replace(/\s+/g, ' ').trim();
  return out.length > max ? `${out.slice(0, max)}…` : out;
}

function describeText(text: string): string {
  if (text.trim() === '') return 'it is empty';
  return `it starts with ${JSON.stringify(clip(text, 80))}`;
}

/** `retry-after-ms` (milliseconds), else `retry-after` (seconds or an HTTP date). */
export function retryAfterMs(headers: Headers | undefined, clock: Clock = systemClock): number | undefined {
  const ms = headers?.get('retry-after-ms');
  if (ms) {
    const value = Number(ms);
    if (Number.isFinite(value) && value >= 0) return value;
  }
  const after = headers?.get('retry-after')?.trim();
  if (!after) return undefined;
  if (/^\d+(\.\d+)?$/.test(after)) return Number(after) * 1000;
  const date = Date.parse(after);
  if (Number.isNaN(date)) return undefined;
  return Math.max(0, date - clock().getTime());
}

/** The chain of causes down to the socket error, e.g. `fetch failed: connect ECONNREFUSED 127.0.0.1:11434`. */
function connectionDetail(err: Error): string {
  const parts: string[] = [];
  let current: unknown = err;
  for (let depth = 0; current instanceof Error && depth < 4; depth++) {
    const code = (current as { code?: unknown }).code;
    const message = current.message.replace(/[.\s]+$/, '');
    const text = typeof code === 'string' && !message.includes(code) ? `${message} (${code})` : message;
    // The SDK's own "Connection error." says nothing when a cause follows.
    const generic = current instanceof APIConnectionError && current.cause instanceof Error;
    if (text && !generic && !parts.includes(text)) parts.push(text);
    current = current.cause;
  }
  const detail = parts.join(': ') || 'connection error';
  return isBlockedPort(err) ? `${detail}. ${BLOCKED_PORT_ADVICE}` : detail;
}

/**
 * Older vLLM and some proxies answer errors as `{ "message": … }` without OpenAI's `error`
 * wrapper; the SDK then drops the text (and with it e.g. the context-length wording). Error
 * bodies are rewritten into OpenAI's shape before the SDK reads them.
 */
export function errorNormalizingFetch(inner: typeof fetch = globalThis.fetch): typeof fetch {
  return async (input, init) => {
    const response = await inner(input, init);
    if (response.ok) return response;
    // An error page is read only as far as a message needs (its text is clipped anyway).
    const text = await readCappedText(response, MAX_ERROR_BODY_BYTES, () => new Error('error body too large')).catch(
      (err: unknown) => {
        if (err instanceof Error && err.message === 'error body too large') return '';
        throw err;
      },
    );
    let body = text;
    try {
      const json: unknown = JSON.parse(text);
      if (isObject(json) && !('error' in json) && typeof json.message === 'string') {
        const { message, type = null, code = null, param = null } = json;
        body = JSON.stringify({ error: { message, type, code, param } });
      }
    } catch {
      // not JSON: the SDK reports the text as is
    }
    const headers = new Headers(response.headers);
    for (const name of ['content-length', 'content-encoding', 'transfer-encoding']) headers.delete(name);
    return new Response(body, { status: response.status, statusText: response.statusText, headers });
  };
}

/** Error bodies past this are dropped: the status still says what happened. */
const MAX_ERROR_BODY_BYTES = 1024 * 1024;

function hasCode(err: Error): boolean {
  const cause = err.cause as { code?: unknown } | undefined;
  return typeof cause?.code === 'string';
}

function isAbortError(err: unknown): boolean {
  return err instanceof Error && err.name === 'AbortError';
}

function mask(text: string, context: ExchangeCall): string {
  const key = context.apiKey;
  return key && key.length >= 4 ? text.split(key).join('[redacted]') : text;
}

function endpointUrl(context: ExchangeCall): string {
  return `${context.endpoint.BaseUrl.replace(/\/+$/, '')}${context.path}`;
}

function operationName(path: string): string {
  if (path.endsWith('/compact')) return 'compaction';
  if (path.startsWith('/responses')) return 'response';
  return 'chat completion';
}

/** `prompt_tokens`/`completion_tokens` or `input_tokens`/`output_tokens`, whichever the server sent. */
export function parseUsage(usage: unknown): Usage | undefined {
  if (!isObject(usage)) return undefined;
  const input = usage.prompt_tokens ?? usage.input_tokens;
  const output = usage.completion_tokens ?? usage.output_tokens;
  if (typeof input !== 'number' || !Number.isFinite(input)) return undefined;
  return { inputTokens: input, outputTokens: typeof output === 'number' && Number.isFinite(output) ? output : 0 };
}

/**
 * Ids for tool calls the server sent without one (or with one already used in the same turn,
 * as some local servers do): unique within this client, so results are matched to their call.
 */
export class CallIds {
  #turn = 0;
  /** Ids given to calls written as text, so that one the model repeats in a later turn is not reused. */
  readonly #textIds = new Set<string>();

  assign(ids: (string | undefined)[]): string[] {
    const turn = ++this.#turn;
    const seen = new Set<string>();
    return ids.map((id, index) => {
      let out = id && id.trim() !== '' ? id : `call_${turn}_${index}`;
      if (seen.has(out)) out = `${out}_${turn}_${index}`;
      seen.add(out);
      return out;
    });
  }

  /**
   * Ids for calls written as text (docs/design.md §3 step 11): nine letters and digits, the
   * only shape Mistral's chat templates accept back; the model's own id when it has that shape
   * and was not used before (templates show one example id, which models then repeat).
   */
  assignText(ids: (string | undefined)[]): string[] {
    const turn = ++this.#turn;
    return ids.map((id, index) => {
      let out = id !== undefined && /^[A-Za-z0-9]{9}$/.test(id) && !this.#textIds.has(id) ? id : '';
      for (let n = index; out === '' || this.#textIds.has(out); n++) {
        out = `c${turn.toString(36).padStart(5, '0').slice(-5)}${n.toString(36).padStart(3, '0').slice(-3)}`;
      }
      this.#textIds.add(out);
      return out;
    });
  }
}

/** The per-request SDK options: our signal, the timeout, and no placeholder key on the wire. */
export function requestOptions(
  signal: AbortSignal,
  context: ExchangeCall,
): { signal: AbortSignal; timeout: number; headers?: Record<string, null> } {
  return {
    signal,
    timeout: context.endpoint.TimeoutSeconds * 1000,
    // createOpenAI gives the SDK a `no-key` placeholder; a keyless local endpoint gets no header at all.
    ...(context.hasKey ? {} : { headers: { Authorization: null } }),
  };
}

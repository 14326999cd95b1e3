import http, { type IncomingHttpHeaders, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import { type Admission, EmulatedServer, type ServerEmulation } from './server-kinds.js';
import { sendStream, type StreamOptions } from './scripted-stream.js';

/**
 * A scripted OpenAI-compatible HTTP server for tests: a real node:http server on 127.0.0.1
 * (port 0) that speaks enough of the chat-completions, responses, responses/compact and models
 * routes for the real `openai` SDK. Each answer comes from a queue of steps, so a test says
 * exactly what "the model" does next, including failures a real endpoint or proxy produces.
 *
 *   const server = await startScriptedServer();
 *   server.script({ reply: { toolCalls: [{ name: 'read_transcript', arguments: { from: 1 } }] } },
 *                 { reply: { content: 'done' } });
 *   ... point Endpoint.BaseUrl at server.baseUrl ...
 *   await server.close();
 */

/** Which route a request hit. `chat` and `responses` share the model queue. */
export type RequestKind = 'chat' | 'responses' | 'compact' | 'models' | 'other';

export interface RecordedRequest {
  method: string;
  /** Path without the query string, e.g. `/v1/chat/completions`. */
  path: string;
  kind: RequestKind;
  headers: IncomingHttpHeaders;
  /** Parsed JSON, or the raw text when the body is not JSON (undefined when empty). */
  body: unknown;
  rawBody: string;
  /** Date.now() when the request's body had been read. */
  receivedAt: number;
  /** 0-based position among requests of the same queue (model or compact); -1 for others. */
  seq: number;
  /**
   * With `emulate`: how the emulated server took this model request. `cut` means the model
   * saw only part of the prompt (a step may answer it with garbage); `refused` was answered
   * by the emulation without consuming a step.
   */
  admission?: Admission;
}

export interface ScriptedToolCall {
  name: string;
  /** A string is sent as is (may be invalid JSON); an object is sent as a JSON object, like some local servers do. */
  arguments: string | object;
  /** Generated when absent; `null` sends the call without an id (some local servers do). */
  id?: string | null;
}

export interface ScriptedReply {
  content?: string;
  toolCalls?: ScriptedToolCall[];
  /** Default `{ input: 10, output: 5 }`; `null` omits usage from the answer. */
  usage?: { input: number; output: number } | null;
  /** Chat `finish_reason`; for responses `length` becomes `status: incomplete` (max_output_tokens). */
  finishReason?: string;
  /** Sent as chat `reasoning_content` / a responses `reasoning` item: clients must ignore it. */
  reasoning?: string;
  /** How a request with `stream: true` gets this reply (scripted-stream.ts); such a request is always streamed. */
  stream?: StreamOptions;
}

export type Step =
  | { reply: ScriptedReply }
  /** Any HTTP answer: an error (`errorBody(...)` gives OpenAI's shape), an HTML page, or a raw 200 JSON body. */
  | { status: number; body?: string | object; headers?: Record<string, string> }
  /** A valid `POST /responses/compact` answer (`object: "response.compaction"`) with these output items. */
  | { compaction: { output: unknown[]; usage?: { input: number; output: number } | null } }
  /** Destroy the socket without answering. */
  | { reset: true }
  /** Send the headers and part of a JSON body, then destroy the socket. */
  | { resetMidBody: true }
  /** Never answer; the request is released (socket destroyed) by close(). */
  | { hang: true }
  /** A 200 with `content-type: application/json` whose body is not JSON. */
  | { invalidJson: true }
  /** Send the headers and the first `afterBytes` (default half) of this reply's body, then nothing more, never closing. */
  | { stall: { reply?: ScriptedReply; afterBytes?: number } }
  /** Send this reply's body one `bytes`-sized piece (default 1) every `intervalMs`: each piece in time, the whole far too slow. */
  | { trickle: { reply?: ScriptedReply; intervalMs: number; bytes?: number } }
  /**
   * A 200 whose JSON body is `bytes` long (a reply whose content is padding), streamed in
   * pieces without building it whole; `announce: false` sends no content-length.
   */
  | { oversized: { bytes: number; announce?: boolean } }
  | { delayMs: number; then: Step }
  /** Decide from the request (e.g. look at `lastToolResults(req)`) which step answers it. */
  | { handler: (req: RecordedRequest) => Step | Promise<Step> };

export interface ScriptedServerOptions {
  /** Ids listed by `GET /v1/models`; default `['test-model']`. */
  models?: string[];
  /** When set, every request must carry `Authorization: Bearer <requireKey>`, else 401. */
  requireKey?: string;
  /** Path prefix of every route; default `/v1`. */
  prefix?: string;
  /** Answers model requests when the model queue is empty (instead of a 500). */
  fallback?: Step;
  /** Answers compact requests when the compact queue is empty (instead of a 500). */
  compactFallback?: Step;
  /**
   * Behave like a real local server at the edge of its window (see server-kinds.ts): its info
   * routes, its token counts in `usage`, its silent cut or refusal of an over-long prompt.
   */
  emulate?: ServerEmulation;
  /** The port to listen on (a server that starts late where a daemon expects it); default a free one. */
  port?: number;
}

export interface ScriptedServer {
  /** `http://127.0.0.1:PORT/v1` */
  baseUrl: string;
  /** Every request received, in order of arrival (bodies read). */
  requests: RecordedRequest[];
  /** Queue steps for model requests (chat completions and responses, consumed in order). */
  script(...steps: Step[]): void;
  /** Queue steps for compact requests (any POST path ending in `/compact`). */
  scriptCompact(...steps: Step[]): void;
  /** Set (or clear with undefined) the step used when a queue is empty. */
  setFallback(step: Step | undefined, queue?: 'model' | 'compact'): void;
  /** Steps not consumed yet. */
  pending(queue?: 'model' | 'compact'): number;
  /** Called for every request once its body is read; returns an unsubscribe function. */
  onRequest(handler: (req: RecordedRequest) => void): () => void;
  /** Resolves with the first request (already received or future) that matches; rejects after timeoutMs. */
  waitForRequest(predicate?: (req: RecordedRequest) => boolean, timeoutMs?: number): Promise<RecordedRequest>;
  /** Requests of the model queue (chat + responses) only. */
  modelRequests(): RecordedRequest[];
  /** Model requests currently open (received and not yet answered or dropped). */
  readonly inFlight: number;
  /** The highest `inFlight` seen. */
  readonly maxInFlight: number;
  /** With `emulate`: its state (loaded model) and the requests it cut or refused. */
  readonly emulated: EmulatedServer | undefined;
  /** End hanging and delayed requests and the server; leaves no open handles. */
  close(): Promise<void>;
}

/** OpenAI's error body shape. */
export function errorBody(
  message: string,
  options: { type?: string; code?: string | null; param?: string | null } = {},
): { error: { message: string; type: string; param: string | null; code: string | null } } {
  return {
    error: {
      message,
      type: options.type ?? 'invalid_request_error',
      param: options.param ?? null,
      code: options.code ?? null,
    },
  };
}

/** OpenAI's 400 for an over-long prompt. */
export function contextLengthStep(): Step {
  return {
    status: 400,
    body: errorBody(
      "This model's maximum context length is 8192 tokens. However, your messages resulted in 9000 tokens. Please reduce the length of the messages.",
      { code: 'context_length_exceeded', param: 'messages' },
    ),
  };
}

export async function startScriptedServer(options: ScriptedServerOptions = {}): Promise<ScriptedServer> {
  const prefix = options.prefix ?? '/v1';
  const models = options.models ?? ['test-model'];
  const queues: Record<'model' | 'compact', Step[]> = { model: [], compact: [] };
  const fallbacks: Record<'model' | 'compact', Step | undefined> = {
    model: options.fallback,
    compact: options.compactFallback,
  };
  const counters = { model: 0, compact: 0 };
  const requests: RecordedRequest[] = [];
  const listeners = new Set<(req: RecordedRequest) => void>();
  const sockets = new Set<Socket>();
  const timers = new Set<NodeJS.Timeout>();
  /** Pending waitForRequest calls, rejected by close(). */
  const waiters = new Set<(reason: Error) => void>();
  let ids = 0;
  let inFlight = 0;
  let maxInFlight = 0;
  let closed = false;
  const emulated = options.emulate ? new EmulatedServer(options.emulate) : undefined;

  const kindOf = (method: string, path: string): RequestKind => {
    if (!path.startsWith(`${prefix}/`)) return 'other';
    const route = path.slice(prefix.length);
    if (method === 'GET' && route === '/models') return 'models';
    if (method !== 'POST') return 'other';
    if (route === '/chat/completions') return 'chat';
    if (route === '/responses') return 'responses';
    if (route.endsWith('/compact')) return 'compact';
    return 'other';
  };

  const server = http.createServer((req, res) => {
    void handle(req, res).catch((err: unknown) => {
      if (!res.headersSent && !res.destroyed) {
        sendJson(res, 500, errorBody(`scripted server failed: ${String(err)}`, { type: 'server_error' }));
      } else {
        res.destroy();
      }
    });
  });
  server.on('connection', (socket) => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
  });

  async function handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const method = req.method ?? 'GET';
    const path = (req.url ?? '/').split('?')[0] ?? '/';
    const kind = kindOf(method, path);
    const isModel = kind === 'chat' || kind === 'responses';
    if (isModel) {
      inFlight++;
      maxInFlight = Math.max(maxInFlight, inFlight);
      res.on('close', () => inFlight--);
    }
    const rawBody = await readBody(req);
    let body: unknown = undefined;
    if (rawBody.length > 0) {
      try {
        body = JSON.parse(rawBody);
      } catch {
        body = rawBody;
      }
    }
    const queue = isModel ? 'model' : kind === 'compact' ? 'compact' : undefined;
    const recorded: RecordedRequest = {
      method,
      path,
      kind,
      headers: req.headers,
      body,
      rawBody,
      receivedAt: Date.now(),
      seq: queue ? counters[queue]++ : -1,
    };
    requests.push(recorded);
    for (const listener of [...listeners]) listener(recorded);

    if (options.requireKey !== undefined && req.headers.authorization !== `Bearer ${options.requireKey}`) {
      sendJson(
        res,
        401,
        errorBody('Incorrect API key provided. You can find your API key at https://platform.openai.com/account/api-keys.', {
          code: 'invalid_api_key',
        }),
      );
      return;
    }
    if (kind === 'models') {
      sendJson(res, 200, {
        object: 'list',
        data: models.map((id) => ({ id, object: 'model', created: 1700000000, owned_by: 'scripted', ...emulated?.modelEntry() })),
      });
      return;
    }
    const info = kind === 'other' ? emulated?.info(method, path, models[0] ?? 'test-model') : undefined;
    if (info) {
      sendJson(res, info.status, info.body);
      return;
    }
    if (emulated && isModel) {
      const admission = emulated.admit(kind, body);
      recorded.admission = admission;
      if (admission.kind === 'refused') {
        sendJson(res, admission.status, admission.body);
        return;
      }
    }
    if (!queue) {
      sendJson(res, 404, errorBody(`Unknown route ${method} ${path}`, { code: 'unknown_url' }));
      return;
    }
    const step =
      queues[queue].shift() ??
      fallbacks[queue] ??
      ({
        status: 500,
        body: errorBody(`scripted server: no step left for ${kind} request #${recorded.seq + 1}`, {
          type: 'server_error',
        }),
      } satisfies Step);
    await perform(step, recorded, res);
  }

  async function perform(step: Step, req: RecordedRequest, res: ServerResponse): Promise<void> {
    if (res.destroyed) return;
    if ('handler' in step) return perform(await step.handler(req), req, res);
    if ('delayMs' in step) {
      await new Promise<void>((resolve) => {
        const timer = setTimeout(() => {
          timers.delete(timer);
          resolve();
        }, step.delayMs);
        timers.add(timer);
      });
      if (closed) return;
      return perform(step.then, req, res);
    }
    if ('hang' in step) return; // close() destroys the socket
    if ('reset' in step) {
      res.socket?.destroy();
      return;
    }
    if ('resetMidBody' in step) {
      const full = JSON.stringify(renderReply(req, { content: 'this answer is cut off in the middle' }));
      res.writeHead(200, { 'content-type': 'application/json', 'content-length': String(full.length) });
      res.write(full.slice(0, Math.floor(full.length / 2)), () => res.socket?.destroy());
      return;
    }
    if ('invalidJson' in step) {
      const text = '{"id": "chatcmpl-broken", "choices": [ {"message": ';
      res.writeHead(200, { 'content-type': 'application/json', 'content-length': String(Buffer.byteLength(text)) });
      res.end(text);
      return;
    }
    if ('stall' in step) {
      const full = JSON.stringify(renderReply(req, step.stall.reply ?? { content: 'this answer stalls' }));
      const sent = Math.min(full.length - 1, step.stall.afterBytes ?? Math.floor(full.length / 2));
      res.writeHead(200, { 'content-type': 'application/json', 'content-length': String(Buffer.byteLength(full)) });
      res.write(full.slice(0, sent)); // the rest never comes; close() destroys the socket
      return;
    }
    if ('trickle' in step) {
      const full = JSON.stringify(renderReply(req, step.trickle.reply ?? { content: 'this answer trickles' }));
      const size = Math.max(1, step.trickle.bytes ?? 1);
      res.writeHead(200, { 'content-type': 'application/json', 'content-length': String(Buffer.byteLength(full)) });
      let at = 0;
      const timer = setInterval(() => {
        if (res.destroyed || at >= full.length) {
          clearInterval(timer);
          timers.delete(timer);
          if (!res.destroyed) res.end();
          return;
        }
        res.write(full.slice(at, at + size));
        at += size;
      }, step.trickle.intervalMs);
      timers.add(timer);
      res.on('close', () => {
        clearInterval(timer);
        timers.delete(timer);
      });
      return;
    }
    if ('oversized' in step) {
      await streamOversized(res, step.oversized.bytes, step.oversized.announce ?? true);
      return;
    }
    if ('status' in step) {
      const headers = { ...step.headers };
      const hasType = Object.keys(headers).some((h) => h.toLowerCase() === 'content-type');
      if (step.body === undefined) {
        res.writeHead(step.status, headers);
        res.end();
      } else if (typeof step.body === 'string') {
        if (!hasType) headers['content-type'] = step.body.trimStart().startsWith('<') ? 'text/html' : 'text/plain';
        res.writeHead(step.status, headers);
        res.end(step.body);
      } else {
        sendJson(res, step.status, step.body, headers);
      }
      return;
    }
    if ('compaction' in step) {
      sendJson(res, 200, renderCompaction(step.compaction.output, step.compaction.usage));
      return;
    }
    const whole = renderReply(req, step.reply);
    if ((req.kind === 'chat' || req.kind === 'responses') && (req.body as { stream?: unknown } | undefined)?.stream === true) {
      await sendStream(res, req.kind, whole as Record<string, unknown>, step.reply.stream ?? {}, wait);
      return;
    }
    sendJson(res, 200, whole);
  }

  function wait(ms: number): Promise<void> {
    return new Promise<void>((resolve) => {
      const timer = setTimeout(() => {
        timers.delete(timer);
        resolve();
      }, ms);
      timers.add(timer);
    });
  }

  function renderReply(req: RecordedRequest, reply: ScriptedReply): object {
    const n = ++ids;
    const model = typeof (req.body as { model?: unknown })?.model === 'string' ? (req.body as { model: string }).model : models[0];
    let usage = reply.usage === undefined ? { input: 10, output: 5 } : reply.usage;
    // An emulated server reports its own count of what it kept, whatever the step says.
    if (req.admission && req.admission.kind !== 'refused') usage = { input: req.admission.promptTokens, output: usage?.output ?? 5 };
    const calls = (reply.toolCalls ?? []).map((call, i) => ({
      ...call,
      id: call.id === undefined ? `call_${n}_${i}` : call.id,
    }));
    if (req.kind === 'compact') {
      return renderCompaction(
        [{ type: 'message', role: 'assistant', content: [{ type: 'output_text', text: reply.content ?? '' }] }],
        usage,
      );
    }
    if (req.kind === 'responses') {
      const output: object[] = [];
      if (reply.reasoning !== undefined) {
        output.push({ type: 'reasoning', id: `rs_${n}`, summary: [{ type: 'summary_text', text: reply.reasoning }] });
      }
      if (reply.content !== undefined) {
        output.push({
          type: 'message',
          id: `msg_${n}`,
          role: 'assistant',
          status: 'completed',
          content: [{ type: 'output_text', text: reply.content, annotations: [] }],
        });
      }
      calls.forEach((call, i) =>
        output.push({
          type: 'function_call',
          id: `fc_${n}_${i}`,
          ...(call.id === null ? {} : { call_id: call.id }),
          name: call.name,
          arguments: call.arguments,
          status: 'completed',
        }),
      );
      const incomplete = reply.finishReason === 'length';
      return {
        id: `resp_${n}`,
        object: 'response',
        created_at: Math.floor(Date.now() / 1000),
        status: incomplete ? 'incomplete' : 'completed',
        incomplete_details: incomplete ? { reason: 'max_output_tokens' } : null,
        model,
        output,
        ...(usage
          ? {
              usage: {
                input_tokens: usage.input,
                output_tokens: usage.output,
                total_tokens: usage.input + usage.output,
                input_tokens_details: { cached_tokens: 0 },
                output_tokens_details: { reasoning_tokens: 0 },
              },
            }
          : {}),
      };
    }
    const message: Record<string, unknown> = { role: 'assistant', content: reply.content ?? null };
    if (reply.reasoning !== undefined) message.reasoning_content = reply.reasoning;
    if (calls.length > 0) {
      message.tool_calls = calls.map((call) => ({
        ...(call.id === null ? {} : { id: call.id }),
        type: 'function',
        function: { name: call.name, arguments: call.arguments },
      }));
    }
    return {
      id: `chatcmpl-${n}`,
      object: 'chat.completion',
      created: Math.floor(Date.now() / 1000),
      model,
      choices: [
        {
          index: 0,
          message,
          finish_reason: reply.finishReason ?? (calls.length > 0 ? 'tool_calls' : 'stop'),
        },
      ],
      ...(usage
        ? {
            usage: {
              prompt_tokens: usage.input,
              completion_tokens: usage.output,
              total_tokens: usage.input + usage.output,
            },
          }
        : {}),
    };
  }

  function renderCompaction(output: unknown[], usage: { input: number; output: number } | null | undefined): object {
    const u = usage === undefined ? { input: 10, output: 5 } : usage;
    return {
      id: `cmp_${++ids}`,
      object: 'response.compaction',
      created_at: Math.floor(Date.now() / 1000),
      output,
      ...(u ? { usage: { input_tokens: u.input, output_tokens: u.output, total_tokens: u.input + u.output } } : {}),
    };
  }

  // An idle connection is never closed by the server's timer while a test runs: the client
  // reuses it up to 1 s before the server's 5 s keep-alive ends (undici's margin), and on a
  // loaded machine the two timers fire late enough to cross, a reused socket then being reset
  // (ECONNRESET) under a request. close() ends every connection.
  server.keepAliveTimeout = 10 * 60_000;
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port ?? 0, '127.0.0.1', () => {
      server.off('error', reject);
      resolve();
    });
  });
  const { port } = server.address() as AddressInfo;

  return {
    baseUrl: `http://127.0.0.1:${port}${prefix}`,
    requests,
    script: (...steps) => void queues.model.push(...steps),
    scriptCompact: (...steps) => void queues.compact.push(...steps),
    setFallback: (step, queue = 'model') => void (fallbacks[queue] = step),
    pending: (queue = 'model') => queues[queue].length,
    onRequest(handler) {
      listeners.add(handler);
      return () => void listeners.delete(handler);
    },
    waitForRequest(predicate = () => true, timeoutMs = 5000) {
      const found = requests.find(predicate);
      if (found) return Promise.resolve(found);
      return new Promise((resolve, reject) => {
        const finish = (result: RecordedRequest | Error) => {
          clearTimeout(timer);
          listeners.delete(listener);
          waiters.delete(finish);
          if (result instanceof Error) reject(result);
          else resolve(result);
        };
        const timer = setTimeout(
          () => finish(new Error(`scripted server: no matching request within ${timeoutMs} ms (${requests.length} received)`)),
          timeoutMs,
        );
        const listener = (req: RecordedRequest) => {
          if (predicate(req)) finish(req);
        };
        listeners.add(listener);
        waiters.add(finish);
      });
    },
    modelRequests: () => requests.filter((r) => r.kind === 'chat' || r.kind === 'responses'),
    get inFlight() {
      return inFlight;
    },
    get maxInFlight() {
      return maxInFlight;
    },
    emulated,
    async close() {
      if (closed) return;
      closed = true;
      for (const timer of timers) clearTimeout(timer);
      timers.clear();
      for (const finish of [...waiters]) finish(new Error('scripted server: closed while waiting for a request'));
      const done = new Promise<void>((resolve) => server.close(() => resolve()));
      server.closeAllConnections();
      for (const socket of sockets) socket.destroy();
      await done;
    },
  };
}

function sendJson(res: ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}): void {
  if (res.destroyed) return;
  const text = JSON.stringify(body);
  res.writeHead(status, {
    'content-type': 'application/json',
    'content-length': String(Buffer.byteLength(text)),
    ...headers,
  });
  res.end(text);
}

/** `{"choices":[{"message":{"role":"assistant","content":"xxx…"}}]}` of `bytes` bytes, written as the socket drains. */
async function streamOversized(res: ServerResponse, bytes: number, announce: boolean): Promise<void> {
  const head = '{"id":"chatcmpl-big","object":"chat.completion","output":[],"choices":[{"index":0,"message":{"role":"assistant","content":"';
  const tail = '"},"finish_reason":"stop"}]}';
  const padding = Math.max(0, bytes - head.length - tail.length);
  res.writeHead(200, { 'content-type': 'application/json', ...(announce && { 'content-length': String(head.length + padding + tail.length) }) });
  res.write(head);
  const piece = 'x'.repeat(64 * 1024);
  let left = padding;
  while (left > 0 && !res.destroyed) {
    const chunk = left >= piece.length ? piece : piece.slice(0, left);
    left -= chunk.length;
    if (!res.write(chunk)) {
      // Whichever comes first removes the other: a listener left per wait grew past node's 10.
      await new Promise<void>((resolve) => {
        const done = () => {
          res.off('drain', done);
          res.off('close', done);
          resolve();
        };
        res.once('drain', done);
        res.once('close', done);
      });
    }
  }
  if (!res.destroyed) res.end(tail);
}

function readBody(req: IncomingMessage): Promise<string> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => resolve(Buffer.concat(chunks).toString('utf8')));
    req.on('error', reject);
  });
}

// ---- Reading a request's conversation, for both wire shapes ----

export interface SeenToolCall {
  id: string;
  name: string;
  /** As sent back by the client (a string on the wire). */
  arguments: string;
}

export interface SeenToolResult {
  /** `tool_call_id` (chat) or `call_id` (responses). */
  callId: string;
  /** The name of the call it answers, when that call is in the conversation. */
  name: string | undefined;
  output: string;
}

type Obj = Record<string, unknown>;
const isObj = (v: unknown): v is Obj => typeof v === 'object' && v !== null && !Array.isArray(v);
const str = (v: unknown): string => (typeof v === 'string' ? v : v === undefined || v === null ? '' : JSON.stringify(v));

/** Chat `messages` or responses `input` items of a model request (empty for other requests). */
export function conversationItems(req: RecordedRequest): Obj[] {
  if (!isObj(req.body)) return [];
  const items = req.kind === 'chat' ? req.body.messages : req.body.input;
  if (typeof items === 'string') return [{ type: 'message', role: 'user', content: items }];
  return Array.isArray(items) ? items.filter(isObj) : [];
}

/** Every tool call the assistant made in the conversation sent with this request, oldest first. */
/**
 * The calls of a run's project update so far, whichever shape the run has: in one conversation
 * (issue 31) those after the first write_summary, in phases (issue 21) every call of the project
 * phase's own conversation (the one without write_summary); undefined before the summary.
 */
export function projectStepCalls(req: RecordedRequest): SeenToolCall[] | undefined {
  const calls = toolCallsSoFar(req);
  if (!toolNamesOf(req).includes('write_summary')) return calls;
  const at = calls.findIndex((c) => c.name === 'write_summary');
  return at < 0 ? undefined : calls.slice(at + 1);
}

export function toolCallsSoFar(req: RecordedRequest): SeenToolCall[] {
  const calls: SeenToolCall[] = [];
  for (const item of conversationItems(req)) {
    if (item.role === 'assistant' && Array.isArray(item.tool_calls)) {
      for (const call of item.tool_calls.filter(isObj)) {
        const fn = isObj(call.function) ? call.function : {};
        calls.push({ id: str(call.id), name: str(fn.name), arguments: str(fn.arguments) });
      }
    } else if (item.type === 'function_call') {
      calls.push({ id: str(item.call_id), name: str(item.name), arguments: str(item.arguments) });
    }
  }
  return calls;
}

/** The tool results at the end of the conversation: the answers to the model's latest tool calls. */
export function lastToolResults(req: RecordedRequest): SeenToolResult[] {
  const items = conversationItems(req);
  const names = new Map(toolCallsSoFar(req).map((c) => [c.id, c.name]));
  const results: SeenToolResult[] = [];
  for (let i = items.length - 1; i >= 0; i--) {
    const item = items[i]!;
    let callId: string;
    let output: string;
    if (item.role === 'tool') {
      callId = str(item.tool_call_id);
      output = textOf(item.content);
    } else if (item.type === 'function_call_output') {
      callId = str(item.call_id);
      output = textOf(item.output);
    } else {
      break;
    }
    results.unshift({ callId, name: names.get(callId), output });
  }
  return results;
}

/** The system message (chat) or `instructions` (responses) of a model request. */
export function instructionsOf(req: RecordedRequest): string | undefined {
  if (!isObj(req.body)) return undefined;
  if (req.kind === 'responses') return typeof req.body.instructions === 'string' ? req.body.instructions : undefined;
  const system = conversationItems(req).find((m) => m.role === 'system' || m.role === 'developer');
  return system ? textOf(system.content) : undefined;
}

/** The names of the tools a model request offers, in order (either wire shape). */
export function toolNamesOf(req: RecordedRequest): string[] {
  if (!isObj(req.body) || !Array.isArray(req.body.tools)) return [];
  return req.body.tools.filter(isObj).map((t) => (isObj(t.function) ? str(t.function.name) : str(t.name)));
}

/** Text of the user messages of a model request, oldest first. */
export function userTexts(req: RecordedRequest): string[] {
  return conversationItems(req)
    .filter((m) => m.role === 'user')
    .map((m) => textOf(m.content));
}

function textOf(content: unknown): string {
  if (typeof content === 'string') return content;
  if (Array.isArray(content)) {
    return content.map((part) => (isObj(part) && typeof part.text === 'string' ? part.text : '')).join('');
  }
  return str(content);
}

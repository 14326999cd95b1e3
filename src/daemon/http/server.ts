import type { IncomingMessage, ServerResponse } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import type { Settings } from '../../config.js';
import type { Logger } from '../../log.js';
import { escapeHtml } from './html.js';
import { CHALLENGE, healthzProof, legacyRetryQuery, PROOF_HEADER, retrySignature, tokenMatches } from '../../vault/files/state.js';
import { MeetingAssistantError } from '../../errors.js';
import { nodeHttp } from '../../http-io.js';

/**
 * The daemon's HTTP API (docs/design.md §7): a health check, the clickable retry link of
 * failure reports, and a small token-protected JSON API for recorders and scripts. Loopback
 * by default; when bound to loopback, requests must also name a loopback host, so a web page
 * cannot reach it through DNS rebinding.
 */

/** An answer other than 200 that a handler chooses, with a message for people. */
export class ApiError extends MeetingAssistantError {
  constructor(
    readonly status: number,
    message: string,
  ) {
    super(message, true);
  }
}

export class HttpStartError extends MeetingAssistantError {
  constructor(message: string, options?: ErrorOptions) {
    super(message, true, options);
  }
}

export interface RetryAccepted {
  /** Vault-relative summary note. */
  note: string;
  /** `queued`, `merged` (already waiting) or `follow-up` (its meeting is running now). */
  result: string;
  /**
   * Vault-relative meeting note the job is keyed by, when known. A request merged into a job
   * already waiting for this meeting (a retry wins over a summarize) is carried by the next
   * run of this meeting, whatever its kind: that is the run to wait for.
   */
  meeting?: string;
}

export interface SessionInput {
  /** Without one, the calendar's event in progress gives it (docs/design.md §12). */
  title?: string;
  projects?: string[];
  agenda?: string;
  scheduledEnd?: string;
}

/** What the routes do; the daemon supplies them. Handlers throw ApiError for 4xx answers. */
export interface HttpHandlers {
  retry(note: unknown, trigger: 'link' | 'api' | 'page' | 'cli'): Promise<RetryAccepted>;
  /** Whether the summary note's current text holds `link` (an old `token=` retry link); absent: never. */
  noteHoldsLink?(note: unknown, link: string): Promise<boolean>;
  /** `POST /api/summarize {"meeting": …}`: run a meeting now (`meeting-assistant summarize` hands its work over this way). */
  summarize?(meeting: unknown): Promise<RetryAccepted>;
  startSession(input: SessionInput): Promise<Record<string, string>>;
  setSessionState(meeting: unknown, state: unknown): Promise<Record<string, string>>;
  /** `PUT /api/sessions/finish` (session-finish.ts). */
  finishSession(meeting: unknown): Promise<Record<string, unknown>>;
  status(): unknown;
}

export interface HttpServerOptions {
  settings: Settings['Http'];
  token: string;
  log: Logger;
  handlers: HttpHandlers;
  /** Largest accepted request body. */
  maxBodyBytes?: number;
  /** More routes (the status page's), each doing its own authentication. */
  extraRoutes?: Route[];
  /** The vault's identity (vault/files/state.ts vaultIdentity) that `GET /api/whoami` answers. */
  vaultId?: string;
}

export interface RunningHttpServer {
  host: string;
  port: number;
  /** `http://host:port` as a person would type it. */
  url: string;
  close(): Promise<void>;
}

const DEFAULT_MAX_BODY = 64 * 1024;

export function isLoopbackHost(host: string): boolean {
  const h = host.replace(/^\[|\]$/g, '').toLowerCase();
  return h === 'localhost' || h.endsWith('.localhost') || h === '::1' || /^127(\.\d{1,3}){3}$/.test(h) || h === '::ffff:127.0.0.1';
}

/** The host part of a `Host` header (`[::1]:4777` → `::1`, `localhost:80` → `localhost`). */
function hostOfHeader(header: string): string {
  const trimmed = header.trim();
  if (trimmed.startsWith('[')) return trimmed.slice(1, trimmed.indexOf(']'));
  const colon = trimmed.lastIndexOf(':');
  return colon >= 0 ? trimmed.slice(0, colon) : trimmed;
}

const USE_THE_REPORT =
  'Use the link from the failure report as it was written, or tick <code>retry</code> in the note’s properties.';

/**
 * Why a `GET /retry` may not run (undefined: it may). A link signs its note (docs/design.md
 * §1): `sig` must be that note's signature. An old link carrying the token is accepted only
 * for a note whose text still holds that very link, so a token that leaked from one old
 * report opens no other note. A bearer header is the API's own way and opens any note.
 */
async function retryLinkRefusal(req: IncomingMessage, url: URL, options: HttpServerOptions): Promise<{ status: number; text: string } | undefined> {
  const note = url.searchParams.get('note');
  const sig = url.searchParams.get('sig');
  const legacy = url.searchParams.get('token');
  if (sig !== null) {
    if (note !== null && tokenMatches(sig, retrySignature(options.token, note))) return undefined;
    return { status: 403, text: `This retry link is not signed for this note (altered, or made for another one). ${USE_THE_REPORT}` };
  }
  if (legacy !== null) {
    if (!tokenMatches(legacy, options.token)) return { status: 401, text: `This retry link has a wrong token. ${USE_THE_REPORT}` };
    const holds = note !== null && (await options.handlers.noteHoldsLink?.(note, legacyRetryQuery(legacy, note)).catch(() => false));
    if (holds) return undefined;
    return { status: 403, text: `This old retry link is accepted only from the note that carries it. ${USE_THE_REPORT}` };
  }
  if (tokenMatches(bearerOf(req), options.token)) return undefined;
  return { status: 401, text: `This retry link has no signature. ${USE_THE_REPORT}` };
}

function bearerOf(req: IncomingMessage): string | undefined {
  const header = req.headers.authorization;
  const m = header ? /^Bearer\s+(\S+)\s*$/i.exec(header) : null;
  return m?.[1];
}

function sendJson(res: ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}): void {
  const text = JSON.stringify(body);
  res.writeHead(status, {
    'content-type': 'application/json; charset=utf-8',
    'content-length': Buffer.byteLength(text),
    'cache-control': 'no-store',
    ...headers,
  });
  res.end(text);
}

function sendText(res: ServerResponse, status: number, text: string): void {
  res.writeHead(status, { 'content-type': 'text/plain; charset=utf-8', 'content-length': Buffer.byteLength(text) });
  res.end(text);
}

/** The small page a click on "Retry now" shows. */
export function retryPage(status: number, heading: string, detail: string): string {
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="robots" content="noindex">
<title>Meeting Assistant: ${escapeHtml(heading)}</title>
<style>body{font:16px/1.5 system-ui,sans-serif;max-width:40em;margin:3em auto;padding:0 1em}
.ok{color:#17602a}.err{color:#9b1c1c}code{background:#f3f3f3;padding:0 .2em}</style></head>
<body><h1 class="${status < 300 ? 'ok' : 'err'}">${escapeHtml(heading)}</h1><p>${detail}</p></body></html>
`;
}

export function sendHtml(res: ServerResponse, status: number, heading: string, detail: string): void {
  const page = retryPage(status, heading, detail);
  res.writeHead(status, {
    'content-type': 'text/html; charset=utf-8',
    'content-length': Buffer.byteLength(page),
    'cache-control': 'no-store',
    // The page is only ever opened as a link target; nothing may embed or script it.
    'content-security-policy': "default-src 'none'; style-src 'unsafe-inline'",
    'x-frame-options': 'DENY',
    'referrer-policy': 'no-referrer',
  });
  res.end(page);
}

/** The request body as text; larger than `limit` bytes is a 413. */
export async function readBodyText(req: IncomingMessage, limit = DEFAULT_MAX_BODY): Promise<string> {
  const declared = Number(req.headers['content-length']);
  if (Number.isFinite(declared) && declared > limit) throw new ApiError(413, `request body larger than ${limit} bytes`);
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of req as AsyncIterable<Buffer>) {
    size += chunk.length;
    if (size > limit) throw new ApiError(413, `request body larger than ${limit} bytes`);
    chunks.push(chunk);
  }
  return Buffer.concat(chunks).toString('utf8');
}

async function readJsonBody(req: IncomingMessage, limit: number): Promise<Record<string, unknown>> {
  const text = await readBodyText(req, limit);
  if (text.trim() === '') return {};
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    throw new ApiError(400, 'the request body is not valid JSON');
  }
  if (value === null || typeof value !== 'object' || Array.isArray(value)) {
    throw new ApiError(400, 'the request body must be a JSON object');
  }
  return value as Record<string, unknown>;
}

function optionalString(body: Record<string, unknown>, key: string): string | undefined {
  const value = body[key];
  if (value === undefined || value === null) return undefined;
  if (typeof value !== 'string') throw new ApiError(400, `"${key}" must be a string`);
  return value;
}

function projectsOf(body: Record<string, unknown>): string[] | undefined {
  const value = body.projects;
  if (value === undefined || value === null) return undefined;
  if (typeof value === 'string') return value.split(',').map((p) => p.trim()).filter(Boolean);
  if (Array.isArray(value) && value.every((p) => typeof p === 'string')) return value.map((p) => p.trim()).filter(Boolean);
  throw new ApiError(400, '"projects" must be an array of strings or a comma-separated string');
}

export type Route = { method: string; path: string; auth: boolean; handle(req: IncomingMessage, res: ServerResponse, url: URL): Promise<void> };

export function createRoutes(options: HttpServerOptions): Route[] {
  const { handlers } = options;
  const limit = options.maxBodyBytes ?? DEFAULT_MAX_BODY;
  return [
    {
      method: 'GET',
      path: '/healthz',
      auth: false,
      // With a challenge, the answer proves this daemon holds the token, before a command sends it (state.ts healthzProof).
      handle: async (_req, res, url) => {
        const challenge = url.searchParams.get('challenge');
        if (challenge !== null && CHALLENGE.test(challenge)) res.setHeader(PROOF_HEADER, healthzProof(options.token, challenge));
        sendText(res, 200, 'ok');
      },
    },
    {
      method: 'GET',
      path: '/api/whoami',
      // No token: it proves which vault this daemon serves before anyone sends it the token
      // (doctor's port check), and a hash says nothing of where the vault is.
      auth: false,
      handle: async (_req, res) => sendJson(res, 200, { service: 'meeting-assistant', vault: options.vaultId ?? null }),
    },
    {
      method: 'GET',
      path: '/retry',
      // Checked inside: this route answers with pages, not JSON.
      auth: false,
      handle: async (req, res, url) => {
        const refusal = await retryLinkRefusal(req, url, options);
        if (refusal) {
          sendHtml(res, refusal.status, 'Not authorized', refusal.text);
          return;
        }
        try {
          const accepted = await handlers.retry(url.searchParams.get('note'), 'link');
          const when = accepted.result === 'follow-up' ? 'after the run of this meeting that is going on now' : 'shortly';
          sendHtml(
            res,
            200,
            'Retry queued',
            `<code>${escapeHtml(accepted.note)}</code> will be regenerated ${when}. The note is overwritten with the new summary or a new failure report; you can close this page.`,
          );
        } catch (err) {
          if (!(err instanceof ApiError)) throw err;
          sendHtml(res, err.status, 'Retry not queued', escapeHtml(err.message));
        }
      },
    },
    {
      method: 'POST',
      path: '/api/retry',
      auth: true,
      handle: async (req, res) => {
        const body = await readJsonBody(req, limit);
        // {"meeting"} is how `summarize` handed its work over before POST /api/summarize: still taken.
        const run = body.meeting !== undefined && body.note === undefined && handlers.summarize;
        sendJson(res, 202, run ? await run(body.meeting) : await handlers.retry(body.note, body.from === 'cli' ? 'cli' : 'api'));
      },
    },
    {
      method: 'POST',
      path: '/api/summarize',
      auth: true,
      handle: async (req, res) => {
        const body = await readJsonBody(req, limit);
        if (!handlers.summarize) throw new ApiError(404, 'this daemon does not take summaries over its API');
        sendJson(res, 202, await handlers.summarize(body.meeting));
      },
    },
    {
      method: 'POST',
      path: '/api/sessions',
      auth: true,
      handle: async (req, res) => {
        const body = await readJsonBody(req, limit);
        const title = optionalString(body, 'title');
        const input: SessionInput = { ...(title !== undefined && { title }), projects: projectsOf(body) };
        const agenda = optionalString(body, 'agenda');
        const scheduledEnd = optionalString(body, 'scheduledEnd') ?? optionalString(body, 'scheduled_end');
        if (agenda !== undefined) input.agenda = agenda;
        if (scheduledEnd !== undefined) input.scheduledEnd = scheduledEnd;
        sendJson(res, 201, await handlers.startSession(input));
      },
    },
    {
      method: 'PUT',
      path: '/api/sessions/state',
      auth: true,
      handle: async (req, res) => {
        const body = await readJsonBody(req, limit);
        sendJson(res, 200, await handlers.setSessionState(body.meeting, body.state));
      },
    },
    {
      method: 'PUT',
      path: '/api/sessions/finish',
      auth: true,
      handle: async (req, res) => {
        const body = await readJsonBody(req, limit);
        sendJson(res, 200, await handlers.finishSession(body.meeting));
      },
    },
    {
      method: 'GET',
      path: '/api/status',
      auth: true,
      handle: async (_req, res) => sendJson(res, 200, handlers.status()),
    },
  ];
}

/** The request handler, separate from listening so it can be tested on any server. */
export function createRequestHandler(options: HttpServerOptions): (req: IncomingMessage, res: ServerResponse) => void {
  const routes = [...createRoutes(options), ...(options.extraRoutes ?? [])];
  const guardHost = isLoopbackHost(options.settings.Host);
  const { log } = options;
  const handle = async (req: IncomingMessage, res: ServerResponse): Promise<void> => {
    const host = req.headers.host;
    if (guardHost && host !== undefined && !isLoopbackHost(hostOfHeader(host))) {
      sendJson(res, 421, { error: `this API answers only to loopback host names, not ${host}` });
      return;
    }
    const url = new URL(req.url ?? '/', 'http://localhost');
    const matching = routes.filter((r) => r.path === url.pathname);
    if (matching.length === 0) {
      sendJson(res, 404, { error: `no route ${url.pathname}` });
      return;
    }
    // HEAD only where it changes nothing: a link previewer must not click "Retry now".
    const route = matching.find((r) => r.method === req.method || (req.method === 'HEAD' && r.path === '/healthz'));
    if (!route) {
      sendJson(res, 405, { error: `${req.method} is not allowed on ${url.pathname}` }, { allow: matching.map((r) => r.method).join(', ') });
      return;
    }
    if (route.auth && !tokenMatches(bearerOf(req), options.token)) {
      sendJson(res, 401, { error: 'missing or wrong bearer token' }, { 'www-authenticate': 'Bearer' });
      return;
    }
    try {
      await route.handle(req, res, url);
    } catch (err) {
      if (res.headersSent) {
        res.destroy();
        return;
      }
      if (err instanceof ApiError) {
        sendJson(res, err.status, { error: err.message }, err.status === 413 ? { connection: 'close' } : {});
        return;
      }
      log.error({ err, route: url.pathname }, 'HTTP request failed');
      sendJson(res, 500, { error: 'internal error; see the daemon log' });
    }
  };
  return (req, res) => {
    handle(req, res).catch((err: unknown) => {
      log.error({ err }, 'HTTP handler crashed');
      res.destroy();
    });
  };
}

/** Listen on `Http.Host`:`Http.Port`; a port in use is a clear HttpStartError. */
export async function startHttpServer(options: HttpServerOptions): Promise<RunningHttpServer> {
  const { Host, Port } = options.settings;
  const server = nodeHttp().createServer({ requestTimeout: 30_000, headersTimeout: 10_000 }, createRequestHandler(options));
  const sockets = new Set<Socket>();
  server.on('connection', (socket) => {
    sockets.add(socket);
    socket.once('close', () => sockets.delete(socket));
  });
  await new Promise<void>((resolve, reject) => {
    const onError = (err: NodeJS.ErrnoException) => {
      server.off('listening', onListening);
      reject(describeListenError(err, Host, Port));
    };
    const onListening = () => {
      server.off('error', onError);
      resolve();
    };
    server.once('error', onError);
    server.once('listening', onListening);
    server.listen(Port, Host);
  });
  server.on('error', (err) => options.log.error({ err }, 'HTTP server error'));
  const port = (server.address() as AddressInfo).port;
  const hostPart = Host.includes(':') ? `[${Host}]` : Host;
  return {
    host: Host,
    port,
    url: `http://${hostPart}:${port}`,
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        // Idle keep-alive connections would hold close() open; in-flight answers are tiny.
        server.closeIdleConnections();
        for (const socket of sockets) if (!socket.destroyed) socket.end();
        setTimeout(() => {
          for (const socket of sockets) socket.destroy();
        }, 1000).unref();
      }),
  };
}

function describeListenError(err: NodeJS.ErrnoException, host: string, port: number): Error {
  if (err.code === 'EADDRINUSE') {
    return new HttpStartError(
      `cannot listen on ${host}:${port}: the port is already in use (is another meeting-assistant running?). ` +
        'Set MeetingAssistant.Http.Port to a free port (or Http.Enabled to false) in the config.',
    );
  }
  if (err.code === 'EACCES') {
    return new HttpStartError(
      `cannot listen on ${host}:${port}: permission denied. Use a port above 1023 in MeetingAssistant.Http.Port.`,
    );
  }
  if (err.code === 'EADDRNOTAVAIL' || err.code === 'ENOTFOUND') {
    return new HttpStartError(`cannot listen on ${host}:${port}: no such local address. Check MeetingAssistant.Http.Host.`);
  }
  return new HttpStartError(`cannot listen on ${host}:${port}: ${err.message}`);
}

import type { ClientRequest, IncomingMessage, RequestOptions } from 'node:http';
import { isFetchBlockedPort } from './blocked-port.js';
import { nodeHttp, readCappedText } from '../../http-io.js';

/**
 * The small requests made beside the model's answers: the endpoint's `GET /models` (the
 * start-up check, the wait for an endpoint that does not answer) and the servers' info pages
 * (server-window.ts). They go through node's own HTTP client, not fetch: fetch is undici, whose
 * JavaScript and WebAssembly parser cost a process about 8 MB (its code, its compiled
 * parser, the pages of node's binary they touch), and the daemon's own process makes no other
 * request (docs/design.md §8: the runs, which use fetch through the openai client, are in the
 * run process). Tests and `doctor` may pass a fetch instead (`fetchGet`). Errors look like
 * fetch's: a `TypeError('fetch failed')` whose cause is the socket's error, the signal's reason
 * when it fires, and the ports fetch refuses are refused here too (blocked-port.ts).
 */

export interface HttpAnswer {
  status: number;
  ok: boolean;
  /** The body as text; more than `cap` bytes end the read and throw `tooLarge()`. */
  text(cap: number, tooLarge: () => Error): Promise<string>;
  /** The body is not wanted. */
  discard(): void;
}

export interface HttpGetInit {
  method?: 'GET' | 'POST';
  headers?: Record<string, string>;
  body?: string;
  signal?: AbortSignal;
}

export type HttpGet = (url: string, init?: HttpGetInit) => Promise<HttpAnswer>;

/** A fetch as an HttpGet (tests' fakes, doctor's probes). */
export function fetchGet(fetchFn: typeof fetch): HttpGet {
  return async (url, init = {}) => {
    const response = await fetchFn(url, {
      method: init.method ?? 'GET',
      ...(init.headers && { headers: init.headers }),
      ...(init.body !== undefined && { body: init.body }),
      ...(init.signal && { signal: init.signal }),
    });
    return {
      status: response.status,
      ok: response.ok,
      text: (cap, tooLarge) => readCappedText(response, cap, tooLarge),
      discard: () => void response.body?.cancel().catch(() => undefined),
    };
  };
}

const failed = (cause: unknown) => new TypeError('fetch failed', { cause });

/** The redirects fetch follows before it fails ("redirect count exceeded"). */
const MAX_REDIRECTS = 20;
const REDIRECTS = new Set([301, 302, 303, 307, 308]);

/**
 * node:http (node:https for an https URL, loaded then), following redirects as fetch did: a
 * proxy in front of Ollama or LM Studio may answer 301 or 307, and the runs (fetch, through
 * the openai client) follow it, so the start-up check and the servers' info pages must too.
 * As fetch does, a 303 (and a POST's 301 or 302) becomes a GET without the body, and the key
 * (Authorization) is not sent to another origin.
 */
export const nodeGet: HttpGet = async (url, init = {}) => {
  let target = new URL(url);
  let current = init;
  for (let redirects = 0; ; redirects++) {
    const answer = await getOnce(target, current);
    if (!REDIRECTS.has(answer.status) || answer.location === undefined) return answer;
    answer.discard();
    if (redirects === MAX_REDIRECTS) throw failed(new Error('redirect count exceeded'));
    let next: URL;
    try {
      next = new URL(answer.location, target);
    } catch (err) {
      throw failed(err);
    }
    const asGet = answer.status === 303 || ((answer.status === 301 || answer.status === 302) && current.method === 'POST');
    const headers = { ...current.headers };
    if (next.origin !== target.origin) for (const name of Object.keys(headers)) if (name.toLowerCase() === 'authorization') delete headers[name];
    if (asGet) for (const name of Object.keys(headers)) if (name.toLowerCase() === 'content-type') delete headers[name];
    current = { ...current, headers, ...(asGet && { method: 'GET' as const, body: undefined }) };
    target = next;
  }
};

async function getOnce(target: URL, init: HttpGetInit): Promise<HttpAnswer & { location?: string }> {
  const secure = target.protocol === 'https:';
  if (!secure && target.protocol !== 'http:') throw failed(new Error(`unknown scheme ${target.protocol}`));
  const port = Number(target.port || (secure ? 443 : 80));
  if (isFetchBlockedPort(port)) throw failed(new Error('bad port'));
  if (init.signal?.aborted) throw init.signal.reason;
  const client = secure ? await import('node:https') : nodeHttp();
  const options: RequestOptions = {
    method: init.method ?? 'GET',
    // One connection per request, closed with it: probes minutes apart keep no socket open.
    agent: false,
    headers: { ...init.headers, ...(init.body !== undefined && { 'Content-Length': String(Buffer.byteLength(init.body)) }) },
  };
  return new Promise((resolve, reject) => {
    let request: ClientRequest | undefined;
    const onAbort = () => {
      request?.destroy();
      reject(init.signal!.reason);
    };
    init.signal?.addEventListener('abort', onAbort, { once: true });
    const done = () => init.signal?.removeEventListener('abort', onAbort);
    request = client.request(target, options, (response) => {
      const status = response.statusCode ?? 0;
      resolve({
        status,
        ok: status >= 200 && status < 300,
        ...(response.headers.location !== undefined && { location: response.headers.location }),
        text: (cap, tooLarge) => readBody(response, cap, tooLarge, init.signal).finally(done),
        discard: () => (done(), void response.destroy()),
      });
    });
    request.on('error', (err) => {
      done();
      reject(init.signal?.aborted ? init.signal.reason : failed(err));
    });
    request.end(init.body);
  });
}

/** Content-Encoding → the zlib stream that undoes it, as fetch undoes them. */
const DECODERS = { gzip: 'createGunzip', 'x-gzip': 'createGunzip', deflate: 'createInflate', br: 'createBrotliDecompress' } as const;

/**
 * The body as text, at most `cap` bytes once unpacked. We do not ask for a compressed answer,
 * but a server or proxy that compresses anyway is read as fetch read it, not handed to
 * JSON.parse as gzip's bytes.
 */
async function readBody(response: IncomingMessage, cap: number, tooLarge: () => Error, signal: AbortSignal | undefined): Promise<string> {
  const announced = Number(response.headers['content-length']);
  if (Number.isFinite(announced) && announced > cap) {
    response.destroy();
    throw tooLarge();
  }
  const encoding = response.headers['content-encoding']?.trim().toLowerCase();
  const decoder = encoding && encoding in DECODERS ? (await import('node:zlib'))[DECODERS[encoding as keyof typeof DECODERS]]() : undefined;
  return new Promise<string>((resolve, reject) => {
    const pieces: Buffer[] = [];
    let size = 0;
    const body = decoder ? response.pipe(decoder) : response;
    body.on('data', (piece: Buffer) => {
      size += piece.byteLength;
      if (size > cap) {
        // Said before the destroy, whose 'aborted' would otherwise speak first.
        reject(tooLarge());
        response.destroy();
        decoder?.destroy();
        return;
      }
      pieces.push(piece);
    });
    body.on('end', () => resolve(new TextDecoder().decode(Buffer.concat(pieces, size))));
    decoder?.on('error', (err) => {
      response.destroy();
      reject(failed(err));
    });
    response.on('error', (err) => reject(signal?.aborted ? signal.reason : failed(err)));
    response.on('aborted', () => reject(signal?.aborted ? signal.reason : failed(new Error('the answer was cut off'))));
  });
}

/**
 * The client the daemon's requests use: node's, unless node's fetch would go through a proxy
 * (`NODE_USE_ENV_PROXY` with `HTTP_PROXY`/`HTTPS_PROXY`, Node 22.21+ and 24.5+), where the runs
 * (fetch, through the openai client) reach the endpoint only through it: then fetch too, so that
 * the wait and the start-up check see the endpoint as the runs do.
 */
export function defaultGet(env: NodeJS.ProcessEnv = process.env): HttpGet {
  const proxied = /^(1|true)$/i.test(env.NODE_USE_ENV_PROXY ?? '') && [env.HTTP_PROXY, env.HTTPS_PROXY, env.http_proxy, env.https_proxy].some((v) => !!v);
  return proxied ? fetchGet(fetch) : nodeGet;
}

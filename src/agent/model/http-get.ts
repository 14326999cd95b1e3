import type { ClientRequest, IncomingMessage, RequestOptions } from 'node:http';
import { readCappedText } from './capped-text.js';

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

/** The ports the Fetch standard blocks ("bad ports"), as node's fetch refuses them. */
const BAD_PORTS = new Set([
  1, 7, 9, 11, 13, 15, 17, 19, 20, 21, 22, 23, 25, 37, 42, 43, 53, 69, 77, 79, 87, 95, 101, 102, 103, 104, 109, 110, 111, 113, 115,
  117, 119, 123, 135, 137, 139, 143, 161, 179, 389, 427, 465, 512, 513, 514, 515, 526, 530, 531, 532, 540, 548, 554, 556, 563, 587,
  601, 636, 989, 990, 993, 995, 1719, 1720, 1723, 2049, 3659, 4045, 4190, 5060, 5061, 6000, 6566, 6665, 6666, 6667, 6668, 6669, 6679,
  6697, 10080,
]);

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

/** node:http (node:https for an https URL, loaded then). */
export const nodeGet: HttpGet = async (url, init = {}) => {
  const target = new URL(url);
  const secure = target.protocol === 'https:';
  if (!secure && target.protocol !== 'http:') throw failed(new Error(`unknown scheme ${target.protocol}`));
  const port = Number(target.port || (secure ? 443 : 80));
  if (BAD_PORTS.has(port)) throw failed(new Error('bad port'));
  if (init.signal?.aborted) throw init.signal.reason;
  const client = secure ? await import('node:https') : await import('node:http');
  const options: RequestOptions = {
    method: init.method ?? 'GET',
    // One connection per request, closed with it: probes minutes apart keep no socket open.
    agent: false,
    headers: { ...init.headers, ...(init.body !== undefined && { 'Content-Length': String(Buffer.byteLength(init.body)) }) },
  };
  return new Promise<HttpAnswer>((resolve, reject) => {
    let request: ClientRequest | undefined;
    const onAbort = () => {
      request?.destroy();
      reject(init.signal!.reason);
    };
    init.signal?.addEventListener('abort', onAbort, { once: true });
    const done = () => init.signal?.removeEventListener('abort', onAbort);
    request = client.request(target, options, (response) => {
      const status = response.statusCode ?? 0;
      resolve({ status, ok: status >= 200 && status < 300, text: (cap, tooLarge) => readBody(response, cap, tooLarge, init.signal).finally(done), discard: () => (done(), void response.destroy()) });
    });
    request.on('error', (err) => {
      done();
      reject(init.signal?.aborted ? init.signal.reason : failed(err));
    });
    request.end(init.body);
  });
};

function readBody(response: IncomingMessage, cap: number, tooLarge: () => Error, signal: AbortSignal | undefined): Promise<string> {
  const announced = Number(response.headers['content-length']);
  if (Number.isFinite(announced) && announced > cap) {
    response.destroy();
    return Promise.reject(tooLarge());
  }
  return new Promise<string>((resolve, reject) => {
    const pieces: Buffer[] = [];
    let size = 0;
    response.on('data', (piece: Buffer) => {
      size += piece.byteLength;
      if (size > cap) {
        // Said before the destroy, whose 'aborted' would otherwise speak first.
        reject(tooLarge());
        response.destroy();
        return;
      }
      pieces.push(piece);
    });
    response.on('end', () => resolve(new TextDecoder().decode(Buffer.concat(pieces, size))));
    response.on('error', (err) => reject(signal?.aborted ? signal.reason : failed(err)));
    response.on('aborted', () => reject(signal?.aborted ? signal.reason : failed(new Error('the answer was cut off'))));
  });
}

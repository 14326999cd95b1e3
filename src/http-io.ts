import { createRequire } from 'node:module';
import type * as Http from 'node:http';

// The HTTP helpers every layer may use (docs/design.md §8): node:http without undici, and a body
// read with a cap.

/**
 * node:http as a CommonJS require, never as an ES import (docs/design.md §8). From node 22 on,
 * node:http has getters for WebSocket, CloseEvent and MessageEvent that load fetch's undici
 * (some 10 MB) when read; an ES import, static or dynamic, builds the module's namespace and so
 * reads every one of them. A require reads none.
 */
export function nodeHttp(): typeof Http {
  return createRequire(import.meta.url)('node:http') as typeof Http;
}
/**
 * Reading an HTTP body with a cap, for every exchange the daemon makes: the model's answers
 * (agent/model/exchange.ts), the small probes it makes without the openai client
 * (endpoint-check.ts, server-window.ts), which must not load it (docs/design.md §8: the idle
 * daemon's process holds no run code), and a calendar's address (calendar/fetch-source.ts).
 */

/** docs/design.md §3 step 4: an answer larger than this is refused (a failure, not retried). */
export const MAX_ANSWER_BYTES = 32 * 1024 * 1024;

/**
 * The body as text, read piece by piece so that no more than `cap` bytes are ever held: a
 * body announced or found larger is cancelled and `tooLarge()` thrown (a 600 MB answer once
 * took the daemon to 975 MB, issue #24). The caller's signal still cuts a stalled read.
 */
export async function readCappedText(response: Response, cap: number, tooLarge: () => Error): Promise<string> {
  const announced = Number(response.headers.get('content-length'));
  if (Number.isFinite(announced) && announced > cap) {
    await response.body?.cancel().catch(() => undefined);
    throw tooLarge();
  }
  if (!response.body) return '';
  const reader = response.body.getReader();
  const pieces: Uint8Array[] = [];
  let size = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    size += value.byteLength;
    if (size > cap) {
      await reader.cancel().catch(() => undefined);
      throw tooLarge();
    }
    pieces.push(value);
  }
  return new TextDecoder().decode(Buffer.concat(pieces, size));
}

import http, { type ServerResponse } from 'node:http';
import net from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import type { AskRequest } from '../../../src/ask/ask-run.js';
import { askRoutes, type StreamLimits } from '../../../src/daemon/http/ask-route.js';
import { waitFor } from '../../helpers/daemon-process.js';
import { capturedLogger } from '../../helpers/captured-log.js';

/**
 * Issue 43 point 7 (docs/design.md §11): `POST /api/ask` for a client that never reads. The
 * route on a real HTTP server and real sockets; the question is a stand-in that streams text
 * as fast as it is let, until it is stopped.
 */

const TOKEN = 'test-token';
const PIECE = 'x'.repeat(64 * 1024);

interface Harness {
  port: number;
  /** The largest writableLength of any response, sampled at every piece. */
  maxBuffered: () => number;
  /** Questions stopped by their signal so far, and answered. */
  stopped: () => number;
  answered: () => number;
  lines: ReturnType<typeof capturedLogger>['lines'];
  close(): Promise<void>;
}

const servers: Harness[] = [];
afterEach(async () => {
  await Promise.all(servers.splice(0).map((s) => s.close()));
});

/** `pieces`: how many 64 KB pieces a question streams, unless stopped; `pace` ms between them. */
async function harness(limits: StreamLimits, pieces: number, pace = 0): Promise<Harness> {
  const { log, lines } = capturedLogger();
  let current: ServerResponse | undefined;
  let maxBuffered = 0;
  let stopped = 0;
  let answered = 0;
  const ask = async (request: AskRequest) => {
    const res = current!;
    for (let i = 0; i < pieces; i++) {
      if (request.signal?.aborted) {
        stopped++;
        throw new Error('stopped');
      }
      request.onText?.(PIECE);
      maxBuffered = Math.max(maxBuffered, res.writableLength);
      await new Promise((r) => setTimeout(r, pace));
    }
    answered++;
    return { answer: 'short', sources: [], turns: 1, toolCalls: {} };
  };
  const route = askRoutes({ token: TOKEN, port: 0, maxConcurrent: 1, log, ask, limits }).find((r) => r.path === '/api/ask')!;
  const server = http.createServer((req, res) => {
    current = res;
    void route.handle(req, res, new URL(req.url!, 'http://127.0.0.1'));
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const port = (server.address() as net.AddressInfo).port;
  return {
    port,
    maxBuffered: () => maxBuffered,
    stopped: () => stopped,
    answered: () => answered,
    lines,
    close: () =>
      new Promise<void>((r) => {
        server.closeAllConnections();
        server.close(() => r());
      }),
  };
}

/** A client that sends a question and then never reads a byte. */
function stuckClient(port: number): net.Socket {
  const body = JSON.stringify({ question: 'Tell me everything.' });
  const socket = net.connect(port, '127.0.0.1');
  socket.on('error', () => undefined);
  socket.write(`POST /api/ask HTTP/1.1\r\nHost: 127.0.0.1:${port}\r\nAuthorization: Bearer ${TOKEN}\r\nContent-Type: application/json\r\nContent-Length: ${Buffer.byteLength(body)}\r\n\r\n${body}`);
  socket.pause();
  return socket;
}

async function askAndRead(port: number): Promise<string> {
  const res = await fetch(`http://127.0.0.1:${port}/api/ask`, { method: 'POST', headers: { authorization: `Bearer ${TOKEN}` }, body: JSON.stringify({ question: 'Next?' }) });
  return res.text();
}

describe('POST /api/ask and a client that never reads', () => {
  it('what waits for it stays within the bound; the stream is dropped, the question stopped, its slot freed', async () => {
    const limits = { maxBufferedBytes: 512 * 1024, drainTimeoutMs: 60_000 };
    // 25 MB of answer, as fast as it is let.
    const h = await harness(limits, 400);
    servers.push(h);
    const socket = stuckClient(h.port);
    await waitFor(() => h.stopped() + h.answered() === 1, 'the question to end');
    expect(h.stopped()).toBe(1);
    // Bounded: the limit and one piece at most (before, a 20 MB answer was held whole).
    expect(h.maxBuffered()).toBeGreaterThan(0);
    expect(h.maxBuffered()).toBeLessThanOrEqual(limits.maxBufferedBytes + PIECE.length + 1024);
    expect(h.lines.some((l) => l.msg.includes('reads too slowly'))).toBe(true);
    // The stuck client is still connected, and the one slot is free all the same.
    expect(await askAndRead(h.port)).toContain('event: done');
    socket.destroy();
  });

  it('a stream that does not drain within the timeout is dropped even below the bound, and the next question runs', async () => {
    const limits = { maxBufferedBytes: 1024 * 1024 * 1024, drainTimeoutMs: 300 };
    // A few pieces a second: the socket fills, then nothing drains.
    const h = await harness(limits, 400, 5);
    servers.push(h);
    const socket = stuckClient(h.port);
    await waitFor(() => h.stopped() + h.answered() === 1, 'the question to end');
    expect(h.stopped()).toBe(1);
    expect(h.lines.some((l) => l.msg.includes('did not drain in time'))).toBe(true);
    socket.destroy();
    // The one slot is free: a question from a client that reads gets its whole answer.
    const text = await askAndRead(h.port);
    expect(text).toContain('event: done');
    expect(h.answered()).toBe(1);
  });
});

import http from 'node:http';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import { gzipSync } from 'node:zlib';
import { describe, expect, it } from 'vitest';
import { BOTH_CLIENTS, loopbackServer } from '../../helpers/loopback-server.js';

/**
 * What the fetch the daemon's probes used to make did without being asked, and node's HTTP
 * client does not (agent/model/http-get.ts): a server behind a proxy that redirects, a server
 * that compresses its answers, a body that stalls after the headers, an IPv6 literal host.
 * Each case runs through both clients.
 */

const seen: { url?: string; method?: string; auth?: string }[] = [];
const json = JSON.stringify({ object: 'list', data: [{ id: 'm' }] });

function handle(req: http.IncomingMessage, res: http.ServerResponse): void {
  seen.push({ url: req.url, method: req.method, auth: req.headers.authorization });
  const url = req.url ?? '/';
  if (url === '/v1/models') {
    res.writeHead(200, { 'Content-Type': 'application/json' });
    return void res.end(json);
  }
  if (url === '/moved/models') {
    res.writeHead(301, { Location: '/v1/models' });
    return void res.end('moved');
  }
  if (url === '/temp/models') {
    res.writeHead(307, { Location: `${server.base}/v1/models` });
    return void res.end();
  }
  if (url === '/away/models') {
    res.writeHead(308, { Location: server.base.replace('127.0.0.1', 'localhost') + '/v1/models' });
    return void res.end();
  }
  if (url === '/loop') {
    res.writeHead(302, { Location: '/loop' });
    return void res.end();
  }
  if (url === '/gzip') {
    // A server (or proxy) that compresses whatever the client said it accepts.
    res.writeHead(200, { 'Content-Type': 'application/json', 'Content-Encoding': 'gzip' });
    return void res.end(gzipSync(json));
  }
  if (url === '/bomb') {
    res.writeHead(200, { 'Content-Type': 'application/json', 'Content-Encoding': 'gzip' });
    return void res.end(gzipSync(Buffer.alloc(4000, 'x')));
  }
  if (url === '/stall-body') {
    res.writeHead(200, { 'Content-Type': 'application/json' });
    return void res.write('{"object":');
  }
  res.writeHead(404);
  res.end();
}

const server = loopbackServer(handle);
const text = (answer: { text: (cap: number, tooLarge: () => Error) => Promise<string> }) => answer.text(1000, () => new Error('too large'));

describe.each(BOTH_CLIENTS)('%s', (_name, get) => {
  it('follows a redirect (a proxy in front of Ollama or LM Studio answering 301 or 307), keeping the key on the same server', async () => {
    const moved = await get(`${server.base}/moved/models`, { headers: { Authorization: 'Bearer k' } });
    expect([moved.status, moved.ok]).toEqual([200, true]);
    expect(JSON.parse(await text(moved))).toEqual(JSON.parse(json));
    expect(seen.at(-1)).toEqual({ url: '/v1/models', method: 'GET', auth: 'Bearer k' });
    const temp = await get(`${server.base}/temp/models`);
    expect(JSON.parse(await text(temp))).toEqual(JSON.parse(json));
    // Another origin (localhost is not 127.0.0.1) is not given the key.
    const away = await get(`${server.base}/away/models`, { headers: { Authorization: 'Bearer k' } });
    expect(JSON.parse(await text(away))).toEqual(JSON.parse(json));
    expect(seen.at(-1)).toEqual({ url: '/v1/models', method: 'GET', auth: undefined });
  });

  it('gives up on a redirect loop as fetch does', async () => {
    const looped = await get(`${server.base}/loop`).catch((err: unknown) => err);
    expect(looped).toBeInstanceOf(TypeError);
    expect((looped as Error).message).toBe('fetch failed');
  });

  it('reads an answer the server compressed, and the cap holds for what it unpacks to', async () => {
    expect(JSON.parse(await text(await get(`${server.base}/gzip`)))).toEqual(JSON.parse(json));
    await expect(text(await get(`${server.base}/bomb`))).rejects.toThrow('too large');
  });

  it('cuts a body that stalls after the headers when the signal fires', async () => {
    const answer = await get(`${server.base}/stall-body`, { signal: AbortSignal.timeout(300) });
    const err = await text(answer).catch((e: unknown) => e);
    expect((err as Error).name).toBe('TimeoutError');
  });
});

const hasIpv6Loopback = Object.values(os.networkInterfaces()).some((list) => list?.some((i) => i.family === 'IPv6' && i.internal));

describe.skipIf(!hasIpv6Loopback)('an IPv6 literal host (needs an IPv6 loopback)', () => {
  it.each(BOTH_CLIENTS)('%s asks http://[::1]:port', async (_name, get) => {
    const v6 = http.createServer(handle);
    await new Promise<void>((resolve) => v6.listen(0, '::1', resolve));
    try {
      const answer = await get(`http://[::1]:${(v6.address() as AddressInfo).port}/v1/models`);
      expect(JSON.parse(await text(answer))).toEqual(JSON.parse(json));
    } finally {
      v6.closeAllConnections();
      await new Promise((resolve) => v6.close(resolve));
    }
  });
});

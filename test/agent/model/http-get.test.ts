import { describe, expect, it } from 'vitest';
import { isBlockedPort } from '../../../src/agent/model/blocked-port.js';
import { nodeGet } from '../../../src/agent/model/http-get.js';
import { causeChain } from '../../../src/log.js';
import { freePort } from '../../helpers/daemon-process.js';
import { BOTH_CLIENTS, loopbackServer } from '../../helpers/loopback-server.js';

/**
 * The daemon's small requests (agent/model/http-get.ts) go through node's HTTP client; they
 * must behave as the fetch they replace: status, body, cap, the same errors for a refused
 * connection, a blocked port and a timeout. Each case runs through both.
 */

const seen: { method?: string; auth?: string; body: string }[] = [];

const server = loopbackServer((req, res) => {
  let body = '';
  req.on('data', (d: Buffer) => (body += d.toString()));
  req.on('end', () => {
    seen.push({ method: req.method, auth: req.headers.authorization, body });
    if (req.url === '/stall') return; // never answers
    if (req.url === '/big') {
      res.writeHead(200, { 'Content-Length': String(2000) });
      return res.end('x'.repeat(2000));
    }
    if (req.url === '/stream') {
      res.writeHead(200);
      res.write('y'.repeat(800));
      res.write('y'.repeat(800));
      return res.end();
    }
    res.writeHead(req.url === '/missing' ? 404 : 200, { 'Content-Type': 'application/json' });
    res.end(JSON.stringify({ ok: true, url: req.url }));
  });
});

describe.each(BOTH_CLIENTS)('%s', (_name, get) => {
  it('answers with the status and the body, sends the headers and a POST body', async () => {
    const ok = await get(`${server.base}/models`, { headers: { Authorization: 'Bearer k' } });
    expect([ok.status, ok.ok]).toEqual([200, true]);
    expect(JSON.parse(await ok.text(1000, () => new Error('big')))).toEqual({ ok: true, url: '/models' });
    const missing = await get(`${server.base}/missing`);
    expect([missing.status, missing.ok]).toEqual([404, false]);
    missing.discard();
    const posted = await get(`${server.base}/api/show`, { method: 'POST', body: '{"model":"m"}', headers: { 'Content-Type': 'application/json' } });
    await posted.text(1000, () => new Error('big'));
    expect(seen.at(-1)).toEqual({ method: 'POST', auth: undefined, body: '{"model":"m"}' });
    expect(seen.at(-3)).toMatchObject({ method: 'GET', auth: 'Bearer k' });
  });

  it('refuses a body over the cap, announced or streamed', async () => {
    await expect((await get(`${server.base}/big`)).text(1000, () => new Error('too large'))).rejects.toThrow('too large');
    await expect((await get(`${server.base}/stream`)).text(1000, () => new Error('too large'))).rejects.toThrow('too large');
  });

  it('fails as fetch does: a refused connection, a blocked port, a timeout', async () => {
    const port = await freePort();
    const refused = await get(`http://127.0.0.1:${port}/v1/models`).catch((err: unknown) => err);
    expect(refused).toBeInstanceOf(TypeError);
    expect(causeChain(refused)).toEqual([`TypeError: fetch failed`, `Error: connect ECONNREFUSED 127.0.0.1:${port} (ECONNREFUSED)`]);
    const blocked = await get('http://127.0.0.1:6000/v1/models').catch((err: unknown) => err);
    expect(isBlockedPort(blocked)).toBe(true);
    const stalled = await get(`${server.base}/stall`, { signal: AbortSignal.timeout(200) }).catch((err: unknown) => err);
    expect((stalled as Error).name).toBe('TimeoutError');
  });
});

describe('the client the daemon uses', () => {
  it('is node’s, unless node’s fetch would go through a proxy (NODE_USE_ENV_PROXY with a proxy set): then fetch, as the runs reach the endpoint', async () => {
    const { defaultGet } = await import('../../../src/agent/model/http-get.js');
    expect(defaultGet({})).toBe(nodeGet);
    expect(defaultGet({ HTTP_PROXY: 'http://proxy:3128' })).toBe(nodeGet);
    expect(defaultGet({ NODE_USE_ENV_PROXY: '1' })).toBe(nodeGet);
    const proxied = defaultGet({ NODE_USE_ENV_PROXY: '1', https_proxy: 'http://proxy:3128' });
    expect(proxied).not.toBe(nodeGet);
    // It is fetch underneath: the same answer through it.
    const answer = await proxied(`${server.base}/models`);
    expect(JSON.parse(await answer.text(1000, () => new Error('big')))).toEqual({ ok: true, url: '/models' });
  });
});

import type { ServerResponse } from 'node:http';
import { describe, expect, it } from 'vitest';
import { fetchCalendar } from '../../src/calendar/fetch-source.js';
import { freePort } from '../helpers/daemon-process.js';
import { loopbackServer } from '../helpers/loopback-server.js';

/** One fetch of a calendar URL (docs/design.md §12): conditional, capped, bounded in time, said without the address. */

const held: ServerResponse[] = [];
const server = loopbackServer((req, res) => {
  if (req.url?.startsWith('/endless')) {
    // No content-length: the cap must be found while reading.
    res.writeHead(200, { 'content-type': 'text/calendar' });
    const chunk = 'X'.repeat(1024);
    const timer = setInterval(() => res.write(chunk), 1);
    res.on('close', () => clearInterval(timer));
    return;
  }
  if (req.url?.startsWith('/silent')) {
    held.push(res);
    return;
  }
  if (req.headers['if-none-match'] === '"v2"') return void res.writeHead(304).end();
  res.writeHead(200, { etag: '"v2"' }).end('BEGIN:VCALENDAR\r\nEND:VCALENDAR');
});

const fetchImpl = (url: string, init: Parameters<typeof fetch>[1]) => fetch(url, init);

describe('fetchCalendar', () => {
  it('sends the validators and reads 304 as unchanged', async () => {
    const first = await fetchCalendar(fetchImpl, `${server.base}/cal.ics`, {}, { maxBytes: 1000 });
    expect(first).toEqual({ changed: true, text: 'BEGIN:VCALENDAR\r\nEND:VCALENDAR', validators: { etag: '"v2"' } });
    expect(await fetchCalendar(fetchImpl, `${server.base}/cal.ics`, { etag: '"v2"' }, { maxBytes: 1000 })).toEqual({ changed: false });
  });

  it('stops reading a body that grows past the cap, with no content-length to warn', async () => {
    await expect(fetchCalendar(fetchImpl, `${server.base}/endless/secret-token-77`, {}, { maxBytes: 64 * 1024 })).rejects.toThrow(
      /^larger than 65536 bytes \(Agent\.MaxFileBytes\)$/,
    );
  });

  it('gives up on a server that does not answer, and says so without the address', async () => {
    const err = await fetchCalendar(fetchImpl, `${server.base}/silent/secret-token-77?sig=abc`, {}, { maxBytes: 1000, timeoutMs: 300 }).catch((e: unknown) => e as Error);
    for (const res of held.splice(0)) res.destroy();
    expect(err).toBeInstanceOf(Error);
    expect((err as Error).message).toBe('no answer within 0.3 s');
    expect(String((err as Error).stack)).not.toContain('secret-token-77');
  });

  it('names a refused connection by its code only', async () => {
    const closed = `http://127.0.0.1:${await freePort()}/private/secret-token-77`;
    await expect(fetchCalendar(fetchImpl, closed, {}, { maxBytes: 1000, timeoutMs: 5000 })).rejects.toThrow(/^the connection was refused$/);
  });
});

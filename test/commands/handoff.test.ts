import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { CliError } from '../../src/commands/common.js';
import { handOff } from '../../src/commands/handoff.js';
import { memoryIo } from '../helpers/memory-io.js';
import { healthzProof, PROOF_HEADER } from '../../src/vault/files/state.js';

/**
 * `summarize`/`retry` handed to a running daemon (docs/design.md §2), against a stand-in of its
 * HTTP API: POST /api/retry answers as the daemon does, GET /api/status from a script of answers.
 */

const MEETING = 'Meetings/M.md';
const SUMMARY = 'Meetings/Summaries/M.md';
let close: (() => Promise<void>) | undefined;
afterEach(async () => {
  await close?.();
  close = undefined;
});

/** The routes the command posted to, in order. */
let posted: string[] = [];

/** `token`: the token the stand-in proves it holds at `/healthz?challenge=` (instance/daemon-proof.ts); null: it proves nothing. */
async function fakeDaemon(accepted: Record<string, unknown>, queueAt: (poll: number) => Record<string, unknown>, token: string | null = 't') {
  let polls = 0;
  posted = [];
  const server = http.createServer((req, res) => {
    const json = (status: number, body: unknown) => res.writeHead(status, { 'content-type': 'application/json' }).end(JSON.stringify(body));
    const url = new URL(req.url ?? '/', 'http://x');
    if (url.pathname === '/healthz') {
      const challenge = url.searchParams.get('challenge');
      return void res.writeHead(200, token !== null && challenge ? { [PROOF_HEADER]: healthzProof(token, challenge) } : {}).end('ok');
    }
    if (req.method === 'POST' && (req.url === '/api/retry' || req.url === '/api/summarize')) {
      posted.push(req.url);
      return void req.resume().on('end', () => json(202, accepted));
    }
    if (req.method === 'GET' && req.url === '/api/status') return void json(200, { queue: { pending: [], running: [], recent: [], ...queueAt(polls++) } });
    json(404, {});
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  close = () => new Promise<void>((resolve) => server.close(() => resolve()));
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
}

const deps = (io = memoryIo()) => ({ io, clock: () => new Date() });
const retryJob = { key: MEETING, kind: 'retry', target: SUMMARY };

describe('handOff', () => {
  it('posts nothing to an address whose holder cannot prove it holds the token (issue #43 point 2)', async () => {
    const url = await fakeDaemon({ note: MEETING, result: 'queued', meeting: MEETING }, () => ({}), null);
    const err = await handOff({ daemon: { pid: 4242, startedAt: 'then', http: url }, token: 't', kind: 'summarize', note: MEETING, pollMs: 5 }, deps()).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(CliError);
    expect((err as Error).message).toMatch(/is not this vault's daemon/);
    expect(posted).toEqual([]);
    // Nor to one that proves another token.
    await close?.();
    const other = await fakeDaemon({ note: MEETING, result: 'queued', meeting: MEETING }, () => ({}), 'another');
    await expect(handOff({ daemon: { pid: 4242, startedAt: 'then', http: other }, token: 't', kind: 'summarize', note: MEETING, pollMs: 5 }, deps())).rejects.toThrow(/is not this vault's daemon/);
    expect(posted).toEqual([]);
  });

  it('a summarize merged into a retry already waiting for the meeting follows that retry run to its outcome', { timeout: 10_000 }, async () => {
    const url = await fakeDaemon({ note: MEETING, result: 'merged', meeting: MEETING }, (poll) =>
      poll < 2
        ? { pending: [retryJob] }
        : { recent: [{ ...retryJob, status: 'done', summaryPath: SUMMARY, startedAt: new Date(Date.now() + 1).toISOString() }] },
    );
    const io = memoryIo();
    const code = await handOff({ daemon: { pid: 4242, startedAt: 'then', http: url }, token: 't', kind: 'summarize', note: MEETING, pollMs: 5 }, deps(io));
    // A summarize says so in its route (POST /api/summarize), not as a retry.
    expect(posted).toEqual(['/api/summarize']);
    expect(code).toBe(0);
    expect(io.outLines).toEqual([`summary: ${SUMMARY}`]);
  });

  it('a run the daemon neither lists nor reports is given up with a clear message, not waited for forever', async () => {
    const url = await fakeDaemon({ note: MEETING, result: 'queued', meeting: MEETING }, () => ({}));
    const err = await handOff(
      { daemon: { pid: 4242, startedAt: 'then', http: url }, token: 't', kind: 'summarize', note: MEETING, pollMs: 5, lostMs: 50 },
      deps(),
    ).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(CliError);
    expect((err as Error).message).toBe(
      'the daemon (pid 4242) no longer lists the run of Meetings/M.md and reports no outcome for it; see `meeting-assistant status` and the daemon\'s log',
    );
  });

  it('the wait is bounded: a run still going after waitMs leaves the command, not the daemon', async () => {
    const url = await fakeDaemon({ note: SUMMARY, result: 'follow-up', meeting: MEETING }, () => ({ running: [{ ...retryJob, startedAt: 'x', followUp: true }] }));
    const err = await handOff(
      { daemon: { pid: 4242, startedAt: 'then', http: url }, token: 't', kind: 'retry', note: SUMMARY, pollMs: 5, waitMs: 60 },
      deps(),
    ).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(CliError);
    expect((err as Error).message).toMatch(/^no outcome from the daemon \(pid 4242\) after \d+ minutes; the run goes on there/);
  });
});

describe('handOff: the real outcome', () => {
  it('a run the daemon stopped unfinished is not called a failure: it resumes at the next start', async () => {
    const url = await fakeDaemon({ note: SUMMARY, result: 'queued', meeting: MEETING }, () => ({
      recent: [{ ...retryJob, status: 'failed', aborted: true, message: 'ModelError (aborted): The model request was aborted.', startedAt: new Date(Date.now() + 1).toISOString() }],
    }));
    const io = memoryIo();
    const code = await handOff({ daemon: { pid: 4242, startedAt: 'then', http: url }, token: 't', kind: 'retry', note: SUMMARY, pollMs: 5 }, deps(io));
    expect(code).toBe(1);
    expect(io.errLines.at(-1)).toBe('not finished: the daemon stopped during the run; it resumes the meeting at its next start');
    expect(io.text()).not.toContain('aborted');
  });
});

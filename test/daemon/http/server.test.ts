import http from 'node:http';
import { mkdtempSync, mkdirSync, readFileSync, rmSync, symlinkSync, writeFileSync, existsSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { healthzProof, PROOF_HEADER, retrySignature, retryUrl, tokenMatches } from '../../../src/vault/files/state.js';
import { createApiHandlers } from '../../../src/daemon/http/api-handlers.js';
import { HttpStartError, type RunningHttpServer, startHttpServer } from '../../../src/daemon/http/server.js';
import type { Job } from '../../../src/daemon/runs/queue.js';
import { resolveConfig } from '../../../src/config.js';
import { silentLogger } from '../../../src/log.js';
import { nodeFs } from '../../../src/vault/files/fs.js';
import { Vault } from '../../../src/vault/files/vault.js';

const TOKEN = 'test-token-0123456789';
let dir: string;
let vault: Vault;
let server: RunningHttpServer;
const enqueued: Job[] = [];
let queueAnswer = 'queued';

function write(rel: string, content: string) {
  const file = path.join(dir, 'vault', rel);
  mkdirSync(path.dirname(file), { recursive: true });
  writeFileSync(file, content);
}

beforeAll(async () => {
  dir = mkdtempSync(path.join(os.tmpdir(), 'ma-http-'));
  write('Meetings/A.md', '---\ntitle: A\ntranscript: "[[Meetings/Transcripts/A]]"\n---\n');
  write('Meetings/Transcripts/A.md', '---\nmeeting: "[[Meetings/A]]"\nstate: transcribing\n---\n');
  write('Meetings/Summaries/A.md', '---\nmeeting: "[[Meetings/A]]"\nstatus: failed\nretry: false\n---\n# Summary failed: A\n');
  write('Meetings/Summaries/B.md', '---\nmeeting: "[[Meetings/B]]"\nstatus: done\n---\n## Summary\n');
  write('Meetings/Summaries/C.md', '---\ntitle: not a summary\n---\n');
  write('Meetings/Summaries/Sub folder/D 1.md', '---\nstatus: failed\n---\n');
  writeFileSync(path.join(dir, 'outside.md'), '---\nstatus: failed\n---\n');
  symlinkSync(path.join(dir, 'outside.md'), path.join(dir, 'vault/Meetings/Summaries/escape.md'));
  const config = resolveConfig({ MeetingAssistant: { VaultPath: path.join(dir, 'vault') } });
  vault = new Vault(nodeFs, config.layout);
  server = await startHttpServer({
    settings: { ...config.settings.Http, Port: 0 },
    token: TOKEN,
    log: silentLogger,
    handlers: createApiHandlers({
      vault,
      enqueue: (job) => {
        enqueued.push(job);
        return queueAnswer;
      },
      status: () => ({ queue: { running: [], pending: [] } }),
      clock: () => new Date(2026, 10, 30, 9, 5),
    }),
  });
});

afterAll(async () => {
  await server?.close();
  rmSync(dir, { recursive: true, force: true });
});

afterEach(() => {
  enqueued.length = 0;
  queueAnswer = 'queued';
});

interface Answer {
  status: number;
  body: string;
  headers: http.IncomingHttpHeaders;
}

function request(
  method: string,
  pathAndQuery: string,
  options: { body?: string | Buffer; headers?: Record<string, string> } = {},
): Promise<Answer> {
  return new Promise((resolve, reject) => {
    const req = http.request(
      { host: '127.0.0.1', port: server.port, method, path: pathAndQuery, headers: options.headers },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, body: Buffer.concat(chunks).toString('utf8'), headers: res.headers }));
      },
    );
    req.on('error', reject);
    if (options.body !== undefined) req.write(options.body);
    req.end();
  });
}

const auth = { authorization: `Bearer ${TOKEN}` };
/** A signed retry link, as failure reports write it (docs/design.md §1). */
const retryLink = (note: string, token = TOKEN) => `/retry?note=${encodeURIComponent(note)}&sig=${retrySignature(token, note)}`;

describe('HTTP API', () => {
  it('GET /healthz answers 200 ok without a token', async () => {
    const res = await request('GET', '/healthz');
    expect(res.status).toBe(200);
    expect(res.body).toBe('ok');
  });

  it('GET /healthz?challenge= proves the token in a header, keyed and bound to the challenge; the body stays ok (issue #43 point 2)', async () => {
    const challenge = 'c'.repeat(43);
    const res = await request('GET', `/healthz?challenge=${challenge}`);
    expect(res.body).toBe('ok');
    expect(res.headers[PROOF_HEADER]).toBe(healthzProof(TOKEN, challenge));
    expect(res.headers[PROOF_HEADER]).not.toBe(healthzProof(TOKEN, 'd'.repeat(43)));
    // A malformed challenge (a space, a dot, too short) is answered without a proof.
    for (const bad of ['short', 'has%20a%20space%20in%20it%20yes', 'x.md'.repeat(8)]) expect((await request('GET', `/healthz?challenge=${bad}`)).headers[PROOF_HEADER]).toBeUndefined();
  });

  it('the retry link with the token enqueues the retry and answers a small HTML page', async () => {
    const res = await request('GET', retryLink('Meetings/Summaries/A.md'));
    expect(res.status).toBe(200);
    expect(res.headers['content-type']).toMatch(/text\/html/);
    expect(res.body).toMatch(/Retry queued/);
    expect(res.body).toContain('Meetings/Summaries/A.md');
    expect(enqueued).toEqual([
      {
        key: path.join(dir, 'vault/Meetings/A.md'),
        kind: 'retry',
        target: path.join(dir, 'vault/Meetings/Summaries/A.md'),
        trigger: 'link',
      },
    ]);
  });

  it('the retry link accepts a good summary (status done) and paths with spaces', async () => {
    expect((await request('GET', retryLink('Meetings/Summaries/B.md'))).status).toBe(200);
    expect((await request('GET', retryLink('Meetings/Summaries/Sub folder/D 1.md'))).status).toBe(200);
    expect(enqueued).toHaveLength(2);
  });

  it('the retry link takes the token as a bearer header too', async () => {
    const res = await request('GET', `/retry?note=${encodeURIComponent('Meetings/Summaries/A.md')}`, { headers: auth });
    expect(res.status).toBe(200);
  });

  it('the retry link without a signature is 401, with a wrong one 403, and enqueues nothing', async () => {
    const none = await request('GET', `/retry?note=${encodeURIComponent('Meetings/Summaries/A.md')}`);
    const wrong = await request('GET', retryLink('Meetings/Summaries/A.md', 'wrong-token'));
    expect(none.status).toBe(401);
    expect(wrong.status).toBe(403);
    expect(none.body).toMatch(/Not authorized/);
    expect(enqueued).toEqual([]);
  });

  describe('signed per note (issue #24 point 10: the token in synced notes)', () => {
    const legacy = (note: string, token = TOKEN) => `/retry?note=${encodeURIComponent(note)}&token=${encodeURIComponent(token)}`;

    it("one note's signature does not retry another note: 403, nothing queued", async () => {
      const sigOfA = retrySignature(TOKEN, 'Meetings/Summaries/A.md');
      const res = await request('GET', `/retry?note=${encodeURIComponent('Meetings/Summaries/B.md')}&sig=${sigOfA}`);
      expect(res.status).toBe(403);
      expect(res.body).toMatch(/not signed for this note/);
      expect(enqueued).toEqual([]);
    });

    it("another spelling of the signed note's path, or a signature made with a rotated token, is refused alike: 403", async () => {
      const signed = 'Meetings/Summaries/A.md';
      const sig = retrySignature(TOKEN, signed);
      const spellings = ['Meetings/Summaries/A', './Meetings/Summaries/A.md', 'Meetings//Summaries/A.md', 'Meetings/Summaries/A.MD'];
      for (const note of spellings) {
        const res = await request('GET', `/retry?note=${encodeURIComponent(note)}&sig=${sig}`);
        expect(res.status, note).toBe(403);
      }
      // %2F and / decode to the same path: the same note, the same signature.
      expect((await request('GET', `/retry?note=Meetings/Summaries/A.md&sig=${sig}`)).status).toBe(200);
      // A signature made with another token (Http.Token changed since the report was written).
      expect((await request('GET', retryLink(signed, 'the-token-before-rotation'))).status).toBe(403);
      expect(enqueued).toHaveLength(1);
    });

    it('an old token= link is accepted for the note that still carries it, and for no other note', async () => {
      write('Meetings/Summaries/Old.md', `---\nmeeting: "[[Meetings/A]]"\nstatus: failed\nretry: false\n---\n# Summary failed: Old\n\n[Retry now](http://127.0.0.1:4777${legacy('Meetings/Summaries/Old.md')})\n`);
      expect((await request('GET', legacy('Meetings/Summaries/Old.md'))).status).toBe(200);
      expect(enqueued.map((j) => path.basename(j.target))).toEqual(['Old.md']);
      // The same token on a note whose text holds no such link (A), or a wrong token: refused.
      expect((await request('GET', legacy('Meetings/Summaries/A.md'))).status).toBe(403);
      expect((await request('GET', legacy('Meetings/Summaries/Old.md', 'wrong-token'))).status).toBe(401);
      // Once the note is rewritten (a new report with a signed link), its old link stops working.
      write('Meetings/Summaries/Old.md', `---\nmeeting: "[[Meetings/A]]"\nstatus: failed\nretry: false\n---\n# Summary failed: Old\n\n[Retry now](http://127.0.0.1:4777${retryLink('Meetings/Summaries/Old.md')})\n`);
      expect((await request('GET', legacy('Meetings/Summaries/Old.md'))).status).toBe(403);
      expect((await request('GET', retryLink('Meetings/Summaries/Old.md'))).status).toBe(200);
      expect(enqueued).toHaveLength(2);
    });

    it('the link a report carries holds the signature, never the token', () => {
      const link = retryUrl({ Host: '127.0.0.1', Port: 4777 } as Parameters<typeof retryUrl>[0], TOKEN, 'Meetings/Summaries/A.md');
      expect(link).toBe(`http://127.0.0.1:4777/retry?note=Meetings%2FSummaries%2FA.md&sig=${retrySignature(TOKEN, 'Meetings/Summaries/A.md')}`);
      expect(link).not.toContain(TOKEN);
      expect(link).not.toContain('token=');
    });
  });

  it.each([
    ['a note outside the summaries folder', 'Meetings/A.md'],
    ['a ".." path', 'Meetings/Summaries/../A.md'],
    ['a ".." path leaving the vault', '../outside.md'],
    ['an absolute path outside the vault', '/etc/passwd'],
    ['a NUL byte', 'Meetings/Summaries/A.md\0'],
    ['a backslash', 'Meetings\\Summaries\\A.md'],
    ['a symbolic link pointing out of the folder', 'Meetings/Summaries/escape.md'],
    ['a note that does not exist', 'Meetings/Summaries/Nope.md'],
    ['a note that is not a summary (no status)', 'Meetings/Summaries/C.md'],
    ['an empty note parameter', ''],
  ])('the retry link with %s is 400 and enqueues nothing', async (_what, note) => {
    const res = await request('GET', retryLink(note));
    expect(res.status).toBe(400);
    expect(res.body).toMatch(/Retry not queued/);
    expect(enqueued).toEqual([]);
  });

  it('a retry during shutdown is 503', async () => {
    queueAnswer = 'stopped';
    const res = await request('POST', '/api/retry', { body: JSON.stringify({ note: 'Meetings/Summaries/A.md' }), headers: auth });
    expect(res.status).toBe(503);
  });

  it('POST /api/retry needs the bearer token, then enqueues', async () => {
    const body = JSON.stringify({ note: 'Meetings/Summaries/A.md' });
    expect((await request('POST', '/api/retry', { body })).status).toBe(401);
    expect((await request('POST', '/api/retry', { body, headers: { authorization: 'Bearer nope' } })).status).toBe(401);
    expect(enqueued).toEqual([]);
    const res = await request('POST', '/api/retry', { body, headers: auth });
    expect(res.status).toBe(202);
    expect(JSON.parse(res.body)).toEqual({ note: 'Meetings/Summaries/A.md', result: 'queued', meeting: 'Meetings/A.md' });
    expect(enqueued[0]).toMatchObject({ kind: 'retry', trigger: 'api' });
    // The command line's hand-over says so: the page lists the run as started from the command line.
    expect((await request('POST', '/api/retry', { body: JSON.stringify({ note: 'Meetings/Summaries/A.md', from: 'cli' }), headers: auth })).status).toBe(202);
    expect(enqueued[1]).toMatchObject({ kind: 'retry', trigger: 'cli' });
  });

  it('POST /api/summarize runs a meeting (token needed); /api/retry still takes {"meeting"} from older command lines', async () => {
    const body = JSON.stringify({ meeting: 'Meetings/A.md' });
    expect((await request('POST', '/api/summarize', { body })).status).toBe(401);
    const res = await request('POST', '/api/summarize', { body, headers: auth });
    expect(res.status).toBe(202);
    expect(enqueued.at(-1)).toMatchObject({ kind: 'summarize', target: vault.abs('Meetings/A.md') });
    expect((await request('POST', '/api/retry', { body, headers: auth })).status).toBe(202);
    expect(enqueued.at(-1)).toMatchObject({ kind: 'summarize' });
    expect((await request('POST', '/api/summarize', { body: JSON.stringify({ meeting: '../outside.md' }), headers: auth })).status).toBe(400);
  });

  it('POST /api/retry with a path outside the summaries folder is 400', async () => {
    const res = await request('POST', '/api/retry', { body: JSON.stringify({ note: '../outside.md' }), headers: auth });
    expect(res.status).toBe(400);
    expect(JSON.parse(res.body).error).toMatch(/\.\./);
  });

  it('rejects bodies over 64 KB with 413, and invalid JSON with 400', async () => {
    const big = await request('POST', '/api/retry', { body: JSON.stringify({ note: 'x'.repeat(70 * 1024) }), headers: auth });
    expect(big.status).toBe(413);
    const bad = await request('POST', '/api/retry', { body: '{not json', headers: auth });
    expect(bad.status).toBe(400);
  });

  it('refuses a non-loopback Host header (DNS rebinding) with 421', async () => {
    const res = await request('GET', '/api/status', { headers: { ...auth, host: 'evil.example:4777' } });
    expect(res.status).toBe(421);
    const ok = await request('GET', '/healthz', { headers: { host: 'localhost:4777' } });
    expect(ok.status).toBe(200);
  });

  it('GET /api/status needs the token and answers JSON', async () => {
    expect((await request('GET', '/api/status')).status).toBe(401);
    const res = await request('GET', '/api/status', { headers: auth });
    expect(res.status).toBe(200);
    expect(JSON.parse(res.body)).toEqual({ queue: { running: [], pending: [] } });
  });

  it('a HEAD request to the retry link (a link previewer) changes nothing', async () => {
    const res = await request('HEAD', retryLink('Meetings/Summaries/A.md'));
    expect(res.status).toBe(405);
    expect(enqueued).toEqual([]);
    expect((await request('HEAD', '/healthz')).status).toBe(200);
  });

  it('unknown routes are 404 and wrong methods 405', async () => {
    expect((await request('GET', '/nope')).status).toBe(404);
    const res = await request('DELETE', '/api/status', { headers: auth });
    expect(res.status).toBe(405);
    expect(res.headers.allow).toBe('GET');
  });

  it('POST /api/sessions creates the three notes like session start', async () => {
    const res = await request('POST', '/api/sessions', {
      body: JSON.stringify({ title: 'Design: review', projects: ['Alpha'], agenda: 'API', scheduledEnd: '2026-11-30T10:00:00+01:00' }),
      headers: auth,
    });
    expect(res.status).toBe(201);
    const notes = JSON.parse(res.body) as Record<string, string>;
    expect(notes).toEqual({
      meeting: 'Meetings/2026-11-30 0905 Design- review.md',
      transcript: 'Meetings/Transcripts/2026-11-30 0905 Design- review.md',
      context: 'Meetings/Context/2026-11-30 0905 Design- review.md',
    });
    const context = readFileSync(path.join(dir, 'vault', notes.context!), 'utf8');
    expect(context).toMatch(/^agenda: API$/m);
    expect(context).toMatch(/^scheduled_end: 2026-11-30T10:00:00\+01:00$/m);
    const again = await request('POST', '/api/sessions', { body: JSON.stringify({ title: 'Design: review' }), headers: auth });
    expect(again.status).toBe(409);
    expect((await request('POST', '/api/sessions', { body: JSON.stringify({}), headers: auth })).status).toBe(400);
  });

  it('PUT /api/sessions/state sets the context state; a bad state or a meeting outside the vault is 400', async () => {
    const created = await request('POST', '/api/sessions', { body: JSON.stringify({ title: 'State test' }), headers: auth });
    const { meeting, context } = JSON.parse(created.body) as Record<string, string>;
    const res = await request('PUT', '/api/sessions/state', {
      body: JSON.stringify({ meeting, state: 'speaker recognition' }),
      headers: auth,
    });
    expect(res.status).toBe(200);
    expect(readFileSync(path.join(dir, 'vault', context!), 'utf8')).toMatch(/^state: speaker recognition$/m);
    const bad = await request('PUT', '/api/sessions/state', { body: JSON.stringify({ meeting, state: 'done' }), headers: auth });
    expect(bad.status).toBe(400);
    const outside = await request('PUT', '/api/sessions/state', {
      body: JSON.stringify({ meeting: '../outside.md', state: 'finished' }),
      headers: auth,
    });
    expect(outside.status).toBe(400);
    expect(readFileSync(path.join(dir, 'outside.md'), 'utf8')).not.toMatch(/finished/);
  });

  it('PUT /api/sessions/state refuses the daemon\'s own states (400, pointing to /api/sessions/finish) and writes nothing', async () => {
    const created = await request('POST', '/api/sessions', { body: JSON.stringify({ title: 'Refusal test' }), headers: auth });
    const { meeting, context } = JSON.parse(created.body) as Record<string, string>;
    const before = readFileSync(path.join(dir, 'vault', context!), 'utf8');
    for (const state of ['summarizing', 'finished', 'error']) {
      const res = await request('PUT', '/api/sessions/state', { body: JSON.stringify({ meeting, state }), headers: auth });
      expect(res.status).toBe(400);
      expect(res.body).toContain('/api/sessions/finish');
    }
    expect(readFileSync(path.join(dir, 'vault', context!), 'utf8')).toBe(before);
  });

  it('PUT /api/sessions/finish sets the transcript to Daemon.TriggerState and writes end_time; outside the vault is 400, no token 401', async () => {
    const created = await request('POST', '/api/sessions', { body: JSON.stringify({ title: 'Finish test' }), headers: auth });
    const { meeting, transcript, context } = JSON.parse(created.body) as Record<string, string>;
    const res = await request('PUT', '/api/sessions/finish', { body: JSON.stringify({ meeting }), headers: auth });
    expect(res.status).toBe(200);
    expect(JSON.parse(res.body)).toMatchObject({ meeting, transcript, state: 'finished', wrote_end_time: [meeting, context] });
    expect(readFileSync(path.join(dir, 'vault', transcript!), 'utf8')).toMatch(/^state: finished$/m);
    expect(readFileSync(path.join(dir, 'vault', meeting!), 'utf8')).toMatch(/^end_time: /m);
    expect(readFileSync(path.join(dir, 'vault', context!), 'utf8')).toMatch(/^end_time: /m);
    expect((await request('PUT', '/api/sessions/finish', { body: JSON.stringify({ meeting: '../outside.md' }), headers: auth })).status).toBe(400);
    expect((await request('PUT', '/api/sessions/finish', { body: JSON.stringify({ meeting }) })).status).toBe(401);
  });

  it('PUT /api/sessions/state never writes a person\'s note named by `context` (a `meeting` link but no `state`): 422', async () => {
    const minutes = '---\nmeeting: "[[Meetings/Rec]]"\n---\nWhat Alice wrote.\n';
    write('Meetings/Rec.md', '---\ntitle: Rec\ntranscript: "[[Meetings/Transcripts/Rec]]"\ncontext: "[[Notes/Minutes]]"\n---\n');
    write('Meetings/Transcripts/Rec.md', '---\nmeeting: "[[Meetings/Rec]]"\nstate: transcribing\n---\n');
    write('Notes/Minutes.md', minutes);
    const res = await request('PUT', '/api/sessions/state', { body: JSON.stringify({ meeting: 'Meetings/Rec.md', state: 'speaker recognition' }), headers: auth });
    expect(res.status).toBe(422);
    expect(res.body).toMatch(/Notes\/Minutes\.md/);
    expect(readFileSync(path.join(dir, 'vault/Notes/Minutes.md'), 'utf8')).toBe(minutes);
  });

  it('a port in use is a clear start error naming the port and Http.Port', async () => {
    const config = resolveConfig({ MeetingAssistant: {} });
    const err = await startHttpServer({
      settings: { ...config.settings.Http, Port: server.port },
      token: TOKEN,
      log: silentLogger,
      handlers: createApiHandlers({ vault, enqueue: () => 'queued', status: () => ({}) }),
    }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(HttpStartError);
    expect((err as Error).message).toContain(`127.0.0.1:${server.port}`);
    expect((err as Error).message).toMatch(/already in use/);
    expect((err as Error).message).toContain('MeetingAssistant.Http.Port');
  });

  it('compares tokens in constant time and never accepts an empty one', () => {
    expect(tokenMatches(TOKEN, TOKEN)).toBe(true);
    expect(tokenMatches(TOKEN.slice(0, -1), TOKEN)).toBe(false);
    expect(tokenMatches('', '')).toBe(false);
    expect(tokenMatches(undefined, TOKEN)).toBe(false);
  });

  it('nothing outside the vault was created by any of this', () => {
    expect(existsSync(path.join(dir, 'Meetings'))).toBe(false);
  });
});

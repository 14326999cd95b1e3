import http from 'node:http';
import { mkdirSync, readFileSync, symlinkSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { retrySignature } from '../../src/vault/files/state.js';
import { FaultTally, snapshotDiff, snapshotDir } from '../helpers/faults.js';
import { type DaemonProcess, startDaemonProcess } from '../helpers/daemon-process.js';
import { daemonSetup, type DaemonSetup, daemonTestFile, meetingNote, summarizingModel, transcriptNote } from '../helpers/daemon-helpers.js';

/**
 * The HTTP API of the real daemon under hostile requests: no or wrong token, path traversal
 * in `note`/`meeting`, a non-loopback Host header (DNS rebinding), oversized and malformed
 * bodies. Each is refused with the right status and changes nothing: the vault (and a folder
 * beside it) is snapshotted before and after every request, and no job is ever queued.
 */

const tally = new FaultTally('HTTP API');

let setup: DaemonSetup;
let daemon: DaemonProcess;
let token: string;
let outside: string;

interface Answer {
  status: number;
  body: string;
}

interface Request {
  method: string;
  path: string;
  headers?: Record<string, string>;
  /** A string body is sent whole; an array is sent chunk by chunk (no content-length). */
  body?: string | string[];
}

function send(req: Request): Promise<Answer> {
  return new Promise((resolve, reject) => {
    const r = http.request(
      { host: '127.0.0.1', port: setup.port, method: req.method, path: req.path, headers: { connection: 'close', ...req.headers } },
      (res) => {
        let body = '';
        res.setEncoding('utf8');
        res.on('data', (d: string) => (body += d));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, body }));
        res.on('error', reject);
      },
    );
    // The server may answer and close before a large body is sent: that is a refusal, not an error.
    r.on('error', (err: NodeJS.ErrnoException) => (err.code === 'EPIPE' || err.code === 'ECONNRESET' ? undefined : reject(err)));
    if (Array.isArray(req.body)) {
      for (const chunk of req.body) r.write(chunk);
      r.end();
    } else {
      r.end(req.body);
    }
  });
}

const bearer = (t: string) => ({ authorization: `Bearer ${t}` });
const json = { 'content-type': 'application/json' };
const SUMMARY = 'Meetings/Summaries/Failed.md';

const file = daemonTestFile('all');

beforeAll(async () => {
  file.server.setFallback(summarizingModel());
  setup = await daemonSetup(file.server);
  setup.write('Meetings/Failed.md', meetingNote('Failed'));
  setup.write('Meetings/Transcripts/Failed.md', transcriptNote('Failed', 'transcribing'));
  setup.write(SUMMARY, '---\nmeeting: "[[Meetings/Failed]]"\nstatus: failed\nretry: false\n---\n# Summary failed: Failed\n');
  outside = path.join(setup.dir, 'outside');
  mkdirSync(outside);
  writeFileSync(path.join(outside, 'secret.md'), '---\nstatus: failed\nmeeting: "[[Meetings/Failed]]"\n---\nsecret\n');
  symlinkSync(path.join(outside, 'secret.md'), path.join(setup.vault, 'Meetings/Summaries/Escape.md'));
  daemon = await startDaemonProcess({ configPath: setup.configPath });
  token = readFileSync(path.join(setup.vault, '.meeting-assistant/token'), 'utf8').trim();
});

interface HostileRequest {
  name: string;
  /** Built lazily: the token and paths are known only once the daemon runs. */
  request: () => Request;
  status: number;
}

const retryApi = (note: unknown, headers: Record<string, string> = bearer(token)): Request => ({
  method: 'POST',
  path: '/api/retry',
  headers: { ...json, ...headers },
  body: JSON.stringify({ note }),
});
const retryLink = (note: string, t = token) => ({ method: 'GET', path: `/retry?note=${encodeURIComponent(note)}&sig=${retrySignature(t, note)}` });

const CASES: HostileRequest[] = [
  // No or wrong token
  { name: 'POST /api/retry without a token', request: () => retryApi(SUMMARY, {}), status: 401 },
  { name: 'POST /api/retry with a wrong token', request: () => retryApi(SUMMARY, bearer('wrong-token')), status: 401 },
  { name: 'POST /api/retry with an empty bearer', request: () => retryApi(SUMMARY, { authorization: 'Bearer ' }), status: 401 },
  { name: 'POST /api/retry with the token as Basic auth', request: () => retryApi(SUMMARY, { authorization: `Basic ${token}` }), status: 401 },
  { name: 'POST /api/retry with the token in the query string only', request: () => ({ ...retryApi(SUMMARY, {}), path: `/api/retry?token=${token}` }), status: 401 },
  { name: 'POST /api/retry with a prefix of the token', request: () => retryApi(SUMMARY, bearer(token.slice(0, -1))), status: 401 },
  { name: 'POST /api/retry with the token in upper case', request: () => retryApi(SUMMARY, bearer(token.toUpperCase())), status: 401 },
  { name: 'GET /retry link without a token', request: () => ({ method: 'GET', path: `/retry?note=${encodeURIComponent(SUMMARY)}` }), status: 401 },
  { name: 'GET /retry link with a wrong signature', request: () => retryLink(SUMMARY, 'nope'), status: 403 },
  { name: 'GET /retry link with the token in the query (the old form), for a note that does not hold that link', request: () => ({ method: 'GET', path: `/retry?note=${encodeURIComponent(SUMMARY)}&token=${encodeURIComponent(token)}` }), status: 403 },
  { name: 'GET /api/status without a token', request: () => ({ method: 'GET', path: '/api/status' }), status: 401 },
  { name: 'POST /api/sessions without a token', request: () => ({ method: 'POST', path: '/api/sessions', headers: json, body: JSON.stringify({ title: 'Sneaky' }) }), status: 401 },
  {
    name: 'PUT /api/sessions/state with a wrong token',
    request: () => ({ method: 'PUT', path: '/api/sessions/state', headers: { ...json, ...bearer('x') }, body: JSON.stringify({ meeting: 'Meetings/Failed.md', state: 'transcribing' }) }),
    status: 401,
  },
  // Path traversal in `note` and `meeting`
  { name: 'note "../../etc/passwd"', request: () => retryApi('../../etc/passwd'), status: 400 },
  { name: 'note leaving the summaries folder "Meetings/Summaries/../Failed.md"', request: () => retryApi('Meetings/Summaries/../Failed.md'), status: 400 },
  { name: 'note "/etc/passwd"', request: () => retryApi('/etc/passwd'), status: 400 },
  { name: 'note as an absolute path inside the vault but outside the summaries', request: () => retryApi(path.join(setup.vault, 'Meetings/Failed.md')), status: 400 },
  { name: 'note through the summaries folder to outside the vault', request: () => retryApi('Meetings/Summaries/../../../outside/secret.md'), status: 400 },
  { name: 'note with backslashes', request: () => retryApi('Meetings\\Summaries\\..\\..\\..\\outside\\secret.md'), status: 400 },
  { name: 'note with a NUL byte', request: () => retryApi(`${SUMMARY}\u0000../../etc/passwd`), status: 400 },
  { name: 'note as a wikilink out of the vault', request: () => retryApi('[[../../outside/secret]]'), status: 400 },
  { name: 'note: a symbolic link in the summaries folder pointing outside', request: () => retryApi('Meetings/Summaries/Escape.md'), status: 400 },
  { name: 'note: a meeting note, not a summary', request: () => retryApi('Meetings/Failed.md'), status: 400 },
  { name: 'note: the summaries folder itself', request: () => retryApi('Meetings/Summaries'), status: 400 },
  { name: 'note 10,000 characters long', request: () => retryApi(`Meetings/Summaries/${'a/'.repeat(5000)}x.md`), status: 400 },
  { name: 'note as an object', request: () => retryApi({ path: SUMMARY }), status: 400 },
  { name: 'note as an array', request: () => retryApi([SUMMARY]), status: 400 },
  { name: 'GET /retry with a URL-encoded "../.."', request: () => ({ method: 'GET', path: `/retry?note=%2e%2e%2f%2e%2e%2fetc%2fpasswd&sig=${retrySignature(token, '../../etc/passwd')}` }), status: 400 },
  { name: 'GET /retry with a double-encoded "../.."', request: () => ({ method: 'GET', path: `/retry?note=%252e%252e%252f%252e%252e%252fetc%252fpasswd&sig=${retrySignature(token, '%2e%2e%2f%2e%2e%2fetc%2fpasswd')}` }), status: 400 },
  { name: 'GET /retry through a symbolic link out', request: () => retryLink('Meetings/Summaries/Escape.md'), status: 400 },
  {
    name: 'PUT /api/sessions/state with a meeting outside the vault',
    request: () => ({ method: 'PUT', path: '/api/sessions/state', headers: { ...json, ...bearer(token) }, body: JSON.stringify({ meeting: '../outside/secret.md', state: 'transcribing' }) }),
    status: 400,
  },
  {
    name: 'PUT /api/sessions/state with an absolute meeting path',
    request: () => ({ method: 'PUT', path: '/api/sessions/state', headers: { ...json, ...bearer(token) }, body: JSON.stringify({ meeting: path.join(outside, 'secret.md'), state: 'transcribing' }) }),
    status: 400,
  },
  // A non-loopback Host header (DNS rebinding), even with the right token
  { name: 'Host: evil.example', request: () => ({ ...retryApi(SUMMARY), headers: { ...json, ...bearer(token), host: 'evil.example' } }), status: 421 },
  { name: 'Host: 127.0.0.1.evil.example', request: () => ({ ...retryLink(SUMMARY), headers: { host: '127.0.0.1.evil.example' } }), status: 421 },
  { name: 'Host: localhost.evil.example:4777', request: () => ({ method: 'GET', path: '/api/status', headers: { ...bearer(token), host: 'localhost.evil.example:4777' } }), status: 421 },
  { name: 'Host: 0.0.0.0', request: () => ({ ...retryApi(SUMMARY), headers: { ...json, ...bearer(token), host: '0.0.0.0' } }), status: 421 },
  { name: 'Host: 192.168.1.10 on the sessions route', request: () => ({ method: 'POST', path: '/api/sessions', headers: { ...json, ...bearer(token), host: '192.168.1.10' }, body: JSON.stringify({ title: 'Rebound' }) }), status: 421 },
  // Oversized and malformed bodies
  { name: 'a declared Content-Length of 10 MB', request: () => ({ ...retryApi(SUMMARY), headers: { ...json, ...bearer(token), 'content-length': String(10 * 1024 * 1024) }, body: '{' }), status: 413 },
  { name: 'a 1 MB body sent in chunks without a length', request: () => ({ method: 'POST', path: '/api/sessions', headers: { ...json, ...bearer(token) }, body: ['{"title": "', ...Array.from({ length: 64 }, () => 'x'.repeat(16 * 1024)), '"}'] }), status: 413 },
  { name: 'a 65 KB JSON body', request: () => retryApi(`${SUMMARY}${' '.repeat(65 * 1024)}`), status: 413 },
  { name: 'a body that is not JSON', request: () => ({ ...retryApi(SUMMARY), body: '{"note": ' }), status: 400 },
  { name: 'a JSON array as the body', request: () => ({ ...retryApi(SUMMARY), body: JSON.stringify([{ note: SUMMARY }]) }), status: 400 },
  { name: 'a session with an empty title', request: () => ({ method: 'POST', path: '/api/sessions', headers: { ...json, ...bearer(token) }, body: JSON.stringify({ title: '  ' }) }), status: 400 },
];

describe('fault suite: HTTP API (real daemon): refused, nothing changed', () => {
  it.each(CASES.map((c) => [c.name, c] as const))('%s', async (name, c) => {
    await tally.check(name, async () => {
      const skip = (rel: string) => rel === '.meeting-assistant';
      const before = snapshotDir(setup.vault, { skip });
      const outsideBefore = snapshotDir(outside);
      const answer = await send(c.request());
      expect(answer.status, answer.body).toBe(c.status);
      expect(snapshotDiff(before, snapshotDir(setup.vault, { skip }))).toEqual([]);
      expect(snapshotDiff(outsideBefore, snapshotDir(outside))).toEqual([]);
    });
  });

  it(`survived every hostile request: ${CASES.length} cases, nothing queued, the API still serves the right token`, async () => {
    expect(daemon.logs.filter((l) => typeof l.msg === 'string' && /^(retry|summarize) (queued|merged|follow-up)/.test(l.msg))).toEqual([]);
    expect(daemon.logs.filter((l) => l.msg === 'HTTP request failed' || l.msg === 'HTTP handler crashed')).toEqual([]);
    expect(file.server.modelRequests()).toHaveLength(0);
    // The refusals were about the requests, not a broken API: the right token still works.
    const status = await send({ method: 'GET', path: '/api/status', headers: bearer(token) });
    expect(status.status).toBe(200);
    expect(JSON.parse(status.body).queue).toMatchObject({ running: [], pending: [] });
    expect((await send({ method: 'GET', path: '/healthz' })).body).toBe('ok');
    console.log(tally.summary());
    expect(tally.lost).toEqual([]);
    expect(tally.runCount).toBe(CASES.length);
    expect(tally.survivedCount).toBe(CASES.length);
  });
});

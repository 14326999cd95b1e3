import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { resolveConfig } from '../../../src/config.js';
import { ApiError, type RunningHttpServer, startHttpServer } from '../../../src/daemon/http/server.js';
import { csrfValue, pageRoutes, sessionCookieName, sessionValue } from '../../../src/daemon/http/page-routes.js';
import { RunBoard } from '../../../src/daemon/runs/run-board.js';
import { RUN_HISTORY_FILE, RunHistory } from '../../../src/daemon/runs/run-history.js';
import { renderPage } from '../../../src/daemon/http/status-page.js';
import { buildStatusView, type StatusView } from '../../../src/daemon/http/status-view.js';
import { serveHttp } from '../../../src/daemon/http/serve.js';
import { ServerWindowSource } from '../../../src/agent/window/server-window.js';
import { silentLogger } from '../../../src/log.js';
import { memoryVault, testConfig } from '../../helpers/memfs.js';
import { runRecord } from '../../helpers/run-records.js';

/** The status page's parts without a daemon: history, board, view, HTML, routes and their auth. */

const run = runRecord;

function viewOf(board: RunBoard, pending: StatusView['pending'] = []): StatusView {
  return buildStatusView({
    version: '9.9.9',
    startedAt: new Date('2026-11-30T09:00:00Z'),
    vaultRoot: '/home/ann/Work Notes',
    board,
    pending: () => pending,
    stopping: () => false,
    endpoint: { url: 'http://127.0.0.1:11434/v1', model: 'qwen3:8b', api: 'chat-completions' },
    endpointWindow: () => 32768,
    clock: () => new Date('2026-11-30T11:00:00Z'),
  });
}

describe('run history and board', () => {
  it('keeps the newest runs up to the limit in runs.jsonl and reads them back after a restart, skipping broken lines', async () => {
    const vault = memoryVault();
    const history = new RunHistory(vault, silentLogger, 3);
    for (let i = 1; i <= 5; i++) await history.add(run(`M${i}`, 'done', i));
    expect(history.list().map((r) => r.title)).toEqual(['M5', 'M4', 'M3']);
    const file = `${vault.root}/.meeting-assistant/${RUN_HISTORY_FILE}`;
    const text = await vault.read(file);
    expect(text.trim().split('\n')).toHaveLength(3);

    await vault.fs.writeFile(file, `${text}not json\n{"runId":"x"}\n`);
    const again = new RunHistory(vault, silentLogger, 3);
    await again.load();
    expect(again.list().map((r) => r.title)).toEqual(['M5', 'M4', 'M3']);
  });

  it('follows a run by its meeting: transcript part, then turn and tokens of the window; a skipped job leaves no record', async () => {
    const board = new RunBoard(new RunHistory(memoryVault(), silentLogger));
    const started = { meeting: 'Meetings/A.md', kind: 'summarize', trigger: 'transcript', startedAt: '2026-11-30T10:59:00Z' } as const;
    board.start('/vault/Meetings/A.md', started);
    board.progress('/vault/Meetings/A.md', 'abc', { kind: 'transcript-part', part: 2, parts: 5, from: 301, to: 600 });
    expect(board.live()).toEqual([{ ...started, runId: 'abc', transcriptPart: { part: 2, parts: 5, from: 301, to: 600 } }]);
    expect(renderPage(viewOf(board), 'csrf')).toContain('transcript part 2 of 5 (lines 301–600)');
    board.progress('/vault/Meetings/A.md', 'abc', { kind: 'transcript-part', part: 5, parts: 5, from: 1201, to: 1500 });
    expect(renderPage(viewOf(board), 'csrf')).toContain('transcript part 5 of 5 (lines 1201–1500)');
    // The notes of the parts are done once the main conversation sends its first request.
    board.progress('/vault/Meetings/A.md', 'abc', { kind: 'turn', turn: 1, maxTurns: 60 });
    board.progress('/vault/Meetings/A.md', 'abc', { kind: 'turn', turn: 3, maxTurns: 60 });
    board.progress('/vault/Meetings/A.md', 'abc', { kind: 'context', tokens: 12345, window: 32768 });
    board.progress('/vault/Meetings/Other.md', 'zzz', { kind: 'turn', turn: 1, maxTurns: 60 });
    expect(board.live()).toEqual([{ ...started, runId: 'abc', turn: { turn: 3, maxTurns: 60 }, context: { tokens: 12345, window: 32768 } }]);
    const html = renderPage(viewOf(board), 'csrf');
    expect(html).toContain('turn 3 of at most 60');
    expect(html).not.toContain('transcript part');
    expect(html).toContain('12,345 of 32,768 tokens');
    await board.finish('/vault/Meetings/A.md', undefined);
    expect(board.live()).toEqual([]);
    expect(board.history.list()).toEqual([]);
  });
});

describe('status view and HTML', () => {
  it('lists a failure only while it is the latest run of its meeting; a queued retry replaces its button', async () => {
    const board = new RunBoard(new RunHistory(memoryVault(), silentLogger));
    await board.history.add(run('Fixed', 'failed', 1));
    await board.history.add(run('Fixed', 'done', 2));
    await board.history.add(run('Broken', 'failed', 3));
    await board.history.add(run('Waiting', 'failed', 4));
    const view = viewOf(board, [
      { key: 'Meetings/Waiting.md', kind: 'retry', target: 'Meetings/Summaries/Waiting.md', trigger: 'page', queuedAt: '2026-11-30T10:59:00Z' },
    ]);
    expect(view.failures.map((f) => [f.title, f.retryPending])).toEqual([
      ['Waiting', true],
      ['Broken', false],
    ]);
    const html = renderPage(view, 'the-csrf');
    const failures = html.slice(html.indexOf('id="failures"'), html.indexOf('id="summaries"'));
    expect(failures.match(/<button/g)).toHaveLength(1);
    expect(failures).toContain('<input type="hidden" name="csrf" value="the-csrf">');
    expect(failures).toContain('retry queued');
  });

  it('is complete without JavaScript: endpoint, window, version, uptime, runs with duration, requests and Obsidian links; text is escaped', async () => {
    const board = new RunBoard(new RunHistory(memoryVault(), silentLogger));
    await board.history.add(run('Weekly', 'done', 5, { title: '<script>alert(1)</script> & co' }));
    const html = renderPage(viewOf(board), 'c');
    for (const text of ['http://127.0.0.1:11434/v1', 'qwen3:8b', 'context window 32,768 tokens', 'version 9.9.9', 'up 2 h 00 min', '42 s', '>4</td>']) {
      expect(html).toContain(text);
    }
    expect(html).toContain('href="obsidian://open?vault=Work%20Notes&#38;file=Meetings%2FSummaries%2FWeekly.md"');
    expect(html).not.toContain('<script>alert');
    expect(html).toContain('&#60;script&#62;alert(1)&#60;/script&#62; &#38; co');
  });
});

describe('status page routes', () => {
  const TOKEN = 'page-token-0123456789';
  let server: RunningHttpServer;
  const retried: unknown[] = [];
  const base = () => `http://127.0.0.1:${server.port}`;

  beforeAll(async () => {
    const settings = resolveConfig({}).settings.Http;
    const board = new RunBoard(new RunHistory(memoryVault(), silentLogger));
    server = await startHttpServer({
      settings: { ...settings, Port: 0 },
      token: TOKEN,
      log: silentLogger,
      handlers: { retry: async () => ({ note: '', result: '' }), startSession: async () => ({}), setSessionState: async () => ({}), finishSession: async () => ({}), status: () => ({}) },
      extraRoutes: pageRoutes({
        token: TOKEN,
        port: 4777,
        view: () => viewOf(board),
        retry: async (note) => {
          if (note === 'Meetings/Summaries/Nope.md') throw new ApiError(400, 'no such note: Meetings/Summaries/Nope.md');
          retried.push(note);
          return { note: String(note), result: 'queued' };
        },
      }),
    });
  });
  afterAll(async () => {
    await server.close();
  });

  const cookie = `${sessionCookieName(4777)}=${sessionValue(TOKEN)}`;
  const form = (fields: Record<string, string>, headers: Record<string, string> = {}) =>
    fetch(`${base()}/retry`, {
      method: 'POST',
      redirect: 'manual',
      body: new URLSearchParams(fields).toString(),
      headers: { 'content-type': 'application/x-www-form-urlencoded', cookie, ...headers },
    });

  it('?token= sets the cookie (HttpOnly, SameSite=Strict, not the token) and redirects to /', async () => {
    const answer = await fetch(`${base()}/?token=${TOKEN}`, { redirect: 'manual' });
    expect(answer.status).toBe(303);
    expect(answer.headers.get('location')).toBe('/');
    const set = answer.headers.get('set-cookie')!;
    expect(set).toBe(`${cookie}; HttpOnly; SameSite=Strict; Path=/`);
    expect(set).not.toContain(TOKEN);
  });

  it('serves the page and the live part to the cookie only; 401 otherwise', async () => {
    const page = await fetch(`${base()}/`, { headers: { cookie } });
    expect(page.status).toBe(200);
    expect(page.headers.get('content-security-policy')).toContain("script-src 'self'");
    expect(await page.text()).toContain('<section id="recent">');
    expect((await fetch(`${base()}/status/live`, { headers: { cookie } })).status).toBe(200);
    const strangers: Record<string, string>[] = [{}, { cookie: `${sessionCookieName(4777)}=${TOKEN}` }, { cookie: `${sessionCookieName(4778)}=${sessionValue(TOKEN)}` }];
    for (const headers of strangers) {
      expect((await fetch(`${base()}/`, { headers })).status).toBe(401);
      expect((await fetch(`${base()}/status/live`, { headers })).status).toBe(401);
    }
    expect((await fetch(`${base()}/?token=nope`)).status).toBe(401);
  });

  it('serves /status.js without the cookie, on purpose: the same script for everyone, with no token, CSRF value or data in it', async () => {
    const script = await fetch(`${base()}/status.js`);
    expect(script.status).toBe(200);
    expect(script.headers.get('content-type')).toBe('text/javascript; charset=utf-8');
    const text = await script.text();
    for (const secret of [TOKEN, sessionValue(TOKEN), csrfValue(TOKEN), 'Meetings/']) expect(text).not.toContain(secret);
  });

  it('Retry: needs the cookie (401), the CSRF token and this origin (403); then redirects back; a bad note says why', async () => {
    const note = 'Meetings/Summaries/A.md';
    expect((await form({ note, csrf: csrfValue(TOKEN) }, { cookie: '' })).status).toBe(401);
    expect((await form({ note })).status).toBe(403);
    expect((await form({ note, csrf: 'forged' })).status).toBe(403);
    expect((await form({ note, csrf: csrfValue(TOKEN) }, { origin: 'http://evil.example' })).status).toBe(403);
    expect(retried).toEqual([]);
    const ok = await form({ note, csrf: csrfValue(TOKEN) }, { origin: base() });
    expect([ok.status, ok.headers.get('location')]).toEqual([303, '/']);
    expect(retried).toEqual([note]);
    const bad = await form({ note: 'Meetings/Summaries/Nope.md', csrf: csrfValue(TOKEN) });
    expect(bad.status).toBe(400);
    expect(await bad.text()).toContain('no such note: Meetings/Summaries/Nope.md');
  });
});

describe('the window the page shows, through the daemon\'s own wiring (serveHttp)', () => {
  it('is ContextWindow.Tokens until the server tells a smaller window, then the server\'s', async () => {
    const TOKEN = 'window-token-0123456789';
    const base = testConfig({ Endpoint: { BaseUrl: 'http://127.0.0.1:9/v1', Model: 'qwen3:8b' }, ContextWindow: { Tokens: 32768 } });
    const config = { ...base, settings: { ...base.settings, Http: { ...base.settings.Http, Port: 0 } } };
    // llama.cpp's /props, answered through the source's injected fetch: the server runs 8,192.
    const asked: string[] = [];
    const serverWindow = new ServerWindowSource({
      baseUrl: config.settings.Endpoint.BaseUrl,
      model: config.settings.Endpoint.Model,
      configured: config.settings.ContextWindow.Tokens,
      log: silentLogger,
      fetch: async (url) => {
        asked.push(String(url));
        return Response.json({ default_generation_settings: { n_ctx: 8192 }, total_slots: 1 });
      },
    });
    const vault = memoryVault();
    const http = (await serveHttp({
      config,
      vault,
      token: TOKEN,
      log: silentLogger,
      board: new RunBoard(new RunHistory(vault, silentLogger)),
      startedAt: new Date('2026-11-30T09:00:00Z'),
      clock: () => new Date('2026-11-30T11:00:00Z'),
      serverWindow,
      enqueue: () => 'job',
      status: () => ({ queue: { concurrency: 1, stopping: false, pending: [], running: [], recent: [] } }),
      stopping: () => false,
    }))!;
    try {
      const page = async () => {
        const answer = await fetch(`http://127.0.0.1:${http.port}/`, { headers: { cookie: `${sessionCookieName(0)}=${sessionValue(TOKEN)}` } });
        expect(answer.status).toBe(200);
        return answer.text();
      };
      expect(await page()).toContain('context window 32,768 tokens');
      expect(asked).toEqual([]);
      await serverWindow.get();
      expect(asked).toEqual(['http://127.0.0.1:9/props']);
      const html = await page();
      expect(html).toContain('context window 8,192 tokens');
      expect(html).not.toContain('32,768');
    } finally {
      await http.close();
    }
  });
});

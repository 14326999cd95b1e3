// The status page (GET /) served by the real daemon with 50 recent runs listed, one run in
// progress and one waiting: the time to answer the page over loopback, and the time Chromium
// takes to load it (navigation to the load event), when Debian's chromium is installed.
// Target: under 100 ms. `STATUS_PAGE_SCREENSHOT=docs/status-page.png` also saves a screenshot.
import { spawn } from 'node:child_process';
import { createHmac } from 'node:crypto';
import http from 'node:http';
import net from 'node:net';
import path from 'node:path';
import { report, ROOT, runs, stats, tempDir, timeRuns, until, which, writeFile } from './_lib.mjs';

const RUNS_LISTED = 50;
const { dir } = tempDir('status-page');
const vault = path.join(dir, 'vault');
const token = 'bench-token-0123456789abcdef';

// --- a model that answers each meeting's first request with a tool call, then never again ---
const seen = new Set();
const held = [];
const model = http.createServer((req, res) => {
  // Only chat completions: the daemon's questions about the server's window get a 404
  // (a server that tells nothing), as do its other probes.
  if (req.method !== 'POST' || !req.url?.endsWith('/chat/completions')) {
    res.writeHead(404, { 'content-type': 'application/json' });
    return void res.end('{"error":{"message":"not found"}}');
  }
  let body = '';
  req.on('data', (d) => (body += d));
  req.on('end', () => {
    const meeting = /Meetings\/[^"\\]+\.md/.exec(body)?.[0] ?? '';
    if (seen.has(meeting)) return void held.push(res);
    seen.add(meeting);
    res.writeHead(200, { 'content-type': 'application/json' });
    res.end(JSON.stringify({
      id: 'c1', object: 'chat.completion', created: 0, model: 'qwen3:8b',
      choices: [{ index: 0, finish_reason: 'tool_calls', message: { role: 'assistant', content: null,
        tool_calls: [{ id: 'call_1', type: 'function', function: { name: 'read_transcript', arguments: '{}' } }] } }],
      usage: { prompt_tokens: 6120, completion_tokens: 38, total_tokens: 6158 },
    }));
  });
});
await new Promise((r) => model.listen(0, '127.0.0.1', r));

const freePort = () => new Promise((resolve) => {
  const s = net.createServer().listen(0, '127.0.0.1', () => {
    const { port } = s.address();
    s.close(() => resolve(port));
  });
});
const port = await freePort();

// --- a vault with 50 recent runs and two finished transcripts -------------------------------
const titles = ['Weekly Sync', 'Release Review', 'Customer Call: Acme', 'Design Critique', '1:1 Alice / Bob', 'Planning Q1', 'Incident Retro'];
const lines = [];
for (let i = 0; i < RUNS_LISTED; i++) {
  const start = new Date(Date.UTC(2026, 10, 30, 9, 0) - (RUNS_LISTED - i) * 3_600_000);
  const title = titles[i % titles.length];
  const file = `${start.toISOString().slice(0, 10)} ${String(start.getUTCHours()).padStart(2, '0')}00 ${title.replace(/[/:]/g, '-')}`;
  const failed = i === 33 || i === 46;
  lines.push(JSON.stringify({
    runId: `r${i}`, kind: i % 9 === 0 ? 'retry' : 'summarize', trigger: i % 9 === 0 ? 'page' : 'transcript',
    meeting: `Meetings/${file}.md`, title, startedAt: start.toISOString(),
    finishedAt: new Date(start.getTime() + 40_000 + (i % 7) * 23_000).toISOString(),
    status: failed ? 'failed' : 'done', summary: `Meetings/Summaries/${file}.md`, modelRequests: 4 + (i % 6),
    ...(failed && { error: 'ModelError (http): HTTP 503 from http://127.0.0.1:11434/v1/chat/completions: model is loading' }),
  }));
  // The page shows the latest good summaries' texts: each run's note, as its run left it.
  writeFile(path.join(vault, 'Meetings/Summaries', `${file}.md`), failed
    ? `---\nstatus: failed\nretry: false\n---\n# Summary failed: ${title}\n`
    : `---\nstatus: done\n---\n## Summary\nThe team went through ${title} and agreed on the next release.\n## Decisions\n- Ship on Friday.\n## Next steps\n- [ ] Alice: tag the release 📅 2026-12-04\n`);
}
writeFile(path.join(vault, '.meeting-assistant', 'runs.jsonl'), lines.join('\n') + '\n');
for (const name of ['2026-11-30 1000 Architecture Review', '2026-11-30 1100 Sprint Demo']) {
  writeFile(path.join(vault, 'Meetings', `${name}.md`), `---\ntitle: ${name.slice(16)}\nstart_time: 2026-11-30T10:00:00Z\ntranscript: "[[Meetings/Transcripts/${name}]]"\n---\n`);
  writeFile(path.join(vault, 'Meetings/Transcripts', `${name}.md`), `---\nmeeting: "[[Meetings/${name}]]"\nstate: finished\n---\n[00:00:05] Alice: Let us begin.\n`);
}
const configPath = path.join(dir, 'config.json');
writeFile(configPath, JSON.stringify({ MeetingAssistant: {
  VaultPath: './vault',
  Endpoint: { BaseUrl: `http://127.0.0.1:${model.address().port}/v1`, Model: 'qwen3:8b' },
  Reconnect: { Attempts: 0 },
  Daemon: { ShutdownGraceSeconds: 1, ReconcileSchedule: '0 0 1 1 *' },
  Http: { Port: port, Token: token },
  Logging: { Level: 'warn' },
} }));

const daemon = spawn(process.execPath, [path.join(ROOT, 'bin', 'meeting-assistant.js'), 'run', '--config', configPath], { stdio: 'ignore' });
const base = `http://127.0.0.1:${port}`;
try {
  // One run at turn 2 (its first answer showed the tokens in use), one waiting behind it.
  await until(async () => {
    const res = await fetch(`${base}/api/status`, { headers: { authorization: `Bearer ${token}` } }).catch(() => undefined);
    const q = res?.ok ? (await res.json()).queue : undefined;
    return q?.running.length === 1 && q.pending.length === 1 && held.length === 1;
  }, 30_000, 'a run in progress and one waiting');

  const cookie = `ma_session_${port}=${createHmac('sha256', token).update('meeting-assistant status page session').digest('base64url')}`;
  const first = await (await fetch(`${base}/`, { headers: { cookie } })).text();
  const rows = (first.match(/<tr class="recent /g) ?? []).length;
  if (rows !== RUNS_LISTED) throw new Error(`the page lists ${rows} runs, not ${RUNS_LISTED}`);
  console.log(`page: ${(first.length / 1024).toFixed(1)} KiB of HTML, ${rows} recent runs, 1 running, 1 waiting`);

  const served = await timeRuns(async () => {
    await (await fetch(`${base}/`, { headers: { cookie } })).text();
  }, { n: runs(50), warmup: 5 });
  const s = stats(served);
  report('GET / answered (50 runs, loopback, full body)', s, { target: { text: '< 100 ms', ok: s.median < 100 } });

  const chromium = process.env.CHROMIUM_PATH || which('chromium') || which('chromium-browser');
  if (!chromium) {
    console.log('browser load: skipped (no chromium on PATH; Debian: apt-get install chromium)');
  } else {
    const { chromium: pw } = await import('playwright-core');
    const browser = await pw.launch({ executablePath: chromium, args: ['--no-sandbox'] });
    try {
      const context = await browser.newContext({ viewport: { width: 1280, height: 900 } });
      const page = await context.newPage();
      await page.goto(`${base}/?token=${token}`);
      const loads = [];
      await timeRuns(async (i) => {
        await page.goto(`${base}/`, { waitUntil: 'load' });
        const nav = await page.evaluate(() => performance.getEntriesByType('navigation')[0].toJSON());
        if (i >= 0) loads.push(nav.loadEventEnd - nav.startTime);
      }, { n: runs(20), warmup: 2 });
      const l = stats(loads);
      report('Chromium: navigation to load event (50 runs)', l, { target: { text: '< 100 ms', ok: l.median < 100 } });
      const shot = process.env.STATUS_PAGE_SCREENSHOT;
      if (shot) {
        await page.waitForFunction(() => document.getElementById('live')?.textContent === 'Live');
        await page.screenshot({ path: path.resolve(shot), fullPage: false });
        console.log(`screenshot: ${shot}`);
      }
    } finally {
      await browser.close();
    }
  }
} finally {
  daemon.kill('SIGTERM');
  await new Promise((r) => daemon.once('exit', r));
  for (const res of held) res.destroy();
  model.close();
}

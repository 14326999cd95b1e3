// A big accepted file does not stall the daemon (docs/design.md §9, issue 45): an ~18 MB
// WebVTT, just under Agent.MaxFileBytes (20 MB), is dropped into the inbox of a running daemon
// (bin/meeting-assistant.js run, HTTP on) while GET /healthz is asked again and again, one
// request after the other, from the drop until the transcript note is in place. Reported: the
// latency of those requests (median and max; target: max ≤ 100 ms), and how many there were.
// A parse on the daemon's main thread shows as one request waiting for all of it. Beside it,
// the same daemon's answers for 10 s before the drop (nothing to do): on a busy machine
// some wait for the CPU whatever the daemon does, and that is the floor to compare with.
import { spawn } from 'node:child_process';
import { existsSync, mkdirSync, readdirSync, renameSync, writeFileSync } from 'node:fs';
import http from 'node:http';
import net from 'node:net';
import path from 'node:path';
import { ROOT, report, reportReference, runs, stats, tempDir } from './_lib.mjs';

const TARGET_BYTES = Number(process.env.BENCH_IMPORT_BYTES ?? 18 * 1024 * 1024);
const SPEAKERS = ['Alice Martin', 'Bob Chen', 'Carol Diaz', 'Dan Okafor', 'Erin Walsh'];
const WORDS = 'we ship the release on friday then tag it check the build pipeline budget numbers customer feedback next sprint roadmap risks owner'.split(' ');

/** A Teams-like WebVTT of about `bytes` bytes. */
function bigVtt(bytes) {
  const out = ['WEBVTT', ''];
  let size = 8;
  let t = 3;
  let seed = 11;
  const rand = () => ((seed = (seed * 1103515245 + 12345) % 2147483648) / 2147483648);
  const stamp = (s) => `${String(Math.floor(s / 3600)).padStart(2, '0')}:${String(Math.floor((s % 3600) / 60)).padStart(2, '0')}:${(s % 60).toFixed(3).padStart(6, '0')}`;
  for (let i = 0; size < bytes; i++) {
    const words = Array.from({ length: 4 + Math.floor(rand() * 8) }, () => WORDS[Math.floor(rand() * WORDS.length)]).join(' ');
    const d = 0.4 + rand() * 0.3;
    const cue = `${stamp(t)} --> ${stamp(t + d)}\n<v ${SPEAKERS[Math.floor(rand() * SPEAKERS.length)]}>${words}.</v>\n`;
    out.push(cue);
    size += cue.length + 1;
    t += d + 0.1;
  }
  return out.join('\n');
}

function freePort() {
  return new Promise((resolve) => {
    const server = net.createServer().listen(0, '127.0.0.1', () => {
      const { port } = server.address();
      server.close(() => resolve(port));
    });
  });
}

function healthz(port) {
  return new Promise((resolve, reject) => {
    const t = performance.now();
    http
      .get({ host: '127.0.0.1', port, path: '/healthz', agent: false }, (res) => {
        res.resume();
        res.on('end', () => resolve(performance.now() - t));
      })
      .on('error', reject);
  });
}

async function once() {
  const { dir, cleanup } = tempDir('import-healthz');
  try {
    const vault = path.join(dir, 'vault');
    const inbox = path.join(vault, 'Meetings', 'Inbox');
    const transcripts = path.join(vault, 'Meetings', 'Transcripts');
    mkdirSync(inbox, { recursive: true });
    const port = await freePort();
    const closed = await freePort();
    const config = path.join(dir, 'config.json');
    writeFileSync(config, JSON.stringify({ MeetingAssistant: { VaultPath: vault, Http: { Enabled: true, Port: port }, Endpoint: { BaseUrl: `http://127.0.0.1:${closed}/v1`, Model: 'm' } } }));
    const file = path.join(dir, 'Board meeting.vtt');
    writeFileSync(file, bigVtt(TARGET_BYTES));
    const daemon = spawn(process.execPath, [path.join(ROOT, 'bin', 'meeting-assistant.js'), 'run', '--config', config], { stdio: ['ignore', 'pipe', 'pipe'] });
    let log = '';
    daemon.stdout.on('data', (d) => (log += d));
    daemon.stderr.on('data', (d) => (log += d));
    const exited = new Promise((resolve) => daemon.on('exit', resolve));
    try {
      const deadline = Date.now() + 60_000;
      while (!/"msg":"ready/.test(log)) {
        if (Date.now() > deadline || daemon.exitCode !== null) throw new Error(`the daemon did not get ready:\n${log}`);
        await new Promise((resolve) => setTimeout(resolve, 50));
      }
      const idle = [];
      for (const until = performance.now() + 10_000; performance.now() < until; ) idle.push(await healthz(port));
      renameSync(file, path.join(inbox, 'Board meeting.vtt'));
      const latencies = [];
      const dropped = performance.now();
      const slow = [];
      const end = Date.now() + 180_000;
      while (!(existsSync(transcripts) && readdirSync(transcripts).some((f) => f.endsWith('.md')))) {
        if (Date.now() > end) throw new Error(`the import did not finish:\n${log.slice(-2000)}`);
        const latency = await healthz(port);
        latencies.push(latency);
        if (latency > 100) slow.push(`${latency.toFixed(0)} ms at ${((performance.now() - dropped) / 1000).toFixed(2)} s`);
      }
      if (process.env.BENCH_VERBOSE) console.log(`  import took ${((performance.now() - dropped) / 1000).toFixed(2)} s; answers over 100 ms: ${slow.join(', ') || 'none'}`);
      return { latencies, idle };
    } finally {
      daemon.kill('SIGTERM');
      await exited;
    }
  } finally {
    cleanup();
  }
}

const all = [];
const maxima = [];
const idleAll = [];
const n = runs(3);
for (let i = 0; i < n; i++) {
  const { latencies, idle } = await once();
  all.push(...latencies);
  idleAll.push(...idle);
  maxima.push(Math.max(...latencies));
  console.log(`  run ${i + 1}: ${latencies.length} /healthz answers during the import, max ${Math.max(...latencies).toFixed(1)} ms; idle before it: ${idle.length} answers, max ${Math.max(...idle).toFixed(1)} ms`);
}
reportReference('/healthz of the same daemon with nothing to do, 10 s before each drop (every answer)', stats(idleAll));
const every = stats(all);
report(`/healthz during an import of ${(TARGET_BYTES / 1024 / 1024).toFixed(0)} MB of WebVTT (every answer)`, every, { target: { text: 'max ≤ 100 ms', ok: every.max <= 100 } });
const slowest = stats(maxima);
report('/healthz: the slowest answer of each import', slowest, { target: { text: '≤ 100 ms', ok: slowest.max <= 100 } });

// Run start (issue #31 point 3): a transcript's `state: finished` written to disk -> the first
// model request of its run at the endpoint, through the real watcher (write stability,
// debounce), trigger rules, queue and run process of the built daemon, as `run` starts it
// (runProcess: true), on the 20,000-note vault of bench/idle.mjs. Ten meetings one after
// another with the run process already up (warm), then ten more each after the process ended
// at its idle release (cold: fork, module load and every cache built anew). Also the
// `list_projects` turn of each warm run: from the endpoint's answer that calls it to the next
// request of that conversation (the loop, the tool and the window's accounting), as an endpoint
// in a thread of its own sees it (bench/_latency-endpoint.mjs). Then ten more
// as a recorder writes them: after the idle release, the transcript is written in `state:
// transcribing` (the daemon starts and warms its run process for a meeting being recorded,
// docs/design.md §8) and `finished` BENCH_RECORDING_LEAD_MS later (default 10 s; a real meeting
// is minutes or hours).
// BENCH_RUNS=n meetings per series; BENCH_NOTES=n the vault's size.
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { Worker } from 'node:worker_threads';
import { generateVault, meetingNote, SUMMARY_BODY, transcriptNote } from './_daemon-fixtures.mjs';
import { report, runs, stats } from './_lib.mjs';

const dist = path.join(path.dirname(fileURLToPath(import.meta.url)), '..', 'dist');
const { resolveConfig } = await import(path.join(dist, 'config.js'));
const { startDaemon } = await import(path.join(dist, 'daemon', 'daemon.js'));
const { silentLogger } = await import(path.join(dist, 'log.js'));

const RUNS = runs(10);
const NOTES = Number(process.env.BENCH_NOTES ?? 20_000);
/** Short, so that the cold series need not wait a minute per meeting; far above the gap between two warm runs. */
const IDLE_MS = 3000;
const LEAD_MS = Number(process.env.BENCH_RECORDING_LEAD_MS ?? 10_000);

const dir = mkdtempSync(path.join(os.tmpdir(), 'ma-bench-latency-'));
const vault = path.join(dir, 'vault');
const t = performance.now();
const made = generateVault(vault, NOTES);
console.log(`vault: ${made.total} notes (${made.meetings} meetings with transcript, context and summary; ${made.projectFiles} project files in 20 projects), generated in ${((performance.now() - t) / 1000).toFixed(1)} s`);

// The meetings measured: bound to project P0 (a folder with notes, and past summaries of it).
const names = Array.from({ length: 3 * RUNS + 1 }, (_, i) => `Latency ${String(i).padStart(2, '0')}`);
for (const name of names) {
  writeFileSync(path.join(vault, 'Meetings', `${name}.md`), meetingNote(name).replace('projects: [Alpha]', 'projects: [P0]'));
  writeFileSync(path.join(vault, 'Meetings/Transcripts', `${name}.md`), transcriptNote(name, 'transcribing'));
}
for (let i = 0; i < 3; i++) {
  writeFileSync(
    path.join(vault, 'Meetings/Summaries', `2026-02-0${i + 1} P0 review.md`),
    `---\ntitle: P0 review ${i}\nprojects: [P0]\nmeeting: "[[Meetings/2026-02-0${i + 1} P0 review]]"\nstatus: done\n---\n${SUMMARY_BODY}`,
  );
}

// The endpoint, in a thread of its own (bench/_latency-endpoint.mjs): when each meeting's first
// request arrives, and how long each list_projects turn took.
/** Meeting name -> the resolver of the wait for its first request. */
const waiting = new Map();
const listProjectsTurns = new Map();
const endpoint = new Worker(new URL('./_latency-endpoint.mjs', import.meta.url), { workerData: { names, summary: SUMMARY_BODY } });
const port = await new Promise((resolve, reject) => {
  endpoint.once('error', reject);
  endpoint.on('message', (message) => {
    if (message.type === 'listening') resolve(message.port);
    else if (message.type === 'first') {
      waiting.get(message.meeting)?.(message.at);
      waiting.delete(message.meeting);
    } else if (message.type === 'turn') listProjectsTurns.set(message.meeting, message.ms);
  });
});
const baseUrl = `http://127.0.0.1:${port}/v1`;
/** The clock the endpoint's thread stamps with (Unix epoch, sub-millisecond). */
const now = () => performance.timeOrigin + performance.now();

const config = resolveConfig({
  MeetingAssistant: {
    VaultPath: vault,
    Endpoint: { BaseUrl: baseUrl, Model: 'bench' },
    Reconnect: { Attempts: 0, DelaySeconds: 0 },
    Http: { Enabled: false },
    Daemon: { ReconcileSchedule: '0 0 1 1 *' },
  },
});
let released = () => {};
const daemon = await startDaemon(config, { log: silentLogger, runProcess: true, caches: { idleMs: IDLE_MS, onRelease: () => released() } });
await daemon.startupScan;

/** One meeting's `state: finished` written; resolves with the ms until its first model request, once its run is over. */
async function oneMeeting(name, leadMs = 0) {
  const rel = path.join('Meetings/Transcripts', `${name}.md`);
  const written = readFileSync(path.join(vault, rel), 'utf8');
  if (leadMs > 0) {
    // The recorder at work: its transcript written again, still transcribing.
    writeFileSync(path.join(vault, rel), `${written}[00:10:00] A: still talking\n`);
    await new Promise((resolve) => setTimeout(resolve, leadMs));
  }
  const hit = new Promise((resolve) => waiting.set(name, resolve));
  const text = written.replace('state: transcribing', 'state: finished');
  const t0 = now();
  writeFileSync(path.join(vault, rel), text);
  let timer;
  const t1 = await Promise.race([hit, new Promise((_, reject) => (timer = setTimeout(() => reject(new Error(`no model request for ${name} within 30 s`)), 30_000)))]);
  clearTimeout(timer);
  await daemon.eventsHandled();
  await daemon.queue.onIdle();
  return t1 - t0;
}

const warm = [];
const cold = [];
const recorded = [];
try {
  // The process started by a first meeting, then the warm series.
  await oneMeeting(names[0]);
  for (const name of names.slice(1, RUNS + 1)) warm.push(await oneMeeting(name));
  for (const name of names.slice(RUNS + 1, 2 * RUNS + 1)) {
    await new Promise((resolve) => (released = resolve));
    cold.push(await oneMeeting(name));
  }
  for (const name of names.slice(2 * RUNS + 1)) {
    await new Promise((resolve) => (released = resolve));
    recorded.push(await oneMeeting(name, LEAD_MS));
  }
} finally {
  await daemon.stop('bench over');
  await new Promise((resolve) => {
    endpoint.once('exit', resolve);
    endpoint.postMessage('close');
  });
  rmSync(dir, { recursive: true, force: true });
}

console.log(`run start (state: finished written -> first model request), ${NOTES.toLocaleString('en')}-note vault, ${RUNS} meetings one after another:`);
console.log('  (includes the write-stability wait of 150 ms and the 50 ms per-file debounce)');
let ok = report('  run process up (warm)', stats(warm), { target: { text: '≤ 1 s', ok: stats(warm).median <= 1000 } });
ok = report('  run process cold (ended at its idle release; no recording seen)', stats(cold), { target: { text: '≤ 1 s', ok: stats(cold).median <= 1000 } }) && ok;
ok = report(`  run process cold, the recording seen ${LEAD_MS / 1000} s before finished (started ahead)`, stats(recorded), { target: { text: '≤ 1 s', ok: stats(recorded).median <= 1000 } }) && ok;
const turns = names.slice(1, RUNS + 1).map((name) => listProjectsTurns.get(name)).filter((v) => v !== undefined);
if (turns.length === 0) {
  console.log('  list_projects turn: not measured (no conversation was offered list_projects)');
  ok = false;
} else {
  ok = report('  list_projects turn, warm (its answer -> the next request)', stats(turns), { target: { text: '≤ 5 ms', ok: stats(turns).median <= 5 } }) && ok;
}
process.exitCode = ok ? 0 : 1;

// Trigger latency: a transcript's `state: finished` written to disk -> the first model request
// of its run at the endpoint, through the real watcher (chokidar, write stability, debounce),
// trigger rules and queue of the built daemon. 20 runs, one after another.
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { meetingNote, startModelServer, stats, transcriptNote } from './_daemon-fixtures.mjs';

const dist = path.join(path.dirname(fileURLToPath(import.meta.url)), '..', 'dist');
const { resolveConfig } = await import(path.join(dist, 'config.js'));
const { startDaemon } = await import(path.join(dist, 'daemon', 'daemon.js'));
const { silentLogger } = await import(path.join(dist, 'log.js'));

const RUNS = 20;
const dir = mkdtempSync(path.join(os.tmpdir(), 'ma-bench-latency-'));
const vault = path.join(dir, 'vault');
const names = Array.from({ length: RUNS }, (_, i) => `Latency ${String(i).padStart(2, '0')}`);

let waiting;
const server = await startModelServer((body) => {
  const first = body.messages?.find((m) => m.role === 'user')?.content ?? '';
  if (waiting && String(first).includes(waiting.name)) {
    waiting.resolve(performance.now());
    waiting = undefined;
  }
});

const write = (rel, content) => writeFileSync(path.join(vault, rel), content);

for (const sub of ['Meetings/Transcripts', 'Meetings/Summaries', 'Meetings/Context', 'Projects/Alpha']) mkdirSync(path.join(vault, sub), { recursive: true });
for (const name of names) {
  write(`Meetings/${name}.md`, meetingNote(name));
  write(`Meetings/Transcripts/${name}.md`, transcriptNote(name, 'transcribing'));
}

const config = resolveConfig({
  MeetingAssistant: {
    VaultPath: vault,
    Endpoint: { BaseUrl: server.baseUrl, Model: 'bench' },
    Reconnect: { Attempts: 0, DelaySeconds: 0 },
    Http: { Enabled: false },
    Daemon: { ReconcileSchedule: '0 0 1 1 *' },
  },
});
const daemon = await startDaemon(config, { log: silentLogger });

const latencies = [];
try {
  for (const name of names) {
    const rel = `Meetings/Transcripts/${name}.md`;
    const hit = new Promise((resolve) => (waiting = { name, resolve }));
    const text = readFileSync(path.join(vault, rel), 'utf8').replace('state: transcribing', 'state: finished');
    const t0 = performance.now();
    writeFileSync(path.join(vault, rel), text);
    const t1 = await Promise.race([hit, new Promise((_, reject) => setTimeout(() => reject(new Error(`no model request for ${name} within 10 s`)), 10_000))]);
    latencies.push(t1 - t0);
    await daemon.queue.onIdle();
  }
} finally {
  await daemon.stop('bench over');
  await server.close();
  rmSync(dir, { recursive: true, force: true });
}

const s = stats(latencies);
console.log(`trigger latency (state: finished written -> first model request), ${s.n} runs:`);
console.log(`  median ${s.median.toFixed(1)} ms, min ${s.min.toFixed(1)} ms, max ${s.max.toFixed(1)} ms`);
console.log('  (includes the write-stability wait of 150 ms and the 50 ms per-file debounce)');

// The idle daemon on a 20,000-note vault: its RSS and CPU while nothing happens, next to a
// bare chokidar watcher of the same folders (what watching alone costs), plus the catch-up
// scan's cost cold (every frontmatter read) and warm (unchanged files skipped by mtime+size).
import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { execFileSync } from 'node:child_process';
import { generateVault } from './_daemon-fixtures.mjs';

const here = path.dirname(fileURLToPath(import.meta.url));
const root = path.join(here, '..');
const dist = path.join(root, 'dist');
const NOTES = Number(process.env.BENCH_NOTES ?? 20_000);
const IDLE_SECONDS = Number(process.env.BENCH_IDLE_SECONDS ?? 10);

const dir = mkdtempSync(path.join(os.tmpdir(), 'ma-bench-idle-'));
const vault = path.join(dir, 'vault');
const t = performance.now();
const made = generateVault(vault, NOTES);
console.log(`vault: ${made.total} notes (${made.meetings} meetings with transcript, context and summary; ${made.projectFiles} project files), generated in ${((performance.now() - t) / 1000).toFixed(1)} s`);

const CLK_TCK = 100;
function sample(pid) {
  if (process.platform === 'linux') {
    const status = readFileSync(`/proc/${pid}/status`, 'utf8');
    const rssKb = Number(/VmRSS:\s+(\d+)/.exec(status)[1]);
    const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1].split(' ');
    const cpuMs = ((Number(fields[11]) + Number(fields[12])) * 1000) / CLK_TCK;
    return { rssMb: rssKb / 1024, cpuMs };
  }
  const [rss, time] = execFileSync('ps', ['-o', 'rss=,time=', '-p', String(pid)], { encoding: 'utf8' }).trim().split(/\s+/);
  const parts = time.split(':').map(Number);
  const seconds = parts.reduce((acc, v) => acc * 60 + v, 0);
  return { rssMb: Number(rss) / 1024, cpuMs: seconds * 1000 };
}

function waitForLine(child, pattern, timeoutMs = 120_000) {
  return new Promise((resolve, reject) => {
    let out = '';
    const timer = setTimeout(() => reject(new Error(`no "${pattern}" within ${timeoutMs} ms:\n${out.slice(-2000)}`)), timeoutMs);
    const onData = (d) => {
      out += d.toString();
      const line = out.split('\n').find((l) => pattern.test(l));
      if (line) {
        clearTimeout(timer);
        child.stdout.off('data', onData);
        child.stdout.resume();
        resolve(line);
      }
    };
    child.stdout.on('data', onData);
    child.on('exit', (code) => reject(new Error(`exited ${code} before "${pattern}":\n${out.slice(-2000)}`)));
  });
}

async function measure(label, child, readyPattern, settledPattern = readyPattern) {
  const started = performance.now();
  const settled = waitForLine(child, settledPattern);
  const line = await waitForLine(child, readyPattern);
  const startupMs = performance.now() - started;
  await settled;
  const settledMs = performance.now() - started;
  // Let start-up garbage settle before the idle window.
  await new Promise((r) => setTimeout(r, 2000));
  const a = sample(child.pid);
  await new Promise((r) => setTimeout(r, IDLE_SECONDS * 1000));
  const b = sample(child.pid);
  const cpuPct = ((b.cpuMs - a.cpuMs) / (IDLE_SECONDS * 1000)) * 100;
  child.kill('SIGTERM');
  await new Promise((r) => child.once('exit', r));
  return { label, startupMs, settledMs, rssMb: b.rssMb, cpuPct, line };
}

// 1. The daemon, as the service runs it.
const configPath = path.join(dir, 'config.json');
writeFileSync(
  configPath,
  JSON.stringify({
    MeetingAssistant: {
      VaultPath: './vault',
      Endpoint: { BaseUrl: 'http://127.0.0.1:9/v1', Model: 'none' },
      Http: { Enabled: false },
      Logging: { Level: 'info' },
    },
  }),
);
const daemon = spawn(process.execPath, [path.join(root, 'bin', 'meeting-assistant.js'), 'run', '--config', configPath], {
  stdio: ['ignore', 'pipe', 'inherit'],
});
const scanLine = new Promise((resolve) => {
  let out = '';
  daemon.stdout.on('data', (d) => {
    out += d.toString();
    const line = out.split('\n').find((l) => l.includes('catch-up scan'));
    if (line) resolve(JSON.parse(line));
  });
});
const d = await measure('daemon (meeting-assistant run)', daemon, /"msg":"ready/, /catch-up scan/);
const scan = await scanLine;

// 2. A bare chokidar watcher of the same folders with the same options.
const watcherScript = `
  const { watch } = await import(${JSON.stringify(path.join(root, 'node_modules', 'chokidar', 'index.js'))});
  const w = watch(${JSON.stringify([path.join(vault, 'Meetings/Transcripts'), path.join(vault, 'Meetings/Summaries'), path.join(vault, 'Projects')])}, {
    ignoreInitial: true, awaitWriteFinish: { stabilityThreshold: 150, pollInterval: 50 }, atomic: true,
  });
  w.on('ready', () => console.log('watcher ready'));
  process.on('SIGTERM', () => w.close().then(() => process.exit(0)));
`;
const bare = spawn(process.execPath, ['--input-type=module', '-e', watcherScript], { stdio: ['ignore', 'pipe', 'inherit'] });
const w = await measure('bare chokidar watcher, same folders', bare, /watcher ready/);

// 3. The catch-up scan in process: cold, then warm.
const { resolveConfig } = await import(path.join(dist, 'config.js'));
const { Reconciler } = await import(path.join(dist, 'daemon', 'reconcile.js'));
const { Vault } = await import(path.join(dist, 'vault', 'vault.js'));
const { nodeFs } = await import(path.join(dist, 'vault', 'fs.js'));
const { silentLogger } = await import(path.join(dist, 'log.js'));
const config = resolveConfig({ MeetingAssistant: { VaultPath: vault } });
const reconciler = new Reconciler({ vault: new Vault(nodeFs, config.layout), settings: config.settings, log: silentLogger, isQueued: () => false });
const scans = [];
for (const startup of [true, false, false]) {
  const s0 = performance.now();
  const r = await reconciler.scan({ startup });
  scans.push({ ms: performance.now() - s0, checked: r.checked, read: r.read, jobs: r.jobs.length });
}

for (const m of [d, w]) {
  console.log(`${m.label}:`);
  const settled = m.settledMs - m.startupMs > 1 ? `, start-up scan done after ${(m.settledMs / 1000).toFixed(2)} s` : '';
  console.log(`  ready after ${(m.startupMs / 1000).toFixed(2)} s${settled}; idle RSS ${m.rssMb.toFixed(1)} MB; idle CPU ${m.cpuPct.toFixed(2)} % over ${IDLE_SECONDS} s`);
}
const rssRatio = d.rssMb / w.rssMb;
console.log(`idle RSS: daemon ${d.rssMb.toFixed(1)} MB vs bare watcher ${w.rssMb.toFixed(1)} MB = ${rssRatio.toFixed(2)}× target ≤ 1.5× — ${rssRatio <= 1.5 ? 'ok' : 'MISSED'}`);
console.log(`idle CPU: daemon ${d.cpuPct.toFixed(2)} % target no CPU beyond timers — ${d.cpuPct < 0.5 ? 'ok' : 'MISSED'}`);
console.log(`daemon's start-up catch-up scan: ${scan.durationMs} ms, ${scan.checked} notes checked, ${scan.read} read, ${scan.enqueued} enqueued`);
const [cold, ...warm] = scans;
console.log(`catch-up scan in process: cold ${cold.ms.toFixed(0)} ms (${cold.read} frontmatters read of ${cold.checked} checked); warm ${warm.map((s) => `${s.ms.toFixed(0)} ms (${s.read} read)`).join(', ')}`);

rmSync(dir, { recursive: true, force: true });

#!/usr/bin/env node
/**
 * `npm run test:stress`: the whole suite N times in a row while busy loops keep every core
 * loaded. A test that asserts right after a step whose end it does not wait for (a watcher,
 * a child process, a timer, a log line standing in for a later state) passes on a quiet
 * machine and fails here long before it fails one CI run in ten.
 *
 *   npm run test:stress                        10 runs, one busy loop per core
 *   npm run test:stress -- --runs 3 --load 1   3 runs beside one loop
 *   npm run test:stress -- -- test/faults      arguments after `--` go to vitest
 *   npm run test:stress -- --cold-cache 20     the page cache dropped every 20 s too (root, Linux)
 *
 * STRESS_RUNS and STRESS_LOAD set the same as the flags. Exits 1 when any run failed, after
 * listing each failing test with the number of runs it failed in.
 */
import { spawn } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { startBusyLoops } from './busy-loops.mjs';
import { startCacheDrops } from './cold-cache.mjs';
import { failuresOf, summary } from './stress-report.mjs';

const REPO = fileURLToPath(new URL('..', import.meta.url));
const VITEST = path.join(REPO, 'node_modules', 'vitest', 'vitest.mjs');

const { values, positionals } = parseArgs({
  allowPositionals: true,
  options: {
    runs: { type: 'string', default: process.env.STRESS_RUNS ?? '10' },
    load: { type: 'string', default: process.env.STRESS_LOAD ?? String(os.cpus().length) },
    'run-minutes': { type: 'string', default: '30' },
    'cold-cache': { type: 'string', default: process.env.STRESS_COLD_CACHE ?? '0' },
    help: { type: 'boolean', short: 'h', default: false },
  },
});
if (values.help) {
  console.log('usage: npm run test:stress -- [--runs N] [--load LOOPS] [--run-minutes M] [--cold-cache SECONDS] [-- vitest arguments]');
  process.exit(0);
}
const runs = whole('--runs', values.runs, 1);
const load = whole('--load', values.load, 0);
const runLimitMs = whole('--run-minutes', values['run-minutes'], 1) * 60_000;
const coldEverySeconds = whole('--cold-cache', values['cold-cache'], 0);

function whole(flag, text, min) {
  const n = Number(text);
  if (Number.isInteger(n) && n >= min) return n;
  console.error(`test:stress: ${flag} wants a whole number ≥ ${min}, not "${text}"`);
  process.exit(2);
}

/**
 * The run going now: killed when this script is stopped or at its limit, with everything it
 * started. The tests start their daemons in process groups of their own, so the run's group
 * alone would leave them running: every descendant is found first (Linux: /proc), then each
 * is killed with its group.
 */
let current;
function killCurrent() {
  if (!current) return;
  for (const pid of [current.pid, ...descendantsOf(current.pid)]) {
    for (const target of [-pid, pid]) {
      try {
        process.kill(target, 'SIGKILL');
      } catch {
        // Gone already, or not a group leader.
      }
    }
  }
}

function descendantsOf(root) {
  let entries;
  try {
    entries = readdirSync('/proc');
  } catch {
    return []; // no /proc (macOS): the run's own group only
  }
  const children = new Map();
  for (const name of entries) {
    if (!/^\d+$/.test(name)) continue;
    try {
      // The parent is the 2nd field after the command, which is in parentheses and may hold spaces.
      const stat = readFileSync(`/proc/${name}/stat`, 'utf8');
      const ppid = Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]);
      children.set(ppid, [...(children.get(ppid) ?? []), Number(name)]);
    } catch {
      // Ended while listed.
    }
  }
  const found = [];
  for (let queue = [root]; queue.length > 0; ) {
    const next = children.get(queue.pop()) ?? [];
    found.push(...next);
    queue.push(...next);
  }
  return found;
}
process.on('exit', killCurrent);
for (const signal of ['SIGINT', 'SIGTERM', 'SIGHUP']) {
  process.on(signal, () => {
    killCurrent();
    process.exit(128 + os.constants.signals[signal]);
  });
}

/** One vitest run: its exit code (null when killed), its time, its JSON report. */
function runSuite(n, outputFile) {
  const args = [VITEST, 'run', '--reporter=default', '--reporter=json', `--outputFile.json=${outputFile}`, ...positionals];
  return new Promise((resolve) => {
    const started = Date.now();
    // A process group of its own, so the daemons and servers a hung run started go with it.
    current = spawn(process.execPath, args, { cwd: REPO, stdio: 'inherit', detached: true });
    const limit = setTimeout(() => {
      console.error(`test:stress: run ${n} passed its limit of ${runLimitMs / 60_000} minutes: killed`);
      killCurrent();
    }, runLimitMs);
    current.on('exit', (code, signal) => {
      clearTimeout(limit);
      current = undefined;
      resolve({ code: signal ? null : code, ms: Date.now() - started, report: readJson(outputFile) });
    });
  });
}

function readJson(file) {
  try {
    return JSON.parse(readFileSync(file, 'utf8'));
  } catch {
    return undefined;
  }
}

const dir = mkdtempSync(path.join(os.tmpdir(), 'ma-stress-'));
// Bounded even if this script is stopped in a way no handler sees: the loops' own deadline.
const busy = startBusyLoops(load, Date.now() + runs * runLimitMs);
let drops;
if (coldEverySeconds > 0) {
  try {
    drops = startCacheDrops(coldEverySeconds * 1000, Date.now() + runs * runLimitMs);
  } catch (err) {
    console.error(`test:stress: ${err.message}`);
    process.exit(2);
  }
}
const cold = drops ? `, the page cache dropped every ${coldEverySeconds} s` : '';
console.log(`test:stress: ${runs} run(s) of the suite beside ${load} busy loop(s) on ${os.cpus().length} core(s)${cold}`);

const results = [];
for (let n = 1; n <= runs; n++) {
  const { code, ms, report } = await runSuite(n, path.join(dir, `run-${n}.json`));
  const failures = failuresOf(report, code, REPO);
  results.push({ ms, failures });
  const tests = report ? `${report.numPassedTests} passed, ${report.numFailedTests} failed` : 'no report';
  console.log(`test:stress: run ${n}/${runs} ${failures.length ? 'FAILED' : 'passed'} in ${Math.round(ms / 1000)} s (${tests})`);
  for (const name of failures) console.log(`  ${name}`);
}
await busy.stop();
drops?.stop();
rmSync(dir, { recursive: true, force: true });

console.log(`\n${summary(results, load).join('\n')}`);
process.exitCode = results.some((r) => r.failures.length > 0) ? 1 : 0;

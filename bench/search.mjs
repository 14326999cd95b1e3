// The `search` tool over two projects × 1,000 notes × 200 lines plus 3,000 past summaries
// (~50 MB), against ripgrep over the same files with the same pattern semantics
// (case-sensitive unless (?i), Unicode \d and \w, every matching line as path:line:text).
// ripgrep is timed as a process, spawn to exit; our search as one tool call in a warm process,
// the way the daemon serves it (its watcher reporting changes), and, for comparison, without
// a watcher (then every file's mtime and size are checked on each call).
import path from 'node:path';
import { appendFileSync } from 'node:fs';
import { ms, report, reportReference, runProcess, runs, stats, tempDir, timeRuns, toolSetup, until, watchLikeDaemon, which, writeCurrentMeeting, writeProjects, writeSummaries } from './_lib.mjs';

const RUNS = runs(15);
const PROJECTS = ['Alpha', 'Beta'];
const FILES = Number(process.env.BENCH_SEARCH_FILES ?? 1000);
const SUMMARIES = Number(process.env.BENCH_SEARCH_SUMMARIES ?? 3000);

const { dir, cleanup } = tempDir('search');
const vault = path.join(dir, 'vault');
const t0 = performance.now();
const projectBytes = writeProjects(vault, { projects: PROJECTS, files: FILES, lines: 200 });
const summaryBytes = writeSummaries(vault, SUMMARIES, { projects: PROJECTS });
const meeting = writeCurrentMeeting(vault, { projects: PROJECTS });
console.log(
  `corpus: ${PROJECTS.length} projects × ${FILES} notes × 200 lines + ${SUMMARIES} summaries = ${((projectBytes + summaryBytes) / 1e6).toFixed(1)} MB ` +
    `(generated in ${((performance.now() - t0) / 1000).toFixed(1)} s)`,
);

const KEYWORDS = [
  { label: 'literal', keyword: 'release date' },
  { label: 'regex', keyword: '(?i)release (date|window)' },
  { label: 'regex with classes', keyword: 'v\\d+\\.\\d+\\.\\d+' },
];

const rg = which('rg');
if (!rg) console.log('ripgrep (rg) is not installed: figures are reported without a ratio. Install it with `apt-get install ripgrep` (Debian/Ubuntu) or `brew install ripgrep`.');
const rgArgs = (keyword) => ['--no-config', '--no-heading', '-n', '-j2', '--', keyword, ...PROJECTS.map((p) => `Projects/${p}`), 'Meetings/Summaries'];

// The daemon's process: the caches shared for the process's life, kept fresh by its watcher.
// Result caps off, so that the output can be compared with ripgrep's line for line.
const daemonLike = await toolSetup(vault, meeting, { Agent: { SearchMaxResults: 1_000_000 } }, { maxResultChars: 1e9 });
const watcher = await watchLikeDaemon(daemonLike.ctx.caches, [path.join(vault, 'Projects'), path.join(vault, 'Meetings', 'Summaries')]);

const resultLines = (text) => text.split('\n').slice(1).filter((l) => !l.startsWith('…') && !l.startsWith('('));

let allOk = true;
const references = new Map();
for (const { label, keyword } of KEYWORDS) {
  const coldStart = performance.now();
  const first = await daemonLike.call('search', { keywords: [keyword] });
  const coldMs = performance.now() - coldStart;
  const ours = resultLines(first);

  let rgLines;
  if (rg) {
    rgLines = (await runProcess(rg, rgArgs(keyword), { cwd: vault })).split('\n').filter(Boolean);
    const a = [...ours].sort();
    const b = [...rgLines].sort();
    const same = a.length === b.length && a.every((l, i) => l === b[i]);
    console.log(`\n"${keyword}" (${label}): ${ours.length} matching lines; ripgrep ${rgLines.length}${same ? ', the same lines' : ' — DIFFERENT lines'}`);
    if (!same) allOk = false;
  } else {
    console.log(`\n"${keyword}" (${label}): ${ours.length} matching lines`);
  }
  console.log(
    references.size === 0
      ? `  first call (cold: every file read from disk into the cache): ${ms(coldMs)}`
      : `  first call of this keyword (the texts already in memory): ${ms(coldMs)}`,
  );

  // Interleaved, so that load from elsewhere on the machine hits both alike.
  const oursMs = [];
  const rgMs = [];
  globalThis.gc?.();
  for (let i = 0; i < RUNS; i++) {
    if (rg) {
      const r0 = performance.now();
      await runProcess(rg, rgArgs(keyword), { cwd: vault });
      rgMs.push(performance.now() - r0);
    }
    const s0 = performance.now();
    await daemonLike.call('search', { keywords: [keyword] });
    oursMs.push(performance.now() - s0);
  }
  const reference = rg ? { label: 'rg -j2', stats: stats(rgMs) } : undefined;
  references.set(keyword, reference);
  if (reference) reportReference(`  rg -j2 ${label} (process, spawn to exit)`, reference.stats);
  const s = stats(oursMs);
  allOk =
    report(`  search ${label}, warm daemon`, s, {
      reference,
      target: reference ? { text: '≤ 1.0× rg', ok: s.median <= reference.stats.median } : undefined,
    }) && allOk;
}

// Freshness: a note changed behind the daemon's back is found by the next search once the
// watcher has reported it.
const changed = path.join(vault, 'Projects', PROJECTS[1], 'Note 0000.md');
appendFileSync(changed, 'A freshly written line about the zebra crossing.\n');
await until(async () => (await daemonLike.call('search', { keywords: ['zebra crossing'] })).includes('Note 0000.md'), 10_000, 'the watcher to report the change');
console.log('\nafter an external edit, the next searches see it (the watcher invalidated the file): ok');

await watcher.close();
daemonLike.ctx.caches.close();

// Without the watcher's word every file's version is checked on each call (what a
// daemon gets that does not wire its watcher to the caches). A fresh cache, so that the
// daemon-like figures above had the process to themselves.
console.log('\nwithout a watcher (each file\'s version checked on every call):');
const noWatcher = await toolSetup(vault, meeting, { Agent: { SearchMaxResults: 1_000_000 } }, { maxResultChars: 1e9 });
for (const { label, keyword } of KEYWORDS) {
  await noWatcher.call('search', { keywords: [keyword] });
  const s = stats(await timeRuns(() => noWatcher.call('search', { keywords: [keyword] }), { n: Math.min(RUNS, 7), warmup: 0 }));
  report(`  search ${label}, warm, no watcher`, s, { reference: references.get(keyword), note: 'no target' });
}
noWatcher.ctx.caches.close();
console.log(allOk ? '\nsearch: every target met, every result the same as ripgrep\'s' : '\nsearch: some target MISSED or some result differs from ripgrep\'s');
cleanup();

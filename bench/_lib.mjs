// Helpers of the tool benchmarks (search, past-meetings, catch-up, tools): corpora generated in
// a temp folder, timing with median/min/max, and the one-line-per-figure format
//   name: median X (min Y, max Z) [ratio vs reference R×] target T — ok/MISSED
// Not run by bench/run.mjs itself (the name starts with "_").
import { spawn, spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { random } from '../test/helpers/long-meeting-text.mjs';

export const ROOT = path.join(path.dirname(fileURLToPath(import.meta.url)), '..');

/** Import a module of the build (`npm run build` runs before `npm run bench`). */
export function dist(rel) {
  return import(pathToFileURL(path.join(ROOT, 'dist', rel)).href);
}

/** Runs per figure: BENCH_RUNS overrides (a quick look: BENCH_RUNS=3). */
export function runs(fallback) {
  const n = Number(process.env.BENCH_RUNS);
  return Number.isInteger(n) && n > 0 ? n : fallback;
}

export function tempDir(prefix) {
  const dir = mkdtempSync(path.join(os.tmpdir(), `ma-bench-${prefix}-`));
  const remove = () => rmSync(dir, { recursive: true, force: true });
  process.once('exit', remove);
  // Removed now, its exit listener goes too: a bench of many cases stays under Node's ten.
  const cleanup = () => {
    process.off('exit', remove);
    remove();
  };
  return { dir, cleanup };
}

export function writeFile(file, content) {
  mkdirSync(path.dirname(file), { recursive: true });
  writeFileSync(file, content);
}

// --- statistics and output ------------------------------------------------------------------

export function stats(values) {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = Math.floor(sorted.length / 2);
  const median = sorted.length % 2 ? sorted[mid] : (sorted[mid - 1] + sorted[mid]) / 2;
  return { median, min: sorted[0], max: sorted[sorted.length - 1], n: sorted.length };
}

/** `fn` timed `n` times after `warmup` untimed calls; milliseconds. */
export async function timeRuns(fn, { n, warmup = 1 } = {}) {
  for (let i = 0; i < warmup; i++) await fn(-1 - i);
  // Once before the series, not before each run: a forced full collection leaves the next
  // run slower than any run of a process that was not told to collect.
  globalThis.gc?.();
  const out = [];
  for (let i = 0; i < n; i++) {
    const t = performance.now();
    await fn(i);
    out.push(performance.now() - t);
  }
  return out;
}

export function ms(x) {
  if (x >= 100) return `${x.toFixed(0)} ms`;
  if (x >= 10) return `${x.toFixed(1)} ms`;
  return `${x.toFixed(2)} ms`;
}

export function ratio(ours, reference) {
  return ours / reference;
}

function fmtRatio(r) {
  return `${r >= 10 ? r.toFixed(1) : r.toFixed(2)}×`;
}

/**
 * One line per figure. `reference`: { label, stats } measured in the same run (the ratio is of
 * the medians); `target`: { text, ok } where a target exists. Returns whether the target was met.
 */
export function report(name, s, { unit = ms, reference, target, note } = {}) {
  let line = `${name}: median ${unit(s.median)} (min ${unit(s.min)}, max ${unit(s.max)}; ${s.n} runs)`;
  if (reference) line += ` [ratio vs ${reference.label} ${fmtRatio(ratio(s.median, reference.stats.median))}]`;
  if (target) line += ` target ${target.text} — ${target.ok ? 'ok' : 'MISSED'}`;
  if (note) line += ` (${note})`;
  console.log(line);
  return target ? target.ok : true;
}

/** A reference figure: the same line format, without ratio or target. */
export function reportReference(name, s, unit = ms) {
  console.log(`${name}: median ${unit(s.median)} (min ${unit(s.min)}, max ${unit(s.max)}; ${s.n} runs) [reference]`);
}

// --- external tools -------------------------------------------------------------------------

export function which(command) {
  const found = spawnSync('sh', ['-c', `command -v ${command}`], { encoding: 'utf8' });
  return found.status === 0 ? found.stdout.trim() : undefined;
}

/** Run a process to its exit, collecting stdout: what one search by a command-line tool costs. */
export function runProcess(command, args, { cwd } = {}) {
  return new Promise((resolve, reject) => {
    const child = spawn(command, args, { cwd, stdio: ['ignore', 'pipe', 'pipe'] });
    const out = [];
    let err = '';
    child.stdout.on('data', (d) => out.push(d));
    child.stderr.on('data', (d) => (err += d));
    child.on('error', reject);
    child.on('close', (code) => {
      // ripgrep exits 1 when nothing matched.
      if (code !== 0 && code !== 1) reject(new Error(`${command} exited ${code}: ${err}`));
      else resolve(Buffer.concat(out).toString('utf8'));
    });
  });
}

// --- corpora --------------------------------------------------------------------------------

/** Deterministic pseudo-random numbers (mulberry32), the same as the tests' long meeting uses. */
export { random };

// Common English and project words; picked with a Zipf-like skew so text reads like notes.
const WORDS = (
  'the of and to in is that for it as was with be by on not he this are or his from at which but have an they you were ' +
  'her she there been one all we their has would when if so no will more can out other into what up only its time some ' +
  'could new them these may then do first any now such like our over man me even most made after also did many before must ' +
  'through back years where much your way well down should because each just those people how too little state good very make ' +
  'world still own see men work long get here between both life being under never day same another know while last might us ' +
  'great old year off come since against go came right used take three team project release budget customer deploy review ' +
  'migration schema roadmap milestone sprint backlog ticket incident rollout feature flag latency throughput database cluster ' +
  'service pipeline dashboard metrics alert owner decision action risk dependency vendor contract legal security audit ' +
  'quarter planning estimate scope design prototype feedback pilot onboarding support pricing invoice report export import ' +
  'staging production rollback hotfix regression benchmark cache index query storage network latency memory capacity'
).split(' ');
const NAMES = ['Alice', 'Bob', 'Carol', 'Dan', 'Erin', 'Frank', 'Grace', 'Heidi', 'Ivan', 'Judy'];

export function sentence(rand, minChars) {
  let s = '';
  while (s.length < minChars) {
    const w = WORDS[Math.floor(rand() * rand() * WORDS.length)];
    s += s === '' ? w[0].toUpperCase() + w.slice(1) : ` ${w}`;
  }
  return `${s}.`;
}

/** One line of a project note: headings, bullets, tasks, links, dates, versions, like real notes. */
function noteLine(rand, i) {
  const r = rand();
  const who = NAMES[Math.floor(rand() * NAMES.length)];
  const day = `2026-${String(1 + Math.floor(rand() * 12)).padStart(2, '0')}-${String(1 + Math.floor(rand() * 28)).padStart(2, '0')}`;
  if (i % 25 === 0) return `## ${sentence(rand, 20).slice(0, -1)}`;
  if (r < 0.002) return `- ${who} confirmed the release date for v${1 + Math.floor(rand() * 4)}.${Math.floor(rand() * 10)}.${Math.floor(rand() * 20)} is ${day}; ${sentence(rand, 40)}`;
  if (r < 0.004) return `- Release window moved to ${day} after the ${sentence(rand, 30)} ${sentence(rand, 30)}`;
  if (r < 0.2) return `- [ ] ${who}: ${sentence(rand, 80)} (due ${day})`;
  if (r < 0.4) return `- ${sentence(rand, 100)} See [[${sentence(rand, 12).slice(0, -1)}]].`;
  return `${sentence(rand, 70)} ${sentence(rand, 30)}`;
}

export function projectNote(rand, lines) {
  const out = ['---', `tags: [project, ${WORDS[Math.floor(rand() * 200)]}]`, '---'];
  for (let i = out.length; i < lines; i++) out.push(noteLine(rand, i));
  return `${out.join('\n')}\n`;
}

/** A summary note as the daemon writes one (frontmatter of docs/design.md §1, then the body). */
export function summaryNote(rand, { title, start, projects, lines = 24 }) {
  const body = ['## Summary'];
  for (let i = 0; i < lines / 3; i++) body.push(sentence(rand, 90));
  body.push('## Decisions');
  for (let i = 0; i < lines / 3; i++) body.push(`- ${sentence(rand, 60)}`);
  body.push('## Next steps');
  for (let i = 0; i < lines / 3; i++) body.push(`- ${NAMES[i % NAMES.length]}: ${sentence(rand, 50)}`);
  return (
    `---\ntitle: ${title}\nstart_time: ${start}\nend_time: ${start}\nprojects: [${projects.join(', ')}]\n` +
    `meeting: "[[Meetings/${title}]]"\ntranscript: "[[Meetings/Transcripts/${title}]]"\ncontext: "[[Meetings/Context/${title}]]"\nstatus: done\n---\n` +
    `${body.join('\n')}\n`
  );
}

export function isoStart(i) {
  const t = Date.UTC(2020, 0, 1, 9) + i * 6 * 3600 * 1000;
  return new Date(t).toISOString().replace('.000Z', 'Z');
}

/**
 * Summary notes in `<vault>/Meetings/Summaries`, their projects drawn from `projects`
 * (one or two each). Returns the total bytes written.
 */
export function writeSummaries(vault, count, { projects, seed = 7, lines = 24 } = {}) {
  const rand = random(seed);
  let bytes = 0;
  for (let i = 0; i < count; i++) {
    const first = projects[Math.floor(rand() * projects.length)];
    const second = projects[Math.floor(rand() * projects.length)];
    const title = `${isoStart(i).slice(0, 10)} Meeting ${String(i).padStart(5, '0')}`;
    const text = summaryNote(rand, { title, start: isoStart(i), projects: first === second ? [first] : [first, second], lines });
    writeFile(path.join(vault, 'Meetings', 'Summaries', `${title}.md`), text);
    bytes += Buffer.byteLength(text);
  }
  return bytes;
}

/** `projects` project folders of `files` notes of `lines` lines each. Returns the total bytes. */
export function writeProjects(vault, { projects, files, lines, seed = 1 }) {
  const rand = random(seed);
  let bytes = 0;
  for (const project of projects) {
    for (let i = 0; i < files; i++) {
      // A few subfolders, as real projects have.
      const sub = i % 10 === 0 ? '' : `${['notes', 'decisions', 'specs', 'people'][i % 4]}/`;
      const text = projectNote(rand, lines);
      writeFile(path.join(vault, 'Projects', project, `${sub}Note ${String(i).padStart(4, '0')}.md`), text);
      bytes += Buffer.byteLength(text);
    }
  }
  return bytes;
}

/** The meeting note, transcript and context note of the meeting the tools are bound to. */
export function writeCurrentMeeting(vault, { projects, transcriptLines = 400 }) {
  const name = '2030-01-01 Current Meeting';
  const rand = random(99);
  writeFile(
    path.join(vault, 'Meetings', `${name}.md`),
    `---\ntitle: Current Meeting\nstart_time: 2030-01-01T09:00:00Z\nend_time: 2030-01-01T10:00:00Z\nattendees: [Alice, Bob]\nprojects: [${projects.join(', ')}]\n` +
      `transcript: "[[Meetings/Transcripts/${name}]]"\ncontext: "[[Meetings/Context/${name}]]"\nsummary: "[[Meetings/Summaries/${name}]]"\n---\nRelease date still open.\nAsk Carol about the budget.\n`,
  );
  const lines = [];
  for (let i = 0; i < transcriptLines; i++) {
    const s = i * 9;
    const ts = `${String(Math.floor(s / 3600)).padStart(2, '0')}:${String(Math.floor(s / 60) % 60).padStart(2, '0')}:${String(s % 60).padStart(2, '0')}`;
    lines.push(`[${ts}] ${NAMES[i % 4]}: ${sentence(rand, 60 + Math.floor(rand() * 80))}`);
  }
  writeFile(path.join(vault, 'Meetings', 'Transcripts', `${name}.md`), `---\nmeeting: "[[Meetings/${name}]]"\nstate: finished\n---\n${lines.join('\n')}\n`);
  writeFile(
    path.join(vault, 'Meetings', 'Context', `${name}.md`),
    `---\ntitle: Current Meeting\nstart_time: 2030-01-01T09:00:00Z\nend_time: 2030-01-01T10:00:00Z\nmeeting: "[[Meetings/${name}]]"\ntranscript: "[[Meetings/Transcripts/${name}]]"\nsummary: "[[Meetings/Summaries/${name}]]"\nstate: summarizing\nagenda: ""\n---\nNotebook: nothing yet.\n`,
  );
  writeFile(path.join(vault, 'Meetings', 'Glossary.md'), 'CI: continuous integration\nGA: general availability\nSLA: service level agreement\n');
  writeFile(path.join(vault, 'Meetings', 'Dictionary.md'), 'Kubernetes\nGrafana\n');
  return {
    meetingPath: path.join(vault, 'Meetings', `${name}.md`),
    transcriptPath: path.join(vault, 'Meetings', 'Transcripts', `${name}.md`),
    contextPath: path.join(vault, 'Meetings', 'Context', `${name}.md`),
    summaryPath: path.join(vault, 'Meetings', 'Summaries', `${name}.md`),
    title: 'Current Meeting',
    startTime: '2030-01-01T09:00:00Z',
    endTime: '2030-01-01T10:00:00Z',
    attendees: ['Alice', 'Bob'],
    projects,
  };
}

/** A tool context bound to the current meeting, as the pipeline builds one, on the real disk. */
export async function toolSetup(vault, meeting, raw = {}, ctxOptions = {}) {
  const { resolveConfig } = await dist('config.js');
  const { Vault } = await dist('vault/files/vault.js');
  const { nodeFs } = await dist('vault/files/fs.js');
  const { createToolBinding, createToolRegistry } = await dist('tools/registry.js');
  const config = resolveConfig({ MeetingAssistant: { VaultPath: vault, ...raw } });
  const v = new Vault(nodeFs, config.layout);
  const ctx = createToolBinding({ vault: v, settings: config.settings, meeting, ...ctxOptions });
  const registry = createToolRegistry(ctx);
  let n = 0;
  const call = async (name, args = {}) => {
    const r = await registry.call({ id: `call_${++n}`, name, arguments: JSON.stringify(args) });
    if (r.isError) throw new Error(`${name}: ${r.content}`);
    return r.content;
  };
  return { config, vault: v, ctx, registry, call };
}

/**
 * What the daemon does for the tools' caches (`caches`: a context's RunCaches): a chokidar
 * watcher on `folders` whose every event invalidates the path, and the caches told to trust
 * it once it is ready. Returns the watcher (close it at the end).
 */
export async function watchLikeDaemon(caches, folders) {
  const { watch } = await import('chokidar');
  const watcher = watch(folders, { ignoreInitial: true, atomic: true });
  for (const event of ['add', 'change', 'unlink', 'addDir', 'unlinkDir']) watcher.on(event, (p) => caches.watch.invalidate(path.resolve(p)));
  await new Promise((resolve) => watcher.once('ready', resolve));
  caches.watch.trust(folders);
  return watcher;
}

/** Poll `check` until it returns true, or fail after `timeoutMs`. */
export async function until(check, timeoutMs = 10_000, what = 'condition') {
  const end = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 20));
  }
}

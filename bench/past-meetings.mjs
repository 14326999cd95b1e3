// list_past_project_meetings (and read_past_project_meeting_summary) over 10,000 summary
// notes of five projects, the meeting on two of them. Warm, as the daemon serves it (its
// watcher reporting changes, so a call touches no file when nothing changed), and without a
// watcher (one listing and one stat per summary per call).
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { ms, report, runs, stats, tempDir, timeRuns, toolSetup, until, watchLikeDaemon, writeCurrentMeeting, writeSummaries } from './_lib.mjs';

const RUNS = runs(30);
const SUMMARIES = Number(process.env.BENCH_SUMMARIES ?? 10_000);
const PROJECTS = ['Alpha', 'Beta', 'Gamma', 'Delta', 'Epsilon'];

const { dir, cleanup } = tempDir('past');
const vault = path.join(dir, 'vault');
const t0 = performance.now();
const bytes = writeSummaries(vault, SUMMARIES, { projects: PROJECTS });
const meeting = writeCurrentMeeting(vault, { projects: ['Alpha', 'Beta'] });
console.log(`vault: ${SUMMARIES} summaries of ${PROJECTS.length} projects (${(bytes / 1e6).toFixed(1)} MB), meeting on Alpha and Beta (generated in ${((performance.now() - t0) / 1000).toFixed(1)} s)`);

const daemonLike = await toolSetup(vault, meeting);
const watcher = await watchLikeDaemon(daemonLike.ctx.caches, [path.join(vault, 'Meetings', 'Summaries')]);
const noWatcher = await toolSetup(vault, meeting);

const c0 = performance.now();
const first = await daemonLike.call('list_past_project_meetings');
console.log(`first call (cold: every summary's frontmatter read and parsed): ${ms(performance.now() - c0)} — ${first.split('\n')[0]}`);
await noWatcher.call('list_past_project_meetings');

const list = (h, args) => () => h.call('list_past_project_meetings', args);
const lastPage = Math.ceil(Number(/\((\d+) summaries/.exec(first)[1]) / 100);
const target = (s) => ({ text: '< 20 ms', ok: s.median < 20 });

let s = stats(await timeRuns(list(daemonLike, {}), { n: RUNS }));
report('list_past_project_meetings page 1, warm daemon', s, { target: target(s) });
s = stats(await timeRuns(list(daemonLike, { page: lastPage, page_size: 100 }), { n: RUNS }));
report(`list_past_project_meetings page ${lastPage} of 100, warm daemon`, s, { target: target(s) });
s = stats(await timeRuns(list(daemonLike, { projects: ['Beta'] }), { n: RUNS }));
report('list_past_project_meetings projects [Beta], warm daemon', s, { target: target(s) });
const oneSummary = first.split('\n')[1].split(' | ')[0];
s = stats(await timeRuns(() => daemonLike.call('read_past_project_meeting_summary', { path: oneSummary }), { n: RUNS }));
report('read_past_project_meeting_summary, warm daemon', s, { target: { text: '< 5 ms (read tool)', ok: s.median < 5 } });
report('list_past_project_meetings page 1, warm, no watcher (stat per summary)', stats(await timeRuns(list(noWatcher, {}), { n: Math.min(RUNS, 10) })), {
  note: 'what a daemon without the watcher wiring gets; no target',
});

// Freshness: a summary written behind the daemon's back is listed once the watcher reported it.
writeFileSync(
  path.join(vault, 'Meetings', 'Summaries', '2099-01-01 Newest.md'),
  '---\ntitle: Newest\nstart_time: 2099-01-01T09:00:00Z\nprojects: [Alpha]\nstatus: done\n---\n## Summary\nNew.\n',
);
await until(async () => (await daemonLike.call('list_past_project_meetings')).split('\n')[1].includes('Newest'), 10_000, 'the new summary to be listed');
console.log('a summary written by another program is listed first after the watcher reported it: ok');

await watcher.close();
cleanup();

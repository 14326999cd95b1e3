// Per-tool overhead: each read tool called many times on a temp-folder vault (a meeting with a
// one-hour transcript, two projects of 50 notes, 500 past summaries), first through the
// registry alone, then inside the agent loop with an instant scripted model (so every
// millisecond between two model requests is the loop's and the tool's).
import path from 'node:path';
import { dist, report, runs, stats, tempDir, timeRuns, toolSetup, watchLikeDaemon, writeCurrentMeeting, writeProjects, writeSummaries } from './_lib.mjs';

const CALLS = runs(100);
const PROJECTS = ['Alpha', 'Beta'];

const { dir, cleanup } = tempDir('tools');
const vault = path.join(dir, 'vault');
writeProjects(vault, { projects: PROJECTS, files: 50, lines: 200 });
writeSummaries(vault, 500, { projects: [...PROJECTS, 'Gamma'] });
const meeting = writeCurrentMeeting(vault, { projects: PROJECTS, transcriptLines: 400 });
console.log(`vault: meeting with a ${400}-line transcript, ${PROJECTS.length} projects × 50 notes × 200 lines, 500 past summaries`);

const h = await toolSetup(vault, meeting);
const watcher = await watchLikeDaemon(h.ctx.caches, [path.join(vault, 'Projects'), path.join(vault, 'Meetings', 'Summaries')]);
const aSummary = (await h.call('list_past_project_meetings')).split('\n')[1].split(' | ')[0];

// What an agent reads: whole short notes, ranges of long ones.
const READS = [
  ['read_meetingnote', {}],
  ['read_transcript', { from: 101, to: 200 }],
  ['read_transcript', {}],
  ['read_context', {}],
  ['read_usernotes', {}],
  ['read_glossary', {}],
  ['list_projects', {}],
  ['list_projectfiles', { project: 'Alpha' }],
  ['read_projectfile', { project: 'Alpha', path: 'notes/Note 0004.md', from: 1, to: 80 }],
  ['list_past_project_meetings', {}],
  ['read_past_project_meeting_summary', { path: aSummary }],
  ['search', { keywords: ['release date'] }],
];
const label = ([name, args]) => `${name}${args.from ? ` (lines ${args.from}-${args.to})` : name === 'read_transcript' ? ' (whole, 400 lines)' : ''}`;

console.log(`\nregistry.call, ${CALLS} calls each (warm):`);
let allOk = true;
for (const read of READS) {
  const s = stats(await timeRuns(() => h.call(read[0], read[1]), { n: CALLS, warmup: 3 }));
  allOk = report(`  ${label(read)}`, s, { target: { text: '< 5 ms', ok: s.median < 5 } }) && allOk;
}

// --- inside the agent loop -------------------------------------------------------------------
const { runAgentLoop } = await dist('agent/loop.js');
const { WindowBudget } = await dist('agent/window/window-budget.js');
const { resolveConfig } = await dist('config.js');
const { silentLogger } = await dist('log.js');
const { createToolBinding, createToolRegistry } = await dist('tools/registry.js');

const TURNS = READS.length * Math.max(3, Math.ceil(CALLS / 10));
const settings = resolveConfig({
  MeetingAssistant: { VaultPath: vault, ContextWindow: { Tokens: 4_000_000, MaxOutputTokens: 4096 } },
}).settings;
const run = { summaryWritten: false };
const ctx = createToolBinding({ vault: h.vault, settings, meeting, run, caches: h.ctx.caches });
const registry = createToolRegistry(ctx);
/** Per tool: the times from the request that asked for it to the next request. */
const intervals = new Map();
let previous;
let turn = 0;
const model = {
  api: 'chat-completions',
  async complete() {
    const now = performance.now();
    if (previous) intervals.set(previous.label, [...(intervals.get(previous.label) ?? []), now - previous.at]);
    turn++;
    if (turn <= TURNS) {
      const read = READS[(turn - 1) % READS.length];
      previous = { label: label(read), at: now };
      return { content: '', toolCalls: [{ id: `c${turn}`, name: read[0], arguments: JSON.stringify(read[1]) }] };
    }
    previous = undefined;
    if (turn === TURNS + 1) return { content: '', toolCalls: [{ id: 'w', name: 'write_summary', arguments: JSON.stringify({ content: '## Summary\nBench.\n' }) }] };
    return { content: 'Done.', toolCalls: [] };
  },
};
const l0 = performance.now();
await runAgentLoop({
  model,
  tools: registry,
  instructions: 'Bench.',
  firstMessage: 'Summarize.',
  maxTurns: TURNS + 5,
  maxOutputTokens: 4096,
  retry: { attempts: 0, delayMs: 0 },
  context: new WindowBudget({ settings: settings.ContextWindow, api: 'chat-completions', model, log: silentLogger }),
  summaryWritten: () => run.summaryWritten,
  log: silentLogger,
});
const loopMs = performance.now() - l0;
console.log(`\ninside the agent loop (instant scripted model, real context manager), ${TURNS} tool turns in ${loopMs.toFixed(0)} ms; time from one model request to the next:`);
for (const read of READS) {
  const s = stats(intervals.get(label(read)) ?? [0]);
  allOk = report(`  ${label(read)}`, s, { target: { text: '< 5 ms', ok: s.median < 5 } }) && allOk;
}
console.log(allOk ? 'every read tool within target' : 'some read tools MISSED their target');

await watcher.close();
h.ctx.caches.close();
cleanup();

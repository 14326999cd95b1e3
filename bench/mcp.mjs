// `meeting-assistant mcp` (docs/design.md §10) on the bench vault: 3,000 meetings (meeting note,
// transcript, context note and summary each) and 3,000 project notes, 15,000 notes in all. The
// real server in a child process, driven over stdio by the MCP SDK's own client, as Claude
// Desktop or LM Studio would: every figure is a whole tool call, JSON-RPC round trip included.
// Targets: list_meetings and list_action_items ≤ 100 ms warm; search_meetings over all
// summaries ≤ the agent's `search` over the same summaries, tool for tool (in-process, as the
// daemon runs it: a watcher reporting changes, so a warm call checks no file; the server
// watches its folders too, mcp/watch.ts).
import path from 'node:path';
import { appendFileSync } from 'node:fs';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { ROOT, dist, ms, until, watchLikeDaemon, report, reportReference, runs, stats, tempDir, timeRuns, toolSetup, writeCurrentMeeting, writeFile } from './_lib.mjs';
import { MEETING_PROJECTS, writeMeetingsVault } from './_meetings-vault.mjs';

const RUNS = runs(15);
const MEETINGS = Number(process.env.BENCH_MCP_MEETINGS ?? 3000);
const PROJECT_NOTES = Number(process.env.BENCH_MCP_PROJECT_NOTES ?? 3000);
const PROJECTS = MEETING_PROJECTS;

const { dir, cleanup } = tempDir('mcp');
const vault = path.join(dir, 'vault');
const t0 = performance.now();
writeMeetingsVault(vault, { meetings: MEETINGS, projectNotes: PROJECT_NOTES });
const configPath = path.join(dir, 'config.json');
writeFile(configPath, JSON.stringify({ MeetingAssistant: { VaultPath: vault } }));
console.log(`vault: ${MEETINGS} meetings × 4 notes + ${PROJECT_NOTES} project notes = ${MEETINGS * 4 + PROJECT_NOTES} notes (generated in ${((performance.now() - t0) / 1000).toFixed(1)} s)`);

const transport = new StdioClientTransport({ command: process.execPath, args: [path.join(ROOT, 'bin', 'meeting-assistant.js'), 'mcp', '--config', configPath], stderr: 'ignore' });
const client = new Client({ name: 'bench', version: '1.0.0' });
await client.connect(transport);
const call = async (name, args = {}) => {
  const r = await client.callTool({ name, arguments: args });
  if (r.isError) throw new Error(`${name}: ${r.content[0].text}`);
  return r.content[0].text;
};

let allOk = true;
const fast = (s) => ({ text: '≤ 100 ms', ok: s.median <= 100 });
for (const [label, name, args] of [
  ['list_meetings (50 newest)', 'list_meetings', {}],
  ['list_meetings project Beta, attendee Carol, 500', 'list_meetings', { project: 'Beta', attendee: 'Carol', limit: 500 }],
  ['list_meetings from/to one month', 'list_meetings', { from: '2021-03-01', to: '2021-03-31' }],
  ['list_action_items (open, all summaries)', 'list_action_items', {}],
  ['list_action_items owner Alice, project Gamma, due_before', 'list_action_items', { owner: 'Alice', project: 'Gamma', due_before: '2026-12-15', status: 'all' }],
]) {
  const c0 = performance.now();
  const first = await call(name, args);
  const head = first.split('\n')[0].slice(0, 60);
  console.log(`\n${label}: first call ${ms(performance.now() - c0)} — ${head}…`);
  const s = stats(await timeRuns(() => call(name, args), { n: RUNS }));
  allOk = report(`  ${label}, warm`, s, { target: fast(s) }) && allOk;
}

// The agent's `search` over the same 3,000 summaries: a meeting of all three projects (their
// folders hold no files), in this process, its caches warm and trusting a chokidar watcher of
// the summaries and projects folders, as in the daemon (bench/search.mjs does the same).
const meeting = writeCurrentMeeting(vault, { projects: PROJECTS });
const agent = await toolSetup(vault, meeting, { Agent: { SearchMaxResults: 100 } });
const agentWatcher = await watchLikeDaemon(agent.ctx.caches, [path.join(vault, 'Projects'), path.join(vault, 'Meetings', 'Summaries')]);
// The tool's handler in this process, called directly, as the agent's registry calls its
// search: tool for tool, over the same files, each with its own vault object and watcher.
const { resolveConfig } = await dist('config.js');
const { createLogger } = await dist('log.js');
const { watchMeetingFolders } = await dist('mcp/watch.js');
const { Vault } = await dist('vault/files/vault.js');
const { nodeFs } = await dist('vault/files/fs.js');
const { searchMeetings } = await dist('mcp/search-meetings.js');
const { SearchPlans } = await dist('tools/search/search-plans.js');
const { RunCaches } = await dist('tools/binding/run-caches.js');
const { MeetingIndex } = await dist('mcp/meeting-index.js');
const log = createLogger({ level: 'warn' });
const localConfig = resolveConfig({ MeetingAssistant: { VaultPath: vault } });
const localVault = new Vault(nodeFs, localConfig.layout);
const localCaches = new RunCaches(localVault);
const localWatcher = await watchMeetingFolders(localVault, localCaches.watch, log);
const { Meetings, Summaries, Transcripts } = localVault.layout.folders;
const handlerCtx = {
  vault: localVault,
  settings: localConfig.settings,
  log,
  caches: localCaches,
  index: new MeetingIndex(localVault, localCaches.watch),
  plans: new SearchPlans(localCaches.watch, [Meetings, Summaries, Transcripts]),
};
const callHandler = (args) => searchMeetings.handler(args, handlerCtx, new AbortController().signal);

for (const query of ['release', '(?i)budget (review|planning)']) {
  const searchCount = (text) => Number(/^(\d+) matching/.exec(text)?.[1] ?? 0);
  const ours = await call('search_meetings', { query });
  await callHandler({ query });
  const theirs = await agent.call('search', { keywords: [query] });
  console.log(`\nsearch_meetings "${query}": ${searchCount(ours)} matching lines; the agent's search ${searchCount(theirs)}${searchCount(ours) === searchCount(theirs) ? ', the same count' : ' — DIFFERENT counts'}`);
  if (searchCount(ours) !== searchCount(theirs)) allOk = false;
  const oursMs = [];
  const handlerMs = [];
  const agentMs = [];
  globalThis.gc?.();
  for (let i = 0; i < RUNS; i++) {
    const a0 = performance.now();
    await agent.call('search', { keywords: [query] });
    agentMs.push(performance.now() - a0);
    const h0 = performance.now();
    await callHandler({ query });
    handlerMs.push(performance.now() - h0);
    const m0 = performance.now();
    await call('search_meetings', { query });
    oursMs.push(performance.now() - m0);
  }
  const reference = { label: "the agent's search", stats: stats(agentMs) };
  reportReference(`  agent search "${query}", warm daemon (in-process, watcher)`, reference.stats);
  const s = stats(handlerMs);
  allOk = report(`  search_meetings "${query}" over all summaries, warm, the tool itself`, s, { reference, target: { text: "≤ 1.0× the agent's search", ok: s.median <= reference.stats.median } }) && allOk;
  report(`  search_meetings "${query}" over all summaries, warm, over stdio`, stats(oursMs), { reference, note: 'the pipe and the other process added; no target' });
}
await localWatcher.close();

// Freshness: a summary changed by another program is read again at the next call.
appendFileSync(path.join(vault, 'Meetings', 'Summaries', `${new Date(Date.UTC(2020, 0, 1, 9)).toISOString().slice(0, 10)} Meeting 00000.md`), '- [ ] Zed: the freshly added item\n');
await until(async () => (await call('list_action_items', { owner: 'Zed' })).includes('the freshly added item'), 10_000, 'the changed summary to be seen');
console.log('\nafter an external edit, list_action_items sees it once the watcher reported it: ok');
await agentWatcher.close();

await client.close();
localCaches.close();
console.log(allOk ? '\nmcp: every target met' : '\nmcp: some target MISSED');
cleanup();

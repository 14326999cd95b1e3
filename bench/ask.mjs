// `meeting-assistant ask` (docs/design.md §11) on the bench vault of bench/mcp.mjs (3,000
// meetings with their summaries, 15,000 notes), against a small OpenAI-compatible server in
// this process that streams like a local model: the first request gets tool calls, the second
// the answer in 12 pieces, 20 ms apart (a model's tokens).
//  - Time to the first streamed byte: from the moment the server wrote the answer's first
//    piece to the moment the `ask` command (its own code, given a terminal's stdout) wrote its
//    first byte; one clock, one process. Target ≤ 300 ms after the model's first token.
//  - The tool calls' latencies: each of the four tools through ask's binding (ask/ask-tools.ts:
//    argument check, the MCP tools' own code), first call and warm
//    (one meeting index for a process's calls, the meeting folders watched).
import http from 'node:http';
import path from 'node:path';
import { dist, ms, report, runs, stats, tempDir, timeRuns, writeFile } from './_lib.mjs';
import { meetingName, writeMeetingsVault } from './_meetings-vault.mjs';

const RUNS = runs(15);
const MEETINGS = Number(process.env.BENCH_ASK_MEETINGS ?? 3000);
const PIECES = 12;
const PIECE_MS = 20;

const { dir, cleanup } = tempDir('ask');
const vault = path.join(dir, 'vault');
const t0 = performance.now();
writeMeetingsVault(vault, { meetings: MEETINGS, projectNotes: 3000 });
console.log(`vault: ${MEETINGS} meetings × 4 notes + 3000 project notes (generated in ${((performance.now() - t0) / 1000).toFixed(1)} s)`);
const newest = `Meetings/Summaries/${meetingName(MEETINGS - 1)}.md`;

// --- the model: tool calls first, then the answer streamed in pieces --------------------------
let firstTokenAt = 0;
const chunk = (delta, finish = null) => `data: ${JSON.stringify({ id: 'c', object: 'chat.completion.chunk', created: 0, model: 'bench', choices: [{ index: 0, delta, finish_reason: finish }] })}\n\n`;
const server = http.createServer((req, res) => {
  let body = '';
  req.on('data', (d) => (body += d));
  req.on('end', () => void answer(req, res, body));
});

/** The model's answer to one request: tool calls first, then the answer in pieces. */
async function answer(req, res, body) {
  const request = JSON.parse(body || '{}');
  if (req.url !== '/v1/chat/completions' || request.stream !== true) {
    res.writeHead(404, { 'content-type': 'application/json' });
    res.end(JSON.stringify({ error: { message: 'not here', type: 'not_found', param: null, code: null } }));
    return;
  }
  res.writeHead(200, { 'content-type': 'text/event-stream' });
  const looked = request.messages.some((m) => m.role === 'tool');
  if (!looked) {
    const calls = [
      { name: 'search_meetings', arguments: { query: '(?i)release' } },
      { name: 'list_action_items', arguments: { owner: 'Alice' } },
      { name: 'read_meeting', arguments: { meeting: newest } },
    ];
    res.write(chunk({ role: 'assistant', tool_calls: calls.map((c, index) => ({ index, id: `call_${index}`, type: 'function', function: { name: c.name, arguments: JSON.stringify(c.arguments) } })) }));
    res.end(`${chunk({}, 'tool_calls')}data: [DONE]\n\n`);
    return;
  }
  for (let i = 0; i < PIECES; i++) {
    if (i > 0) await new Promise((r) => setTimeout(r, PIECE_MS));
    if (i === 0) firstTokenAt = performance.now();
    res.write(chunk({ content: i === 0 ? 'The release' : ` piece ${i}` }));
  }
  res.end(`${chunk({}, 'stop')}${`data: ${JSON.stringify({ id: 'c', object: 'chat.completion.chunk', choices: [], usage: { prompt_tokens: 900, completion_tokens: PIECES } })}\n\n`}data: [DONE]\n\n`);
}
await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
const baseUrl = `http://127.0.0.1:${server.address().port}/v1`;
const configPath = path.join(dir, 'config.json');
writeFile(configPath, JSON.stringify({ MeetingAssistant: { VaultPath: vault, Endpoint: { BaseUrl: baseUrl, Model: 'bench', ApiKeyEnvironmentVariable: '' }, Logging: { Level: 'silent' } } }));

// --- time to the first streamed byte, through the command ------------------------------------
const { ask } = await dist('commands/ask.js');
let allOk = true;
const firstByte = [];
const whole = [];
for (let i = -1; i < RUNS; i++) {
  let firstWriteAt = 0;
  const started = performance.now();
  const code = await ask('When is the release?', { config: configPath }, {
    io: { out: () => {}, err: (line) => console.log(line) },
    stdout: { isTTY: true, write: () => void (firstWriteAt ||= performance.now()) },
  });
  if (code !== 0) throw new Error(`ask exited ${code}`);
  // The first run is a cold process's (the code loaded, the index built): shown, not counted.
  if (i < 0) console.log(`first question (cold: modules, the meeting index, the search workers): first byte ${ms(firstWriteAt - started)} after the question, ${ms(firstWriteAt - firstTokenAt)} after the model's first token`);
  else {
    firstByte.push(firstWriteAt - firstTokenAt);
    whole.push(firstWriteAt - started);
  }
}
const s = stats(firstByte);
allOk = report(`first streamed byte after the model's first token (${MEETINGS} summaries)`, s, { target: { text: '≤ 300 ms', ok: s.median <= 300 } }) && allOk;
report('first streamed byte after the question (3 tool calls on the vault, then the answer)', stats(whole), { note: 'the command builds its caches anew for each question, as a new `ask` process does' });

// --- the tool calls, through ask's binding ------------------------------------------------------
const { resolveConfig } = await dist('config.js');
const { silentLogger } = await dist('log.js');
const { Vault } = await dist('vault/files/vault.js');
const { nodeFs } = await dist('vault/files/fs.js');
const { RunCaches } = await dist('tools/binding/run-caches.js');
const { createMeetingToolsContext } = await dist('mcp/meeting-tools.js');
const { AskTools } = await dist('ask/ask-tools.js');
const { watchForQuestions } = await dist('ask/ask-setup.js');
const config = resolveConfig({ MeetingAssistant: { VaultPath: vault } });
const localVault = new Vault(nodeFs, config.layout);
const caches = new RunCaches(localVault);
// As the daemon answers questions: one index for all of them, the meeting folders watched.
const watcher = await watchForQuestions(localVault, caches, silentLogger);
const tools = new AskTools(createMeetingToolsContext({ vault: localVault, settings: config.settings, log: silentLogger, caches }), { projects: [] }, new AbortController().signal);
for (const [label, name, args] of [
  ['list_meetings (50 newest)', 'list_meetings', {}],
  ['read_meeting (a summary)', 'read_meeting', { meeting: newest }],
  ['search_meetings "(?i)release" over all summaries', 'search_meetings', { query: '(?i)release' }],
  ['list_action_items owner Alice', 'list_action_items', { owner: 'Alice' }],
]) {
  const call = async () => {
    const r = await tools.call({ id: 'b', name, arguments: JSON.stringify(args) });
    if (r.isError) throw new Error(`${name}: ${r.content}`);
  };
  const c0 = performance.now();
  await call();
  const first = performance.now() - c0;
  report(`${label}, warm (first call ${ms(first)})`, stats(await timeRuns(call, { n: RUNS })));
}
await watcher.close();
caches.close();
server.close();
console.log(allOk ? '\nask: every target met' : '\nask: some target MISSED');
cleanup();

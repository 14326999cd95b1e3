// A 3-hour meeting (1,500 transcript lines) summarized by the real pipeline at four context
// windows, the model being the scripted READER (test/helpers/reader-model.mjs): it reads like a
// careful small model, the whole transcript first, then on from the first line it has not seen,
// 400 lines at a time, then write_summary. Printed per window, each against its target:
// model requests until the summary is written, prompt tokens sent ÷ transcript tokens,
// transcript lines that reached the model, and the largest request.
//
// The 4,096 case is Ollama's default window, unannounced: ContextWindow.Tokens stays at its
// default (32,768) and the server cuts longer prompts silently as Ollama does (their first 4
// tokens and the end, half the window), reporting the 2,050 prompt tokens it kept. The server
// counts with its own tokenizer, BENCH_SERVER_SCALE (default 1.1) times ours.
// BENCH_WINDOWS=8192,4096 runs only those.
//
// Then each window twice more, for what a person waits for once the meeting ends (issue 36):
// the model requests and prompt tokens after the transcript turns `finished`, without live
// notes (every part is read after the meeting) and with them (Daemon.LiveNotes: the transcript
// written in batches of 25 lines while `transcribing`, the live notes pass run after each batch
// as the daemon runs it, then `finished` and the summary's run).
import path from 'node:path';
import { transcriptLines } from '../test/helpers/long-meeting-text.mjs';
import { createReaderModel } from '../test/helpers/reader-model.mjs';
import { dist, tempDir, writeFile } from './_lib.mjs';
import { readerClient } from './_reader-client.mjs';

const { resolveConfig } = await dist('config.js');
const { Vault } = await dist('vault/files/vault.js');
const { nodeFs } = await dist('vault/files/fs.js');
const { summarizeMeeting } = await dist('meeting/pipeline.js');
const { makeLiveNotes } = await dist('meeting/long-transcript/live-notes.js');
const { WindowBudget } = await dist('agent/window/window-budget.js');
const { countTokens, fixedTokens } = await dist('agent/window/tokens.js');
const { createLogger, silentLogger } = await dist('log.js');

const SCALE = Number(process.env.BENCH_SERVER_SCALE ?? 1.1);
const NAME = '2026-11-30 Quarterly Planning';
const HEADER_LINES = 4;
const speech = transcriptLines(32_300);
const transcriptTokens = countTokens(speech.join('\n'));

const CASES = [
  // `before`: the requests of the run before phases (issue 21 point 3: nothing gets worse).
  { window: 131_072, tokens: 131_072, maxOutput: 4096, requests: 4, before: 3 },
  { window: 32_768, tokens: 32_768, maxOutput: 4096, requests: 10, before: 6 },
  { window: 8192, tokens: 8192, maxOutput: 1024, requests: 24, before: 17, noneOver: true, ratio: 4 },
  { window: 4096, tokens: 32_768, maxOutput: 4096, requests: 60, silent: true },
].filter((c) => !process.env.BENCH_WINDOWS || process.env.BENCH_WINDOWS.split(',').map(Number).includes(c.window));

const BATCH = 25;
const transcriptText = (state, lines) => `---\nmeeting: "[[Meetings/${NAME}]]"\nstate: ${state}\n---\n${lines.join('\n')}\n`;

function writeVault(root, transcript = transcriptText('finished', speech)) {
  writeFile(
    path.join(root, 'Meetings', `${NAME}.md`),
    '---\ntitle: Quarterly Planning\nstart_time: 2026-11-30T09:00:00+01:00\nend_time: 2026-11-30T12:00:00+01:00\n' +
      `attendees: [Alice Martin, Bob Chen, Carol Diaz, Dan Okafor]\nprojects: [Alpha]\ntranscript: "[[Meetings/Transcripts/${NAME}]]"\n` +
      `context: "[[Meetings/Context/${NAME}]]"\nsummary: "[[Meetings/Summaries/${NAME}]]"\n---\n`,
  );
  writeFile(path.join(root, 'Meetings', 'Transcripts', `${NAME}.md`), transcript);
  writeFile(path.join(root, 'Projects', 'Alpha', 'Overview.md'), '# Alpha\n');
}

async function runCase(c, live) {
  const { dir, cleanup } = tempDir(`long-meeting-${c.window}`);
  writeVault(dir, live === undefined ? undefined : transcriptText('transcribing', []));
  const config = resolveConfig({
    MeetingAssistant: { VaultPath: dir, ContextWindow: { Tokens: c.tokens, MaxOutputTokens: c.maxOutput }, Reconnect: { Attempts: 0 } },
  });
  const settings = config.settings;
  const reader = createReaderModel({
    first: HEADER_LINES + 1,
    last: HEADER_LINES + speech.length,
    chunk: 400,
    countTokens,
    scale: SCALE,
    ...(c.silent ? { serverWindow: c.window } : {}),
  });
  const seen = {};
  const model = readerClient(reader, { onRequest: (request) => request.tools.length > 0 && (seen.fixed ??= fixedTokens(request)) });
  const vault = new Vault(nodeFs, config.layout);
  const deps = {
    vault,
    config,
    // BENCH_LOG=info shows the run's log (parts, condensing, compaction) on stderr.
    log: process.env.BENCH_LOG ? createLogger({ level: process.env.BENCH_LOG, destination: process.stderr }) : silentLogger,
    model,
    retryUrl: () => 'http://127.0.0.1/retry',
    contextManager: (log) => new WindowBudget({ settings: settings.ContextWindow, api: 'chat-completions', model, log }),
    sleep: async () => {},
  };
  const meeting = vault.abs(`Meetings/${NAME}.md`);
  const transcript = path.join(dir, 'Meetings', 'Transcripts', `${NAME}.md`);
  let during = 0;
  if (live !== undefined) {
    // The transcript as a transcriber writes it; with live notes, their pass after each batch.
    for (let n = BATCH; n < speech.length + BATCH; n += BATCH) {
      writeFile(transcript, transcriptText('transcribing', speech.slice(0, Math.min(n, speech.length))));
      if (live) during += (await makeLiveNotes(deps, meeting)).requests;
    }
    writeFile(transcript, transcriptText('finished', speech));
  }
  const before = { requests: reader.stats.requests, promptTokens: reader.stats.promptTokens };
  const started = performance.now();
  const outcome = await summarizeMeeting(deps, meeting);
  const ms = performance.now() - started;
  cleanup();
  const after = { requests: reader.stats.requests - before.requests, promptTokens: reader.stats.promptTokens - before.promptTokens, during };
  return { outcome, stats: reader.stats, after, reached: reader.linesReached(), total: reader.totalLines, fixed: seen.fixed, ms };
}

console.log(
  `transcript: ${speech.length} lines, ${transcriptTokens} tokens (ours; the server counts ${SCALE}×); ` +
    'reader: whole transcript first, then 400 lines at a time from the first line not seen',
);
let allOk = true;
for (const c of CASES) {
  const r = await runCase(c);
  const s = r.stats;
  const ratio = s.promptTokens / (transcriptTokens * SCALE);
  const done = r.outcome.status === 'done';
  const every = r.reached === r.total && s.everyLineBeforeSummary === true;
  const checks = [
    ['done', done],
    [`requests ${s.requests} ≤ ${c.requests}`, s.requests <= c.requests],
    [`every line (${r.reached}/${r.total}) before the summary`, every],
  ];
  if (c.before) checks.push([`no more than before phases (${c.before})`, s.requests <= c.before]);
  if (c.noneOver) checks.push([`largest ${s.largest} ≤ ${c.window}`, s.largest <= c.window]);
  if (c.ratio) checks.push([`sent ${ratio.toFixed(2)}× ≤ ${c.ratio}×`, ratio <= c.ratio]);
  const ok = checks.every(([, pass]) => pass);
  allOk &&= ok;
  const label = c.silent ? `${c.window} (server cuts silently; ContextWindow.Tokens ${c.tokens})` : String(c.window);
  console.log(
    `window ${label}: ${done ? 'done' : `FAILED (${r.outcome.error})`}; requests ${s.requests} (agent ${s.agentRequests}, notes ${s.requests - s.agentRequests}, cut by the server ${s.cut}); ` +
      `prompt tokens sent ${ratio.toFixed(2)}× the transcript; lines reached ${r.reached}/${r.total}; largest request ${s.largest}; ` +
      `instructions + tool schemas ${r.fixed ?? '(no agent request made)'}${r.fixed ? ' tokens' : ''}; ${Math.round(r.ms)} ms`,
  );
  console.log(`  target: ${checks.map(([what, pass]) => `${what} ${pass ? 'ok' : 'MISSED'}`).join('; ')}`);
  if (!done && /WindowOverflowError/.test(r.outcome.error ?? '')) {
    console.log(`  (the instructions, tool schemas and first message left no room in the window the run learned; see the error)`);
  }
}

// What a person waits for at the end of the meeting (issue 36): at 8,192 at most 4 requests.
console.log('after `finished` (the transcript written in batches of 25 lines while transcribing):');
for (const c of CASES) {
  const off = await runCase(c, false);
  const on = await runCase(c, true);
  const label = c.silent ? `${c.window} (cut silently)` : String(c.window);
  const ok = on.outcome.status === 'done' && off.outcome.status === 'done' && (c.window !== 8192 || on.after.requests <= 4);
  allOk &&= ok;
  console.log(
    `window ${label}: without live notes ${off.after.requests} requests, ${off.after.promptTokens} prompt tokens; ` +
      `with live notes ${on.after.requests} requests, ${on.after.promptTokens} prompt tokens ` +
      `(${on.after.during} requests during the meeting)${c.window === 8192 ? `; target ≤ 4 requests ${on.after.requests <= 4 ? 'ok' : 'MISSED'}` : ''}${ok ? '' : ' FAILED'}`,
  );
}
process.exitCode = allOk ? 0 : 1;

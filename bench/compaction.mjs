// Context-window figures for a 3-hour meeting (~30,000 words) read in ranges of 200 lines:
// how far the request estimate is from the exact token count of the request as a chat
// template renders it (and how far a chars/4 rule of thumb is), what estimating costs, and the
// time each local compaction stage adds (median/min/max over several runs). The summarizing
// stage's model call is answered at once here: its real cost is one model request.
import { countTokens as exactCount } from 'gpt-tokenizer/encoding/cl100k_base';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { transcriptLines } from '../test/helpers/long-meeting-text.mjs';

const here = path.dirname(fileURLToPath(import.meta.url));
const dist = (p) => pathToFileURL(path.join(here, '..', 'dist', p)).href;
const { estimateRequestTokens, fixedTokens } = await import(dist('agent/window/tokens.js'));
const { catLine } = await import(dist('vault/format/lines.js'));
const compaction = await import(dist('agent/window/compaction.js'));
const { WindowBudget } = await import(dist('agent/window/window-budget.js'));
const { silentLogger } = await import(dist('log.js'));

const RUNS = Number(process.env.BENCH_RUNS ?? 9);
const WORDS = Number(process.env.BENCH_WORDS ?? 30_000);

// --- a 3-hour transcript: the generator the tests and the long-meeting bench use --------------
function transcript(words) {
  const speech = transcriptLines(words);
  const lines = ['---', 'meeting: "[[2024-05-02 1400 Quarterly planning]]"', 'state: finished', '---', '', ...speech];
  const last = /^\[(\d\d):(\d\d):(\d\d)\]/.exec(speech.at(-1) ?? '');
  const duration = last ? Number(last[1]) * 3600 + Number(last[2]) * 60 + Number(last[3]) : 0;
  return { lines, words, duration };
}

// --- the recorded run ----------------------------------------------------------------------
const TOOLS = ['read_meetingnote', 'read_transcript', 'read_usernotes', 'read_glossary', 'write_context', 'write_summary'].map((name) => ({
  name,
  description: `The ${name.replace('_', ' ')} tool of Meeting Assistant, as the model sees it; reads take an inclusive 1-based line range.`,
  parameters: { type: 'object', properties: { from: { type: 'integer', minimum: 1 }, to: { type: 'integer', minimum: 1 }, content: { type: 'string' } }, additionalProperties: false },
}));
const INSTRUCTIONS = 'You are Meeting Assistant. Read the meeting note, the user notes, the glossary and the transcript in ranges of about 200 lines, keep notes with write_context, then write the summary with write_summary.';

function conversation(lines) {
  const messages = [{ role: 'user', content: 'Summarize this meeting.\n\nMeeting note: Meetings/2024-05-02 1400 Quarterly planning.md\nAttendees: Alice Martin, Bob Chen, Carol Diaz, Dan Okafor' }];
  let id = 0;
  const call = (name, args, result) => {
    const callId = `call_${++id}`;
    messages.push({ role: 'assistant', content: '', toolCalls: [{ id: callId, name, arguments: JSON.stringify(args) }] });
    messages.push({ role: 'tool', toolCallId: callId, name, content: result });
  };
  for (let from = 1; from <= lines.length; from += 200) {
    const to = Math.min(lines.length, from + 199);
    const out = [`Meetings/Transcripts/T.md (lines ${from}-${to} of ${lines.length})`];
    for (let n = from; n <= to; n++) out.push(catLine(n, lines[n - 1]));
    call('read_transcript', { from, to }, out.join('\n'));
    if (((from - 1) / 200) % 2 === 1) call('write_context', { mode: 'insert', line: 1, content: `- Lines ${from - 200}-${to}: rollout behind a flag; Alice owns the rollback plan.` }, 'Context note updated.');
  }
  call('write_summary', { content: '## Summary\nQuarterly planning.\n\n## Decisions\n- Ship behind a flag.\n\n## Next steps\n- Alice: rollback plan by Friday.' }, 'Summary written.');
  return { instructions: INSTRUCTIONS, messages, tools: TOOLS };
}

/** Qwen's ChatML rendering; <|im_start|>/<|im_end|> are one token each in the model's vocabulary. */
function exactTemplateTokens(req) {
  const tools = req.tools.map((t) => JSON.stringify({ type: 'function', function: { name: t.name, description: t.description, parameters: t.parameters } })).join('\n');
  const parts = [
    `system\n${req.instructions}\n\n# Tools\n\nYou may call one or more functions to assist with the user query.\n\nYou are provided with function signatures within <tools></tools> XML tags:\n<tools>\n${tools}\n</tools>\n\nFor each function call, return a json object with function name and arguments within <tool_call></tool_call> XML tags:\n<tool_call>\n{"name": <function-name>, "arguments": <args-json-object>}\n</tool_call>`,
  ];
  const ms = req.messages;
  for (let i = 0; i < ms.length; i++) {
    const m = ms[i];
    if (m.role === 'user') parts.push(`user\n${m.content}`);
    else if (m.role === 'assistant') parts.push(`assistant\n${[m.content, ...(m.toolCalls ?? []).map((c) => `<tool_call>\n{"name": "${c.name}", "arguments": ${c.arguments}}\n</tool_call>`)].filter(Boolean).join('\n')}`);
    else if (m.role === 'tool') {
      const results = [];
      for (; i < ms.length && ms[i].role === 'tool'; i++) results.push(`<tool_response>\n${ms[i].content}\n</tool_response>`);
      i--;
      parts.push(`user\n${results.join('\n')}`);
    }
  }
  parts.push('assistant\n');
  const text = parts.join('\n');
  // Two markers per turn, the last (the reply's start) has one.
  const markers = parts.length * 2 - 1;
  return { tokens: exactCount(text, { disallowedSpecial: new Set() }) + markers, chars: text.length + markers * 11 };
}

const stats = (xs) => {
  const s = [...xs].sort((a, b) => a - b);
  return { median: s[Math.floor(s.length / 2)], min: s[0], max: s.at(-1) };
};
const ms = (x) => `${x.toFixed(1)} ms`;
const fmt = (st) => `median ${ms(st.median)}, min ${ms(st.min)}, max ${ms(st.max)}`;
const pct = (x) => `${x >= 0 ? '+' : ''}${(x * 100).toFixed(2)} %`;

// --- 1. the estimate against the exact count ------------------------------------------------
const t = transcript(WORDS);
console.log(`transcript: about ${t.words} words, ${t.lines.length} lines, ${Math.round(t.duration / 60)} min of speech`);
const full = conversation(t.lines);
const exact = exactTemplateTokens(full);
const estimate = estimateRequestTokens(full);
const heuristic = Math.ceil(exact.chars / 4);
console.log(`whole run as one request (${full.messages.length} messages): exact ${exact.tokens} tokens (cl100k_base, Qwen chat template)`);
console.log(`  estimate    ${estimate} (${pct((estimate - exact.tokens) / exact.tokens)})`);
console.log(`  chars / 4   ${heuristic} (${pct((heuristic - exact.tokens) / exact.tokens)})`);
for (const share of [0.1, 0.5]) {
  const part = { ...full, messages: full.messages.slice(0, Math.max(1, Math.floor(full.messages.length * share) | 1)) };
  const e = estimateRequestTokens(part);
  const x = exactTemplateTokens(part);
  console.log(`  first ${share * 100} % of the run: exact ${x.tokens}, estimate ${pct((e - x.tokens) / x.tokens)}, chars/4 ${pct((Math.ceil(x.chars / 4) - x.tokens) / x.tokens)}`);
}

const cold = [];
const warm = [];
for (let i = 0; i < RUNS; i++) {
  const fresh = conversation(t.lines);
  let s = performance.now();
  estimateRequestTokens(fresh);
  cold.push(performance.now() - s);
  s = performance.now();
  estimateRequestTokens(fresh);
  warm.push(performance.now() - s);
}
console.log(`estimate time, whole run: first time ${fmt(stats(cold))}; again (counts remembered per message) ${fmt(stats(warm))}`);

// --- 2. compaction time per stage ------------------------------------------------------------
const model = { api: 'chat-completions', complete: async () => ({ content: '- Notes of everything read so far.', toolCalls: [] }) };
const settings = { Tokens: 8192, MaxOutputTokens: 1024, Compaction: { Enabled: true, Threshold: 0.2, CompactPath: '/responses/compact' } };
const budget = settings.Tokens - settings.MaxOutputTokens;
const target = Math.floor(budget * (1 - settings.Compaction.Threshold));
console.log(`\neach compaction stage alone on the whole run, doing all it can (${RUNS} runs; the summarizing model call answers at once):`);
const perStage = new Map(compaction.STAGES.map((s) => [s, []]));
const sizes = new Map();
const STAGE_FUNCTIONS = {
  'collapse-tool-results': compaction.collapseToolResults,
  'summarize-older': compaction.summarizeOlder,
  'keep-last-user-turns': compaction.keepLastUserTurns,
  'drop-oldest-groups': compaction.dropOldestGroups,
  'shorten-recent-results': compaction.shortenRecentResults,
};
// Each stage alone on the whole, uncompacted run with a target of 0, so that it does all it
// can: the most any one stage can add to a request.
for (let i = 0; i < RUNS; i++) {
  for (const stage of compaction.STAGES) {
    const conv = conversation(t.lines);
    const before = estimateRequestTokens(conv); // counted, as after the response that produced it
    const ctx = compaction.stageContext(conv, { target: 0, tools: conv.tools, log: silentLogger, model, maxOutputTokens: 1024, renderLimit: Math.floor(budget * 0.9) - compaction.summaryPromptTokens(), summaryTokens: 1024 });
    const s = performance.now();
    const messages = await STAGE_FUNCTIONS[stage](conv.messages, ctx);
    perStage.get(stage).push(performance.now() - s);
    sizes.set(stage, [before, estimateRequestTokens({ ...conv, messages })]);
  }
}
for (const [stage, times] of perStage) {
  const [before, after] = sizes.get(stage);
  console.log(`  ${stage.padEnd(24)} ${fmt(stats(times))}  (${before} -> ${after} tokens)`);
}

const totals = [];
const coldTotals = [];
let report;
for (let i = 0; i < RUNS; i++) {
  for (const [list, warmUp] of [[totals, true], [coldTotals, false]]) {
    const conv = conversation(t.lines);
    const cm = new WindowBudget({ settings, api: 'chat-completions', model, log: silentLogger });
    if (warmUp) estimateRequestTokens(conv);
    const s = performance.now();
    await cm.beforeRequest(conv, conv.tools);
    list.push(performance.now() - s);
    report = cm.lastCompaction;
  }
}
console.log(`\nbeforeRequest on the whole run, ContextWindow.Tokens ${settings.Tokens} (budget ${budget}, target ${target}):`);
console.log(`  messages already counted ${fmt(stats(totals))}; every message still to be counted ${fmt(stats(coldTotals))}`);
console.log(`  stages run: ${report.stages.map((s) => `${s.stage} ${s.before}->${s.after}`).join(', ')}; fits: ${report.fits}`);
console.log(`  fixed part (instructions and tool schemas): ${fixedTokens(full)} tokens`);

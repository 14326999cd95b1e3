// The reader of calls written as text (src/agent/model/answers/text-calls.ts, docs/design.md §3 step 11)
// on 1 MB answers: a plain one, one call after a megabyte of prose, and hostile ones full of
// unclosed markers, think tags, fences and brackets. Each must take time in proportion to its
// length (no backtracking blow-up): the 2 MB figure beside the 1 MB one shows the ratio.
import { dist, report, runs, stats, timeRuns } from './_lib.mjs';

const { readTextCalls } = await dist('agent/model/answers/text-calls.js');
const N = runs(10);
const MB = 1024 * 1024;
const tools = [
  { name: 'read_transcript', description: '', parameters: { type: 'object', properties: { from: { type: 'integer' } } } },
  { name: 'write_summary', description: '', parameters: { type: 'object', properties: { content: { type: 'string' } } } },
];
const fill = (unit, bytes) => unit.repeat(Math.ceil(bytes / unit.length)).slice(0, bytes);
const shapes = {
  prose: (b) => fill('The team agreed to ship on Friday; Anna owns the release notes. ', b),
  'one call after prose': (b) => `${fill('Reading the transcript now. ', b - 80)}<tool_call>{"name": "read_transcript", "arguments": {"from": 1}}</tool_call>`,
  'unclosed <tool_call>': (b) => fill('<tool_call>{"name": "write_summary", "arguments": {"content": "', b),
  'unclosed <think>': (b) => fill('<think>', b),
  'fences': (b) => fill('```\n', b),
  '[TOOL_CALLS] without [ARGS]': (b) => fill('[TOOL_CALLS]write_summary', b),
  'harmony headers': (b) => fill('<|channel|>commentary to=functions.write_summary <|message|>{"a":', b),
  'open brackets': (b) => fill('{[', b),
  'Qwen3-Coder parameters never closed': (b) => `<tool_call><function=write_summary>${fill('<parameter=content>x', b)}`,
  'Qwen3-Coder parameters, closed': (b) => `<tool_call><function=write_summary>${fill('<parameter=content>x</parameter>', b - 60)}</function></tool_call>`,
  'whole-content JSON call': (b) => `{"name": "write_summary", "arguments": {"content": "${fill('x', b - 60)}"}}`,
};
console.log(`readTextCalls on 1 MB and 2 MB answers, ${N} runs each`);
for (const [label, make] of Object.entries(shapes)) {
  const one = make(MB);
  const two = make(2 * MB);
  const s1 = stats(await timeRuns(() => readTextCalls(one, tools), { n: N }));
  const s2 = stats(await timeRuns(() => readTextCalls(two, tools), { n: N }));
  report(`${label}, 1 MB`, s1);
  report(`${label}, 2 MB`, s2, { note: `2 MB / 1 MB = ${(s2.median / Math.max(s1.median, 0.001)).toFixed(2)}` });
}

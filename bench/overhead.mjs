// The fixed overhead of every model request: the default instructions plus the tool schemas
// offered, as the chat-completions client serializes them (issues 12 and 21). Not a timing: a
// size, printed as chars/4 of the JSON and as cl100k tokens, with the default instructions (no
// AGENTS.md). A run is one conversation with all nineteen tools unless they would take more than a
// quarter of the window (issue 31): then the summary with the meeting's tools, then the project files.
// Limits (chars/4): 1,100 for the summary phase and for a meeting without projects, 850 for the
// project phase, 1,300 for a meeting with past summaries and no project folder, 1,650 for all nineteen.
import { dist } from './_lib.mjs';

const { requestOverhead } = await dist('agent/window/overhead.js');
const { buildInstructions, buildProjectInstructions } = await dist('meeting/prompt.js');
const { offeredTools, phasedTools } = await dist('tools/offered-tools.js');
const { summaryShapeSection } = await dist('meeting/summary-shape.js');
// The built-in summary structure with a named language: the longest shape without a template.
const shape = summaryShapeSection({ language: { value: 'pt-BR', source: 'meeting' }, taskFormat: 'dataview' });
const everything = { projects: true, past: true, identities: true };
const pastOnly = { projects: false, past: true, identities: true };

const cases = [
  ['summary phase of a meeting with everything', phasedTools(everything).summary, buildInstructions('', [], { shape }), 1100],
  ['project phase (with read_transcript)', phasedTools(everything).projects, buildProjectInstructions('', [], { pastTools: true }), 850],
  ['past summaries, no project folder (one phase)', phasedTools(pastOnly).summary, buildInstructions('', [], { shape, pastTools: true }), 1300],
  ['no projects, no past summaries', offeredTools({ projects: false, past: false, identities: true }), buildInstructions('', [], { shape }), 1100],
  ['no projects, no past summaries, no identities', offeredTools({ projects: false, past: false, identities: false }), buildInstructions('', [], { shape }), 1100],
  ['one conversation with all nineteen tools (the rule above 4,096, issue 31)', offeredTools(everything), buildInstructions('', [], { shape, pastTools: true, projectTools: true }), 1650],
];
let ok = true;
for (const [label, offered, instructions, limit] of cases) {
  const tools = offered.map(({ name, description, parameters }) => ({ name, description, parameters }));
  const o = requestOverhead(instructions, tools);
  const met = o.charsPerFour <= limit;
  ok &&= met;
  console.log(
    `overhead, ${label} (${tools.length} tools): ${o.charsPerFour} tokens chars/4, ${o.cl100k} cl100k target ≤ ${limit} — ${met ? 'ok' : 'MISSED'}`,
  );
}
process.exitCode = ok ? 0 : 1;

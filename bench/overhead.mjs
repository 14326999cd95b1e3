// The fixed overhead of every model request: the default instructions plus the tool schemas
// offered, as the chat-completions client serializes them (issue 12). Not a timing: a size,
// printed as chars/4 of the JSON and as cl100k tokens, for the whole set and for a meeting
// without projects or past summaries. Limits: 1,800 and 1,100 (chars/4).
import { dist } from './_lib.mjs';

const { requestOverhead } = await dist('agent/overhead.js');
const { buildInstructions } = await dist('agent/prompt.js');
const { offeredTools } = await dist('tools/offer.js');
const { summaryShapeSection } = await dist('agent/summary-shape.js');
// The built-in summary structure with a named language: the longest shape without a template.
const shape = summaryShapeSection({ language: { value: 'pt-BR', source: 'meeting' }, taskFormat: 'dataview' });

const cases = [
  ['all nineteen tools', { projects: true, past: true, identities: true }, 1800],
  ['no projects, no past summaries', { projects: false, past: false, identities: true }, 1100],
  ['no projects, no past summaries, no identities', { projects: false, past: false, identities: false }, 1100],
];
let ok = true;
for (const [label, offer, limit] of cases) {
  const tools = offeredTools(offer).map(({ name, description, parameters }) => ({ name, description, parameters }));
  const o = requestOverhead(buildInstructions('', [], { projectTools: offer.projects || offer.past, shape }), tools);
  const met = o.charsPerFour <= limit;
  ok &&= met;
  console.log(
    `overhead, ${label} (${tools.length} tools): ${o.charsPerFour} tokens chars/4, ${o.cl100k} cl100k target ≤ ${limit} — ${met ? 'ok' : 'MISSED'}`,
  );
}
process.exitCode = ok ? 0 : 1;

// Hostile sizes (issue #24 point 8): a frontmatter edit of notes with 1,000 and 10,000 keys
// (was quadratic: 1 s an edit at 10,000 keys, blocking the HTTP API), and the token count of a
// 6,000,000-character line without a space (overflowed the stack before).
import { dist, report, runs, stats, timeRuns } from './_lib.mjs';

const { updateFrontmatter } = await dist('vault/format/frontmatter.js');
const { countTokens } = await dist('agent/window/tokens.js');

const ms = (v) => `${v.toFixed(1)} ms`;
const note = (n) => `---\n${Array.from({ length: n }, (_, i) => `key_${i}: "value ${i}: x" # note`).join('\n')}\n---\nbody\n`;

let allOk = true;
const medians = {};
for (const n of [1_000, 10_000]) {
  const text = note(n);
  const s = stats(await timeRuns(() => updateFrontmatter(text, { state: 'finished', key_5: 'changed' }), { n: runs(n === 1_000 ? 20 : 7), warmup: 2 }));
  medians[n] = s.median;
  // Linear: 10× the keys costs about 10× the time (quadratic was 100×: 4.4 s at 10,000 keys
  // before, most of it the YAML library comparing every key with every other). What is left
  // is the library's own parse, about 0.2 s for 10,000 keys on an idle machine.
  const target = n === 10_000 ? { text: '< 20× the 1,000-key edit and < 1.5 s', ok: s.median < 1500 && s.median < 20 * medians[1_000] } : undefined;
  allOk = report(`frontmatter edit, ${n.toLocaleString('en')} keys`, s, { unit: ms, ...(target && { target }) }) && allOk;
}
console.log(`ratio 10,000 / 1,000 keys: ${(medians[10_000] / medians[1_000]).toFixed(1)}× (linear ≈ 10×, quadratic ≈ 100×)`);

const line = 'ab1-'.repeat(1_500_000);
const s = stats(await timeRuns(() => countTokens(`${line}${Math.random()}`), { n: runs(3), warmup: 1 }));
allOk = report('token count of a 6,000,000-character line without a space', s, { unit: ms, target: { text: '< 5 s, no stack overflow', ok: s.median < 5000 } }) && allOk;

process.exitCode = allOk ? 0 : 1;

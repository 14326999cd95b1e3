// What `npm run test:stress` reads from vitest's JSON reports and says at the end.
import path from 'node:path';

/**
 * Each failure of one run, named `file > describe > test`; a file that failed outside any
 * test (its import, a hook) by the file and its message's first line; a run that ended without
 * a report, or with a non-zero exit and no failure in it, as the run itself.
 */
export function failuresOf(report, exitCode, root) {
  const names = [];
  for (const file of report?.testResults ?? []) {
    const rel = path.relative(root, file.name);
    const failed = (file.assertionResults ?? []).filter((t) => t.status === 'failed');
    for (const t of failed) names.push([rel, ...(t.ancestorTitles ?? []), t.title].join(' > '));
    if (failed.length === 0 && file.status === 'failed') names.push(`${rel} (the file: ${firstLine(file.message)})`);
  }
  if (names.length === 0 && exitCode !== 0) {
    names.push(report ? `the run (exit code ${exitCode ?? 'none: killed'}, no test failed: an unhandled error, see the run's output)` : `the run (exit code ${exitCode ?? 'none: killed'}, no report)`);
  }
  return [...new Set(names)];
}

function firstLine(text) {
  return String(text || 'failed').split('\n')[0].slice(0, 160);
}

/** The closing lines: runs passed, the suite's times, each failing test with how many runs it failed in. */
export function summary(results, load) {
  const runs = results.length;
  const failedRuns = results.filter((r) => r.failures.length > 0).length;
  const times = results.map((r) => r.ms).sort((a, b) => a - b);
  const s = (ms) => `${Math.round(ms / 1000)} s`;
  const median = runs === 0 ? 0 : (times[Math.floor((runs - 1) / 2)] + times[Math.floor(runs / 2)]) / 2;
  const lines = [
    `test:stress: ${runs - failedRuns} of ${runs} run(s) passed beside ${load} busy loop(s); ` +
      `suite ${s(times[0] ?? 0)}–${s(times.at(-1) ?? 0)}, median ${s(median)}`,
  ];
  const counts = new Map();
  for (const r of results) for (const name of r.failures) counts.set(name, (counts.get(name) ?? 0) + 1);
  for (const [name, count] of [...counts].sort((a, b) => b[1] - a[1] || a[0].localeCompare(b[0]))) {
    lines.push(`  failed in ${count} of ${runs}: ${name}`);
  }
  return lines;
}

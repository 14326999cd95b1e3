import { execFile } from 'node:child_process';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';

const REPO = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const leanCode = pathToFileURL(path.join(REPO, 'dist', 'daemon', 'lean-code.js')).href;

/**
 * docs/design.md §8: the daemon's own process runs without the optimizing compilers, the run
 * process with them. Checked in processes of their own (a flag is for the process's life): a
 * hot function, and one V8 is told to optimize, are optimized (V8's status bit 4), unless the
 * daemon's setting was made first; then the hot one still gets baseline code (bit 15).
 */
async function status(argv: string[] | undefined): Promise<{ hot: number; told: number; lean?: boolean }> {
  const script = `
    const { leanIfDaemon } = await import(${JSON.stringify(leanCode)});
    const lean = ${argv ? `leanIfDaemon(${JSON.stringify(argv)})` : 'undefined'};
    function hot(x) { return x * 2 + 1; }
    let sum = 0;
    for (let i = 0; i < 5e6; i++) sum += hot(i);
    function told(x) { return x * 3 + 1; }
    %PrepareFunctionForOptimization(told); told(1); told(2); %OptimizeFunctionOnNextCall(told); told(3);
    console.log(JSON.stringify({ hot: %GetOptimizationStatus(hot), told: %GetOptimizationStatus(told), lean, sum }));
  `;
  const { stdout } = await promisify(execFile)(process.execPath, ['--allow-natives-syntax', '--input-type=module', '-e', script]);
  return JSON.parse(stdout.trim()) as { hot: number; told: number; lean?: boolean };
}

const OPTIMIZED = 1 << 4;
const BASELINE = 1 << 15;

describe('the daemon’s own process without the optimizing compilers', () => {
  it('optimizes nothing once set, and runs hot code as baseline code; a process without the setting (the run process) optimizes', async () => {
    const usual = await status(undefined);
    expect(usual.hot & OPTIMIZED).toBe(OPTIMIZED);
    expect(usual.told & OPTIMIZED).toBe(OPTIMIZED);
    const lean = await status(['/usr/bin/node', '/usr/lib/meeting-assistant/bin/meeting-assistant.js', 'run', '--config', 'c.json']);
    expect(lean.lean).toBe(true);
    expect(lean.hot & OPTIMIZED).toBe(0);
    expect(lean.told & OPTIMIZED).toBe(0);
    expect(lean.hot & BASELINE).toBe(BASELINE);
  });

  it('is only for run: every other command (and a run named elsewhere than the command’s place) keeps the compilers', async () => {
    for (const argv of [
      ['node', 'meeting-assistant.js', 'doctor', '--config', 'run'],
      ['node', 'meeting-assistant.js', 'mcp'],
      ['node', 'meeting-assistant.js', 'summarize', 'run'],
      ['node', 'meeting-assistant.js'],
    ]) {
      const s = await status(argv);
      expect(s.lean, argv.join(' ')).toBe(false);
      expect(s.hot & OPTIMIZED, argv.join(' ')).toBe(OPTIMIZED);
    }
  });
});

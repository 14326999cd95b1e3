import { execFile } from 'node:child_process';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';

const REPO = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../..');
const leanCode = pathToFileURL(path.join(REPO, 'dist', 'daemon', 'runs', 'lean-code.js')).href;

/**
 * docs/design.md §8: the daemon's own process runs without the optimizing compiler, the run
 * process with it. Checked in processes of their own (a flag is for the process's life): a
 * function V8 is told to optimize is optimized, unless the daemon's setting was made first.
 */
async function optimized(lean: boolean): Promise<boolean> {
  const script = `
    if (${lean}) (await import(${JSON.stringify(leanCode)})).withoutOptimizingCompiler();
    function f(x) { return x * 2 + 1; }
    %PrepareFunctionForOptimization(f); f(1); f(2); %OptimizeFunctionOnNextCall(f); f(3);
    console.log((%GetOptimizationStatus(f) & 16) !== 0);
  `;
  const { stdout } = await promisify(execFile)(process.execPath, ['--allow-natives-syntax', '--input-type=module', '-e', script]);
  return stdout.trim() === 'true';
}

describe('the daemon’s own process without the optimizing compiler', () => {
  it('optimizes nothing once set; a process without the setting (the run process) does', async () => {
    expect(await optimized(false)).toBe(true);
    expect(await optimized(true)).toBe(false);
  });
});

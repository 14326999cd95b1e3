import { spawn } from 'node:child_process';
import { afterEach, describe, expect, it } from 'vitest';
import { BIN, REPO_ROOT, makeTempSetup, waitFor, type TempSetup } from '../helpers/daemon-process.js';

/**
 * docs/design.md §8: `meeting-assistant run`'s own process optimizes nothing from its first
 * line on (node's module loader alone would have TurboFan optimize its path functions, which
 * maps the compiler's code into the process for good), and other commands keep every compiler.
 * V8's --trace-opt prints a line for each function it optimizes.
 */

let setup: TempSetup | undefined;
afterEach(() => setup?.cleanup());

/** stdout and stderr of `node --trace-opt bin/meeting-assistant.js <args>` until `done` holds or it exits, then SIGTERM. */
async function traced(args: string[], done: (out: string) => boolean): Promise<string> {
  const child = spawn(process.execPath, ['--trace-opt', BIN, ...args], { cwd: REPO_ROOT, stdio: ['ignore', 'pipe', 'pipe'] });
  let out = '';
  let exited = false;
  const exit = new Promise<void>((resolve) => child.on('exit', () => ((exited = true), resolve())));
  child.stdout.on('data', (d: Buffer) => (out += d.toString()));
  child.stderr.on('data', (d: Buffer) => (out += d.toString()));
  try {
    await waitFor(() => exited || done(out), `${args[0]} to get on`, 30_000);
  } finally {
    if (!exited) child.kill('SIGTERM');
    await exit;
  }
  return out;
}

const optimized = (out: string) => out.split('\n').filter((l) => l.startsWith('[completed optimizing'));

describe('the daemon’s own process without the optimizing compilers', () => {
  it('optimizes no function through its start and a catch-up scan; doctor, another command, does', async () => {
    setup = makeTempSetup({ Endpoint: { BaseUrl: 'http://127.0.0.1:9/v1', Model: 'm' }, Http: { Enabled: false } });
    for (let i = 0; i < 300; i++) {
      setup.write(`Meetings/Transcripts/2026-11-${String((i % 28) + 1).padStart(2, '0')} Meeting ${i}.md`, `---\nstate: transcribing\nmeeting: "[[Meeting ${i}]]"\n---\nA: hello ${i}\n`);
    }
    const daemon = await traced(['run', '--config', setup.configPath], (out) => out.includes('catch-up scan'));
    expect(daemon).toContain('"checked":300');
    expect(optimized(daemon)).toEqual([]);
    const doctor = await traced(['doctor', '--config', setup.configPath], () => false);
    expect(optimized(doctor).length).toBeGreaterThan(0);
});
});

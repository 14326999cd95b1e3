import { spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { processIsAlive } from '../../src/instance/liveness.js';
import { waitFor } from '../helpers/daemon-process.js';

/**
 * processIsAlive decides whether a temporary file's writer or a vault's claim is gone. A run
 * process killed with its daemon is left to an init that may collect it late: until then it
 * is a zombie, which has ended all the same.
 */
describe('processIsAlive', () => {
  it('is true for this process and false for a pid nobody has', () => {
    expect(processIsAlive(process.pid)).toBe(true);
    expect(processIsAlive(2 ** 22 + 12345)).toBe(false);
  });

  it.runIf(process.platform === 'linux')('is false for a zombie: a process that ended and whose parent has not collected it', async () => {
    // `sleep 0` ends at once; its parent becomes `sleep 5` by exec and never collects it.
    const parent = spawn('sh', ['-c', 'sleep 0 & echo $!; exec sleep 5'], { stdio: ['ignore', 'pipe', 'ignore'] });
    try {
      const pid = Number(await new Promise<string>((resolve) => parent.stdout.once('data', (d: Buffer) => resolve(d.toString().trim()))));
      await waitFor(() => / Z /.test(readFileSync(`/proc/${pid}/stat`, 'utf8').split(')').pop() ?? ''), 'the child to be a zombie');
      expect(() => process.kill(pid, 0)).not.toThrow();
      expect(processIsAlive(pid)).toBe(false);
    } finally {
      parent.kill('SIGKILL');
    }
  });
});

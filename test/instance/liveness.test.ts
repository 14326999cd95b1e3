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
    // The child ends once its parent has become `sleep` by exec, which never collects it. (A
    // child that ended at once was collected by the shell itself when it came first, under load.)
    const script = 'p=$$; (while [ "$(cat /proc/$p/comm)" != sleep ]; do sleep 0.05; done) & echo $!; exec sleep 30';
    const parent = spawn('sh', ['-c', script], { stdio: ['ignore', 'pipe', 'ignore'] });
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

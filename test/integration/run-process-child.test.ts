import { type ChildProcess, fork } from 'node:child_process';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import type { AppConfig } from '../../src/config.js';
import { systemClock } from '../../src/clock.js';
import type { RunChild } from '../../src/daemon/runs/run-process/child-process.js';
import type { FromRunProcess, ToRunProcess } from '../../src/daemon/runs/run-process/messages.js';
import { runsInRunProcess } from '../../src/daemon/runs/run-process/host.js';
import { capturedLogger } from '../helpers/captured-log.js';
import { REPO_ROOT } from '../helpers/daemon-process.js';
import { memoryFs, testConfig } from '../helpers/memfs.js';

/**
 * The real run process (dist/, built by the global setup) under the daemon's side of the
 * channel, without a daemon around it: what becomes of a child that cannot do its work.
 */

const CHILD = path.join(REPO_ROOT, 'dist/daemon/runs/run-process/child.js');

function spawnBuiltChild(): RunChild {
  return fork(CHILD, [], { serialization: 'advanced', stdio: ['ignore', 'pipe', 'pipe', 'ipc'] });
}

describe('the run process that cannot start', () => {
  it('says why before it exits: the daemon logs it as an error and the run fails with it (not only "exited with code 1" and a line on a stderr nobody reads)', async () => {
    const config = testConfig({ Http: { Enabled: false } });
    // What the daemon's own process never reads, and the run process needs first.
    const unusable = { ...config, settings: { ...config.settings, Logging: undefined } } as unknown as AppConfig;
    const { log, lines } = capturedLogger('debug');
    const place = await runsInRunProcess(unusable, { log, clock: systemClock, fs: memoryFs(), caches: {}, spawn: spawnBuiltChild });
    const outcome = await place.runs.summarize({ onProgress: () => undefined }, '/vault/Meetings/A.md', {});
    await place.close();
    expect(outcome.status).toBe('failed');
    expect(outcome.error).toMatch(/^the run process failed \(could not start: .*Level.*\) before the run ended$/);
    const said = lines.find((l) => typeof l.msg === 'string' && l.msg.startsWith('the run process failed: could not start: '));
    expect(said).toMatchObject({ level: 'error' });
    // Said once: the job that waited for the start is not a second fault.
    expect(lines.filter((l) => typeof l.msg === 'string' && l.msg.startsWith('the run process failed'))).toHaveLength(1);
    expect(String(said?.stack)).toContain('child.js');
  });

  it('an error nothing caught in the run process is told to the daemon before the process exits', async () => {
    const child: ChildProcess = fork(CHILD, [], { serialization: 'advanced', stdio: ['ignore', 'pipe', 'pipe', 'ipc'] });
    const said: FromRunProcess[] = [];
    child.on('message', (m: FromRunProcess) => said.push(m));
    const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
    const send = (m: ToRunProcess) => child.send(m);
    send({ type: 'start', config: testConfig({ Http: { Enabled: false, Token: 'test-token-123' } }), trust: undefined });
    // A trust the daemon would never send: the child's handler throws, outside any run.
    send({ type: 'trust', trust: { folders: 5 as unknown as string[] } });
    expect(await exited).toBe(1);
    const failed = said.find((m): m is Extract<FromRunProcess, { type: 'failed' }> => m.type === 'failed');
    expect(failed?.message).toMatch(/^an error nothing caught: /);
    expect(failed?.stack).toContain('child.js');
  });
});

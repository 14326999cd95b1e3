import { describe, expect, it } from 'vitest';
import { claimVault, DaemonRunningError, instanceFile, liveDaemon } from '../../src/daemon/instance.js';
import { memoryVault } from '../helpers/memfs.js';

/** One daemon per vault: `.meeting-assistant/daemon.json`, stale when its process is gone. */

const DEAD_PID = 2 ** 22 + 12345; // above Linux's pid_max: no such process

describe('claimVault', () => {
  it('claims a free vault, records the HTTP address, and removes the file at release', async () => {
    const vault = memoryVault();
    const lock = await claimVault(vault, () => new Date('2026-11-30T10:00:00Z'));
    await lock.setHttp('http://127.0.0.1:4777');
    expect(await liveDaemon(vault)).toEqual({ pid: process.pid, startedAt: '2026-11-30T10:00:00.000Z', http: 'http://127.0.0.1:4777' });
    await lock.release();
    expect(await vault.exists(instanceFile(vault))).toBe(false);
    expect(await liveDaemon(vault)).toBeUndefined();
  });

  it('refuses while another live process holds the vault, naming its pid and address', async () => {
    const vault = memoryVault();
    const holder = { pid: process.ppid, startedAt: '2026-11-30T09:00:00.000Z', http: 'http://127.0.0.1:4888' };
    await vault.fs.mkdir(`${vault.root}/.meeting-assistant`, { recursive: true });
    await vault.fs.writeFile(instanceFile(vault), JSON.stringify(holder));
    const err = await claimVault(vault).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(DaemonRunningError);
    expect((err as Error).message).toBe(
      `another daemon already runs on the vault /vault: pid ${process.ppid}, HTTP http://127.0.0.1:4888 (since 2026-11-30T09:00:00.000Z); stop it first, or give this one another vault`,
    );
    expect(await liveDaemon(vault)).toEqual(holder);
  });

  it('takes over a file left by a process that is gone, or one that does not parse', async () => {
    for (const left of [JSON.stringify({ pid: DEAD_PID, startedAt: 'x' }), '{ half written']) {
      const vault = memoryVault();
      await vault.fs.mkdir(`${vault.root}/.meeting-assistant`, { recursive: true });
      await vault.fs.writeFile(instanceFile(vault), left);
      expect(await liveDaemon(vault)).toBeUndefined();
      const lock = await claimVault(vault);
      expect((await liveDaemon(vault))?.pid).toBe(process.pid);
      await lock.release();
    }
  });
});

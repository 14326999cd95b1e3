import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import type { HolderProbe } from '../../src/instance/liveness.js';
import { isMeetingAssistantCommand } from '../../src/instance/liveness.js';
import { claimVault, DaemonRunningError, instanceFile, liveDaemon } from '../../src/instance/daemon-claim.js';
import { nodeFs } from '../../src/vault/files/fs.js';
import { daemonRecordPath, ensureRuntimeFolder, RuntimeFolderError } from '../../src/instance/runtime-folder.js';
import { Vault } from '../../src/vault/files/vault.js';
import { memoryVault, testConfig } from '../helpers/memfs.js';

/**
 * One daemon per vault on a machine: its record in this user's runtime folder (outside the
 * vault), stale when its process is gone.
 */

const ENV = { XDG_RUNTIME_DIR: '/run/user/test' };

/** A record in the runtime folder, as a daemon (or something left behind) wrote it. */
async function writeLocal(vault: Vault, text: string, env: NodeJS.ProcessEnv = process.env): Promise<void> {
  await ensureRuntimeFolder(vault.fs, env);
  await vault.fs.writeFile(await daemonRecordPath(vault, env), text);
}

const DEAD_PID = 2 ** 22 + 12345; // above Linux's pid_max: no such process

describe('claimVault', () => {
  it('claims a free vault, records the HTTP address, and removes the file at release', async () => {
    const vault = memoryVault();
    const lock = await claimVault(vault, { clock: () => new Date('2026-11-30T10:00:00Z') });
    await lock.setHttp('http://127.0.0.1:4777');
    expect(await liveDaemon(vault)).toEqual({ pid: process.pid, startedAt: '2026-11-30T10:00:00.000Z', http: 'http://127.0.0.1:4777' });
    await lock.release();
    expect(await vault.exists(instanceFile(vault))).toBe(false);
    expect(await vault.exists(await daemonRecordPath(vault, process.env))).toBe(false);
    expect(await liveDaemon(vault)).toBeUndefined();
  });

  it('refuses while another live process holds the vault, naming its pid and address', async () => {
    const vault = memoryVault();
    // The parent process stands in for a daemon whose HTTP API does not answer: its command line says so.
    const daemonProbe: HolderProbe = {
      isAlive: () => true,
      commandLine: async () => ({ argv: ['node', '/usr/lib/node_modules/meeting-assistant/bin/meeting-assistant.js', 'run'] }),
      answers: async () => false,
    };
    const holder = { pid: process.ppid, startedAt: '2026-11-30T09:00:00.000Z', http: 'http://127.0.0.1:4888' };
    await writeLocal(vault, JSON.stringify({ vault: vault.root, ...holder }));
    const err = await claimVault(vault, { probe: daemonProbe }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(DaemonRunningError);
    expect((err as Error).message).toBe(
      `another daemon already runs on the vault /vault: pid ${process.ppid}, HTTP http://127.0.0.1:4888 (since 2026-11-30T09:00:00.000Z); stop it first, or give this one another vault`,
    );
    expect(await liveDaemon(vault, { probe: daemonProbe })).toEqual(holder);
  });

  it("a record in the vault naming this machine (a sync tool's copy, a forgery) is not where its daemon is, and does not refuse a claim (issue #43 point 2)", async () => {
    const everyoneAlive: HolderProbe = { isAlive: () => true, commandLine: async () => undefined, answers: async () => true };
    const vault = memoryVault();
    const forged = { machine: 'this-machine', role: 'active', pid: 1, startedAt: 'then', http: 'http://127.0.0.1:18999', beatAt: new Date().toISOString(), heartbeatMs: 30_000 };
    for (const file of [instanceFile(vault), path.join(vault.root, '.meeting-assistant', 'daemon.json')]) {
      await vault.fs.mkdir(path.dirname(file), { recursive: true });
      await vault.fs.writeFile(file, JSON.stringify(forged));
    }
    expect(await liveDaemon(vault, { probe: everyoneAlive })).toBeUndefined();
    const lock = await claimVault(vault, { probe: everyoneAlive });
    await lock.setHttp('http://127.0.0.1:4777');
    expect((await liveDaemon(vault, { probe: everyoneAlive }))?.http).toBe('http://127.0.0.1:4777');
    // The vault's record says nothing of the address: the other machines have no use for it.
    expect(await vault.read(instanceFile(vault))).not.toContain('4777');
    await lock.release();
  });

  it('the local record is private: mode 0600 in a folder of mode 0700; a folder others may write is refused, not used', async () => {
    const vault = memoryVault();
    const lock = await claimVault(vault, { env: ENV });
    const file = await daemonRecordPath(vault, ENV);
    expect((await vault.fs.stat(file)).mode & 0o777).toBe(0o600);
    expect((await vault.fs.stat(path.dirname(file))).mode & 0o777).toBe(0o700);
    await lock.release();
    await vault.fs.chmod(path.dirname(file), 0o777);
    await expect(claimVault(vault, { env: ENV })).rejects.toBeInstanceOf(RuntimeFolderError);
    await expect(liveDaemon(vault, { env: ENV })).rejects.toThrow(/others may read or write it/);
  });

  it('takes over a file left by a process that is gone, or one that does not parse', async () => {
    for (const left of [JSON.stringify({ pid: DEAD_PID, startedAt: 'x' }), '{ half written']) {
      const vault = memoryVault();
      await writeLocal(vault, left);
      expect(await liveDaemon(vault)).toBeUndefined();
      const lock = await claimVault(vault);
      expect((await liveDaemon(vault))?.pid).toBe(process.pid);
      await lock.release();
    }
  });
});

/** A record left behind: its pid now this process, or a live process that is no daemon. */
describe('a leftover record whose pid lives on', () => {
  const leftover = (vault: Vault, holder: Record<string, unknown>) => writeLocal(vault, JSON.stringify({ vault: vault.root, ...holder }));
  const probe = (p: Partial<HolderProbe>): HolderProbe => ({ isAlive: () => true, commandLine: async () => undefined, answers: async () => false, ...p });

  it('naming this very process (pid 1 in a container after a restart) is stale: the daemon starts instead of refusing itself', async () => {
    const vault = memoryVault();
    await leftover(vault, { pid: process.pid, startedAt: 'before the restart', http: 'http://127.0.0.1:1' });
    expect(await liveDaemon(vault)).toBeUndefined();
    const lock = await claimVault(vault);
    expect((await liveDaemon(vault))?.pid).toBe(process.pid);
    // A second claim in this process sees the first one's claim as running.
    await expect(claimVault(vault)).rejects.toBeInstanceOf(DaemonRunningError);
    await lock.release();
  });

  it('a live pid whose command line is no meeting-assistant is stale; its recorded address answering, or a command line that cannot be read, counts as running', async () => {
    const holder = { pid: 4242, startedAt: 'then', http: 'http://127.0.0.1:4888' };
    const cases: Array<[string, HolderProbe, boolean]> = [
      ['init', probe({ commandLine: async () => ({ argv: ['/sbin/init'] }) }), false],
      ['a shell', probe({ commandLine: async () => ({ argv: ['bash', '-l'], cwd: '/root' }) }), false],
      ['the daemon, HTTP answering', probe({ answers: async (url) => url === holder.http, commandLine: async () => ({ argv: ['/sbin/init'] }) }), true],
      ['the daemon by its bin', probe({ commandLine: async () => ({ argv: ['node', '/usr/local/bin/meeting-assistant', 'run'] }) }), true],
      ['the daemon by a relative path into this copy', probe({ commandLine: async () => ({ argv: ['node', 'dist/cli.js', 'run'], cwd: path.resolve(import.meta.dirname, '../..') }) }), true],
      ['unreadable (no /proc)', probe({}), true],
      ['gone', probe({ isAlive: () => false, answers: async () => true }), false],
    ];
    for (const [name, p, running] of cases) {
      const vault = memoryVault();
      await leftover(vault, holder);
      expect(await liveDaemon(vault, { probe: p }), name).toEqual(running ? holder : undefined);
      const claimed = await claimVault(vault, { probe: p }).then(
        async (lock) => (await lock.release(), 'claimed'),
        (e: unknown) => (e instanceof DaemonRunningError ? 'refused' : e),
      );
      expect(claimed, name).toBe(running ? 'refused' : 'claimed');
    }
  });

  it('what counts as a meeting-assistant command line', () => {
    expect(isMeetingAssistantCommand(['node', '/home/a/.npm-global/bin/meeting-assistant', 'run'])).toBe(true);
    expect(isMeetingAssistantCommand(['/usr/bin/node', '/usr/lib/node_modules/meeting-assistant/dist/cli.js', 'run'])).toBe(true);
    expect(isMeetingAssistantCommand(['node', path.resolve(import.meta.dirname, '../../bin/meeting-assistant.js')])).toBe(true);
    expect(isMeetingAssistantCommand(['node', path.resolve(import.meta.dirname, '../../node_modules/vitest/vitest.mjs')])).toBe(false);
    expect(isMeetingAssistantCommand(['node', 'dist/cli.js', 'run'])).toBe(false);
    expect(isMeetingAssistantCommand(['/sbin/init'])).toBe(false);
  });

  it.skipIf(!existsSync('/proc/self/cmdline'))('with /proc: a live unrelated process (this test runner\'s parent) is stale, a live meeting-assistant process is running', async () => {
    const vault = memoryVault();
    await leftover(vault, { pid: process.ppid, startedAt: 'then' });
    expect(await liveDaemon(vault)).toBeUndefined();
    // A stand-in whose command line names meeting-assistant.
    const child = spawn(process.execPath, ['-e', 'setInterval(() => {}, 1 << 30)', 'meeting-assistant', 'run'], { stdio: 'ignore' });
    try {
      await new Promise((resolve, reject) => child.once('spawn', resolve).once('error', reject));
      await leftover(vault, { pid: child.pid, startedAt: 'then' });
      expect((await liveDaemon(vault))?.pid).toBe(child.pid);
      await expect(claimVault(vault)).rejects.toBeInstanceOf(DaemonRunningError);
    } finally {
      child.kill();
    }
  });
});

describe('two daemons starting at once over a stale record', () => {
  const DEAD = { pid: DEAD_PID, startedAt: 'crashed' };
  const race = async (vault: Vault, claimants: number, env: NodeJS.ProcessEnv) => {
    await writeLocal(vault, JSON.stringify({ vault: await vault.fs.realpath(vault.root), ...DEAD }), env);
    const results = await Promise.allSettled(Array.from({ length: claimants }, () => claimVault(vault, { env })));
    const won = results.filter((r) => r.status === 'fulfilled');
    const refused = results.filter((r) => r.status === 'rejected' && r.reason instanceof DaemonRunningError);
    return { won, refused, results };
  };

  it('exactly one wins every time (40 trials of 4 claimants on a real folder, 40 on memfs), the others are refused naming it', async () => {
    const dir = mkdtempSync(path.join(os.tmpdir(), 'ma-claim-'));
    try {
      for (let trial = 0; trial < 80; trial++) {
        const real = trial % 2 === 0;
        const root = path.join(dir, `v${trial}`);
        const vault = real ? new Vault(nodeFs, testConfig({ VaultPath: root }).layout) : memoryVault();
        if (real) await nodeFs.mkdir(root, { recursive: true });
        const env = real ? { XDG_RUNTIME_DIR: path.join(dir, `run${trial}`) } : ENV;
        const { won, refused, results } = await race(vault, 4, env);
        expect(won.length, `trial ${trial}: ${results.map((r) => r.status).join(', ')}`).toBe(1);
        expect(refused.length, `trial ${trial}`).toBe(3);
        // The winner's claim is the file; its release removes it, leaving no takeover lock behind.
        await (won[0] as PromiseFulfilledResult<Awaited<ReturnType<typeof claimVault>>>).value.release();
        expect(await vault.fs.readdir(path.dirname(await daemonRecordPath(vault, env)), { withFileTypes: true })).toEqual([]);
        expect(await vault.fs.readdir(path.dirname(instanceFile(vault)), { withFileTypes: true })).toEqual([]);
      }
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

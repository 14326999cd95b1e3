import { describe, expect, it } from 'vitest';
import { cliRunOf, markCliRun } from '../../src/instance/cli-run-marker.js';
import type { HolderProbe } from '../../src/instance/liveness.js';
import { memoryVault } from '../helpers/memfs.js';
import { cliRunsFolder, runtimeFolder } from '../../src/instance/runtime-folder.js';
import path from 'node:path';

/** The markers of command-line runs (docs/design.md §2), on memfs with the process checks stood in. */

const MEETING = 'Meetings/Sync.md';
/** In this user's runtime folder, outside the vault (the process's environment decides where). */
const FOLDER = cliRunsFolder(runtimeFolder(process.env), '/vault');
const markers = async (vault: ReturnType<typeof memoryVault>) => (await vault.fs.readdir(FOLDER, { withFileTypes: true })).map((e) => e.name);
/** The marker as another process (pid 424242) would have left it. */
const leftBy424242 = async (vault: ReturnType<typeof memoryVault>) => {
  const [name] = await markers(vault);
  await vault.fs.writeFile(path.join(FOLDER, name!), JSON.stringify({ pid: 424242, command: 'retry', meeting: MEETING, startedAt: 'then' }));
};
const clock = () => new Date('2026-11-30T09:00:00Z');
const probe = (alive: boolean, argv = ['node', '/usr/lib/node_modules/meeting-assistant/bin/meeting-assistant.js', 'summarize']): HolderProbe => ({
  isAlive: () => alive,
  commandLine: async () => ({ argv }),
  answers: async () => false,
});

describe('command-line run markers', () => {
  it('a marker of a live meeting-assistant names its pid; its own process releases it', async () => {
    const vault = memoryVault({ [MEETING]: '# Sync\n' });
    const key = vault.abs(MEETING);
    const marker = await markCliRun(vault, key, 'retry', clock);
    // Its own marker is no other run (a daemon never shares a pid with the command).
    expect(await cliRunOf(vault, key, probe(true))).toBeUndefined();
    await markCliRun(vault, key, 'retry', clock);
    await leftBy424242(vault);
    expect(await cliRunOf(vault, key, probe(true))).toEqual({ pid: 424242, command: 'retry' });
    // Released by its owner only: the file now names another pid and stays.
    await marker.release();
    expect(await cliRunOf(vault, key, probe(true))).toEqual({ pid: 424242, command: 'retry' });
  });

  it('a marker whose process is gone, or is no meeting-assistant (a reused pid), is stale and removed', async () => {
    const vault = memoryVault({ [MEETING]: '# Sync\n' });
    const key = vault.abs(MEETING);
    for (const stale of [probe(false), probe(true, ['/usr/sbin/nginx'])]) {
      await markCliRun(vault, key, 'retry', clock);
      await leftBy424242(vault);
      expect(await cliRunOf(vault, key, stale)).toBeUndefined();
      expect(await markers(vault)).toEqual([]);
    }
  });

  it('a marker in the vault (a sync tool carried it from another machine, or it is forged) holds no meeting back: it is not looked at', async () => {
    const vault = memoryVault({ [MEETING]: '# Sync\n' });
    const key = vault.abs(MEETING);
    const marker = await markCliRun(vault, key, 'retry', clock);
    const [name] = await markers(vault);
    await marker.release();
    await vault.fs.mkdir(vault.abs('.meeting-assistant/cli-runs'), { recursive: true });
    await vault.fs.writeFile(vault.abs(`.meeting-assistant/cli-runs/${name}`), JSON.stringify({ pid: 424242, command: 'summarize', meeting: MEETING, startedAt: 'then' }));
    expect(await cliRunOf(vault, key, probe(true))).toBeUndefined();
  });
});

import { describe, expect, it, onTestFinished } from 'vitest';
import { CliError, EXIT_FAILED } from '../../src/commands/common.js';
import { importFiles } from '../../src/commands/import.js';
import { status } from '../../src/commands/status.js';
import { retry, summarize } from '../../src/commands/summarize.js';
import { walkFiles } from '../../src/vault/files/fs.js';
import { VaultClaim } from '../../src/instance/vault-claim.js';
import { silentLogger } from '../../src/log.js';
import { Vault } from '../../src/vault/files/vault.js';
import { memoryFs, testConfig } from '../helpers/memfs.js';
import { memoryIo } from '../helpers/memory-io.js';

/**
 * The commands on a machine that does not run a shared vault (docs/design.md §2, two machines):
 * another machine's daemon is active, with a fresh heartbeat, so `summarize`, `retry` and
 * `import` refuse naming it, and `status` says it is the active one.
 */

const NOW = new Date('2026-12-02T10:00:00Z');
const ENV = { XDG_RUNTIME_DIR: '/run/user/test' };

function setup(beatAgoMs: number) {
  const io = memoryIo();
  const desktop = { machine: 'desktop', role: 'active', beatAt: new Date(NOW.getTime() - beatAgoMs).toISOString(), heartbeatMs: 30_000, pid: 4242, startedAt: 'then' };
  const fs = memoryFs({
    '/work/config.json': JSON.stringify({ MeetingAssistant: { VaultPath: '/vault', Http: { Token: 'secret' }, Daemon: { MachineName: 'laptop' } } }),
    '/work/call.vtt': 'WEBVTT\n\n00:00:01.000 --> 00:00:02.000\nHello.\n',
    '.meeting-assistant/machines/desktop.json': JSON.stringify(desktop),
    'Meetings/Standup.md': '---\ntitle: Standup\ntranscript: "[[Meetings/Transcripts/Standup]]"\n---\n',
    'Meetings/Transcripts/Standup.md': '---\nmeeting: "[[Meetings/Standup]]"\nstate: finished\n---\n',
    'Meetings/Summaries/Standup.md': '---\nmeeting: "[[Meetings/Standup]]"\nstatus: failed\n---\n',
  });
  return { io, fs, deps: { io, fs, env: ENV, cwd: '/work', clock: () => NOW } };
}

describe('another machine runs the vault', () => {
  it('summarize, retry and import refuse with exit 1, naming it, and write nothing', async () => {
    for (const command of [
      (d: ReturnType<typeof setup>['deps']) => summarize('Meetings/Standup.md', {}, d),
      (d: ReturnType<typeof setup>['deps']) => retry('Meetings/Summaries/Standup.md', {}, d),
      (d: ReturnType<typeof setup>['deps']) => importFiles(['call.vtt'], {}, d),
    ]) {
      const { deps, fs } = setup(20_000);
      const err = await command(deps).catch((e: unknown) => e);
      expect(err).toBeInstanceOf(CliError);
      expect((err as CliError).exitCode).toBe(EXIT_FAILED);
      expect((err as Error).message).toMatch(/^machine desktop runs this vault \(its daemon's last heartbeat 20 s ago\)/);
      const state: string[] = [];
      await walkFiles(fs, '/vault/.meeting-assistant', {}, (f) => void state.push(f.rel));
      expect(state).toEqual(['machines/desktop.json']);
    }
  });

  it('status says which machine is active', async () => {
    const { io, deps } = setup(20_000);
    expect(await status({}, deps)).toBe(0);
    expect(io.text()).toContain('daemon: not running on this machine (laptop); machine desktop is active on this vault (last heartbeat 20 s ago)');
  });

  it('a machine silent for 6 of its heartbeats runs nothing: the command runs here as on a vault of its own', async () => {
    const { io, deps } = setup(6 * 30_000);
    expect(await status({}, deps)).toBe(0);
    expect(io.text()).toContain('daemon: not running (no daemon runs on this vault)');
  });
});

describe('the daemon here is a standby', () => {
  it("summarize and retry refuse even when the active machine's last beat looks old by this clock (its clock behind, a slow sync)", async () => {
    for (const command of [
      (d: ReturnType<typeof setup>['deps']) => summarize('Meetings/Standup.md', {}, d),
      (d: ReturnType<typeof setup>['deps']) => retry('Meetings/Summaries/Standup.md', {}, d),
    ]) {
      const { deps, fs } = setup(20_000);
      // The laptop's daemon, in this process: it saw desktop's beat change, so it is its standby.
      const claim = await VaultClaim.claim(new Vault(fs, testConfig().layout), { machine: 'laptop', heartbeatMs: 30_000, clock: () => NOW, log: silentLogger, env: ENV });
      onTestFinished(() => claim.release());
      expect(claim.role).toBe('standby');
      // By this machine's clock, desktop's last beat is now ten minutes old.
      const later = { ...deps, clock: () => new Date(NOW.getTime() + 10 * 60_000) };
      const err = await command(later).catch((e: unknown) => e);
      expect(err).toBeInstanceOf(CliError);
      expect((err as CliError).exitCode).toBe(EXIT_FAILED);
      expect((err as Error).message).toContain('the daemon here');
    }
  });
});

describe('the daemon here waits at its first start on a vault that looks shared', () => {
  it('status says why it waits: the sync tool marker it found', async () => {
    const io = memoryIo();
    const fs = memoryFs({ '/work/config.json': JSON.stringify({ MeetingAssistant: { VaultPath: '/vault', Http: { Token: 'secret' }, Daemon: { MachineName: 'laptop' } } }), '.stfolder/.keep': '' });
    const claim = await VaultClaim.claim(new Vault(fs, testConfig().layout), { machine: 'laptop', heartbeatMs: 30_000, clock: () => NOW, log: silentLogger, env: ENV, looksShared: async () => 'Syncthing shares it (/vault/.stfolder)' });
    onTestFinished(() => claim.release());
    expect(claim.role).toBe('candidate');
    expect(await status({}, { io, fs, env: ENV, cwd: '/work', clock: () => NOW })).toBe(0);
    expect(io.text()).toMatch(/daemon: candidate on this machine \(laptop\), pid \d+, since .*: no machine has run this vault yet, but it looks shared \(Syncthing shares it \(\/vault\/\.stfolder\)\); it waits 2 heartbeats/);
  });
});

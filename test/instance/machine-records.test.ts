import { mkdtempSync, rmSync, truncateSync, writeFileSync, mkdirSync, statSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { describe, expect, it, onTestFinished } from 'vitest';
import { instanceFile, machinesFolder } from '../../src/instance/daemon-claim.js';
import { machinesNow, runsElsewhere } from '../../src/instance/machines-now.js';
import { readSmallText, MAX_RECORD_BYTES } from '../../src/instance/small-file.js';
import { VaultClaim } from '../../src/instance/vault-claim.js';
import { type Fs, nodeFs } from '../../src/vault/files/fs.js';
import { Vault } from '../../src/vault/files/vault.js';
import { capturedLogger } from '../helpers/captured-log.js';
import { memoryVault, testConfig } from '../helpers/memfs.js';

/**
 * Other machines' records judged within sane bounds (docs/design.md §2; issue #43 points 3
 * and 4): a heartbeat between 10 ms and an hour, a beat not ahead of this clock by more than
 * ten minutes, a file of at most 64 KiB, read with that cap; anything else is ignored as if
 * absent, and logged once.
 */

const NOW = Date.parse('2026-12-02T10:00:00Z');
const ENV = { XDG_RUNTIME_DIR: '/run/user/test' };
const HEARTBEAT = 1000;

const record = (machine: string, more: Record<string, unknown> = {}) =>
  JSON.stringify({ machine, role: 'active', beatAt: new Date(NOW).toISOString(), heartbeatMs: 30_000, pid: 4242, startedAt: 'then', ...more });

function claimOn(vault: Vault, log = capturedLogger('info')) {
  return VaultClaim.claim(vault, { machine: 'zed', heartbeatMs: HEARTBEAT, clock: () => new Date(NOW), log: log.log, env: ENV });
}

const ignoredLines = (log: ReturnType<typeof capturedLogger>) => log.lines.filter((l) => String(l.msg).includes(' is ignored: ')).map((l) => String(l.msg));

describe('records with numbers out of bounds', () => {
  it('an active record with a heartbeat of 1e308 ms, or a beat a day ahead, keeps no daemon standby: it is active at once, and says why once', async () => {
    for (const [name, forged, why] of [
      ['alpha', { heartbeatMs: 1e308 }, 'its heartbeat of 1e+308 ms is not between 10 ms and an hour'],
      ['alpha', { beatAt: new Date(NOW + 24 * 3600_000).toISOString() }, "its last beat (2026-12-03T10:00:00.000Z) is 1440 minutes ahead of this machine's clock"],
    ] as const) {
      const vault = memoryVault({ [`.meeting-assistant/machines/${name}.json`]: record(name, forged) });
      const log = capturedLogger('info');
      const claim = await claimOn(vault, log);
      onTestFinished(() => claim.release());
      expect(claim.role).toBe('active');
      for (let i = 0; i < 3; i++) expect((await claim.beat()).role).toBe('active');
      const file = path.join(machinesFolder(vault), `${name}.json`);
      expect(ignoredLines(log)).toEqual([`${file} is ignored: ${why}; the machine it names counts as absent until its record is a sane one`]);
      await claim.release();
    }
  });

  it('an active daemon stays active when such a record arrives; the same record within bounds makes it step down', async () => {
    const vault = memoryVault();
    const claim = await claimOn(vault);
    onTestFinished(() => claim.release());
    expect(claim.role).toBe('active');
    const file = path.join(machinesFolder(vault), 'alpha.json');
    await vault.fs.writeFile(file, record('alpha', { heartbeatMs: 1e308 }));
    expect((await claim.beat()).role).toBe('active');
    // A sane record of a machine whose name sorts first, both active: this one stops its work.
    await vault.fs.writeFile(file, record('alpha'));
    expect((await claim.beat()).role).toBe('standby');
  });

  it("a command does not take such a record for the machine that runs the vault; its own daemon's record with a forged heartbeat does not start it active", async () => {
    const vault = memoryVault({
      '.meeting-assistant/machines/alpha.json': record('alpha', { heartbeatMs: 1e308, beatAt: new Date(NOW - 3600_000).toISOString() }),
      '.meeting-assistant/machines/beta.json': record('beta', { beatAt: new Date(NOW + 3600_000).toISOString() }),
    });
    const m = await machinesNow(vault, 'zed', () => new Date(NOW), { env: ENV });
    expect(m.activeElsewhere).toBeUndefined();
    expect(runsElsewhere(m)).toBeUndefined();
  });
});

describe('records too large to be records', () => {
  /** A real folder: a sparse file of 700 MB costs no disk. */
  function realVault(): { vault: Vault; reads: string[] } {
    const dir = mkdtempSync(path.join(os.tmpdir(), 'ma-records-'));
    onTestFinished(() => rmSync(dir, { recursive: true, force: true }));
    const root = path.join(dir, 'vault');
    mkdirSync(path.join(root, '.meeting-assistant', 'machines'), { recursive: true });
    const reads: string[] = [];
    // Every whole-file read is kept: none may be of a record.
    const fs: Fs = { ...nodeFs, readFile: (file, options) => (reads.push(String(file)), nodeFs.readFile(file, options)) };
    return { vault: new Vault(fs, testConfig({ VaultPath: root }).layout), reads };
  }

  it("another machine's record of 700 MB is never read whole: the daemon is active at once and stays so, and says why once", async () => {
    const { vault, reads } = realVault();
    const big = path.join(machinesFolder(vault), 'alpha.json');
    writeFileSync(big, record('alpha'));
    truncateSync(big, 700 * 1024 * 1024);
    const log = capturedLogger('info');
    const claim = await VaultClaim.claim(vault, { machine: 'zed', heartbeatMs: HEARTBEAT, clock: () => new Date(NOW), log: log.log, env: { XDG_RUNTIME_DIR: path.join(vault.root, '..', 'run') } });
    onTestFinished(() => claim.release());
    const heapBefore = process.memoryUsage().arrayBuffers;
    for (let i = 0; i < 5; i++) expect((await claim.beat()).role).toBe('active');
    expect(claim.role).toBe('active');
    expect(reads.filter((f) => f === big)).toEqual([]);
    // Nothing near the file's size was held: a read whole would be 700 MB of buffers.
    expect(process.memoryUsage().arrayBuffers - heapBefore).toBeLessThan(50 * 1024 * 1024);
    expect(ignoredLines(log)).toEqual([`${big} is ignored: it holds 734003200 bytes, more than a record's 65536; the machine it names counts as absent until its record is a sane one`]);
  });

  it("this machine's own record made 700 MB is not read whole either: it is written again, small", async () => {
    const { vault, reads } = realVault();
    const claim = await VaultClaim.claim(vault, { machine: 'zed', heartbeatMs: HEARTBEAT, clock: () => new Date(NOW), log: capturedLogger('info').log, env: { XDG_RUNTIME_DIR: path.join(vault.root, '..', 'run') } });
    onTestFinished(() => claim.release());
    const own = instanceFile(vault, 'zed');
    truncateSync(own, 700 * 1024 * 1024);
    await claim.beat();
    expect(statSync(own).size).toBeLessThan(1024);
    expect(reads.filter((f) => f === own)).toEqual([]);
  });

  it('reads a record up to the cap; a file that is a link or a folder, or longer than the cap, is no record', async () => {
    const vault = memoryVault({ 'a.json': 'x'.repeat(MAX_RECORD_BYTES), 'b.json': 'x'.repeat(MAX_RECORD_BYTES + 1) });
    expect(await readSmallText(vault.fs, '/vault/a.json')).toEqual({ text: 'x'.repeat(MAX_RECORD_BYTES) });
    expect(await readSmallText(vault.fs, '/vault/b.json')).toEqual({ problem: `it holds ${MAX_RECORD_BYTES + 1} bytes, more than a record's ${MAX_RECORD_BYTES}` });
    expect(await readSmallText(vault.fs, '/vault')).toEqual({ problem: 'it is not a plain file' });
    expect(await readSmallText(vault.fs, '/vault/none.json')).toBeUndefined();
  });
});

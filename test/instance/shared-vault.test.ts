import { readFileSync } from 'node:fs';
import path from 'node:path';
import { memfs } from 'memfs';
import { describe, expect, it } from 'vitest';
import { instanceFile, machinesFolder } from '../../src/instance/daemon-claim.js';
import { SETTLE_BEATS } from '../../src/instance/machine-roles.js';
import { obsidianSyncOn, whyLooksShared } from '../../src/instance/shared-vault.js';
import { readMachineRecords, VaultClaim } from '../../src/instance/vault-claim.js';
import { readText } from '../../src/vault/files/fs.js';
import type { Fs } from '../../src/vault/files/fs.js';
import { Vault } from '../../src/vault/files/vault.js';
import { capturedLogger } from '../helpers/captured-log.js';
import { describeVault, SHARED_VAULT } from '../helpers/fixture-vaults.js';
import { testConfig } from '../helpers/memfs.js';

/**
 * Why a vault looks shared before any machine has left a record in it (docs/design.md §2, two
 * machines; issue #45 point 1): a sync tool's marker in the vault or a folder above it, a cloud
 * drive's path, Obsidian Sync turned on, a configured machine name. On memfs, with absolute paths.
 */

const HOME = '/home/ann';

/** A file system with `files` (absolute paths; null: a folder) and the folder `vault`. */
function fsWith(vault: string, files: Record<string, string | null> = {}): Fs {
  const { fs } = memfs({}, '/');
  fs.mkdirSync(vault, { recursive: true });
  fs.mkdirSync(HOME, { recursive: true });
  for (const [p, content] of Object.entries(files)) {
    if (content === null) fs.mkdirSync(p, { recursive: true });
    else {
      fs.mkdirSync(path.dirname(p), { recursive: true });
      fs.writeFileSync(p, content);
    }
  }
  return fs.promises as unknown as Fs;
}

const why = (fs: Fs, vault: string, machineName = '') => whyLooksShared(fs, vault, { home: HOME, machineName });

describe('a sync tool marker', () => {
  const V = `${HOME}/Notes`;
  it.each([
    ['Syncthing', `${V}/.stfolder`, null],
    ['Syncthing', `${V}/.stfolder`, ''],
    ['Syncthing', `${V}/.stignore`, '.DS_Store\n'],
    ['Dropbox', `${V}/.dropbox`, '{"tag": "dropbox"}'],
    ['Dropbox', `${V}/.dropbox.cache`, null],
    ['Resilio Sync', `${V}/.sync/IgnoreList`, '.DS_Store\n'],
    ['Nextcloud or ownCloud', `${V}/.owncloudsync.log`, ''],
    ['Nextcloud or ownCloud', `${V}/.nextcloudsync.log`, ''],
    ['Nextcloud or ownCloud', `${V}/.sync_4f2a9c01b7de.db`, ''],
    ['Nextcloud or ownCloud', `${V}/._sync_4f2a9c01b7de.db`, ''],
  ])('%s: %s in the vault folder', async (tool, file, content) => {
    const reason = await why(fsWith(V, { [file]: content }), V);
    expect(reason).toContain(tool);
    expect(reason).toContain(file.replace(/\/IgnoreList$/, ''));
  });

  it('in a folder above the vault, below the home folder: the vault is in the folder the tool shares', async () => {
    const vault = `${HOME}/Sync/Work/Vault`;
    const reason = await why(fsWith(vault, { [`${HOME}/Sync/.stfolder`]: null }), vault);
    expect(reason).toBe(`Syncthing shares a folder it is in (${HOME}/Sync/.stfolder)`);
  });

  it("in the home folder, or above it, is the tools' own settings, not a shared folder: no wait", async () => {
    const vault = `${HOME}/Notes`;
    // `~/.dropbox` (Dropbox's settings) and `~/.sync` (Resilio's, even with a file of that name) and a marker above home.
    const fs = fsWith(vault, { [`${HOME}/.dropbox`]: null, [`${HOME}/.sync/IgnoreList`]: '', [`${HOME}/.stfolder`]: null, '/home/.stignore': '' });
    expect(await why(fs, vault)).toBeUndefined();
  });

  it('looks like one but is not: a `.sync` folder without IgnoreList, a `.dropbox` folder, a `.stignore` folder', async () => {
    const V2 = `${HOME}/Notes`;
    const fs = fsWith(V2, { [`${V2}/.sync/other`]: '', [`${V2}/.dropbox`]: null, [`${V2}/.stignore`]: null, [`${V2}/sync_1.db`]: '' });
    expect(await why(fs, V2)).toBeUndefined();
  });

  it('a vault outside the home folder: the folders above it up to the root', async () => {
    const vault = '/srv/shared/vault';
    expect(await why(fsWith(vault, { '/srv/shared/.dropbox.cache': null }), vault)).toBe('Dropbox shares a folder it is in (/srv/shared/.dropbox.cache)');
  });

  it('a vault reached through a link: where the link points', async () => {
    const { fs } = memfs({}, '/');
    fs.mkdirSync(`${HOME}/Sync/Vault`, { recursive: true });
    fs.mkdirSync(`${HOME}/Sync/.stfolder`);
    fs.symlinkSync(`${HOME}/Sync/Vault`, `${HOME}/Vault`);
    expect(await why(fs.promises as unknown as Fs, `${HOME}/Vault`)).toBe(`Syncthing shares a folder it is in (${HOME}/Sync/.stfolder)`);
  });
});

describe('a look that does not end', () => {
  it('a marker on a hung mount (its stat never answers): taken as shared at the deadline, never a start that hangs', async () => {
    const V = `${HOME}/Notes`;
    const fs = fsWith(V, { [`${V}/.stfolder`]: null });
    const hung = new Proxy(fs, {
      get: (target, key) => (key === 'stat' ? () => new Promise(() => undefined) : (Reflect.get(target, key) as unknown)),
    });
    const reason = await whyLooksShared(hung, V, { home: HOME, deadlineMs: 50 });
    expect(reason).toBe('its folders did not answer within 0.05 s (a slow or hung mount?), so it is taken as shared');
  });
});

describe('a cloud drive by its path', () => {
  it.each([
    ['iCloud Drive', '/Users/ann/Library/Mobile Documents/iCloud~md~obsidian/Documents/Vault'],
    ['iCloud Drive', '/Users/ann/Library/Mobile Documents/com~apple~CloudDocs/Vault'],
    ['CloudStorage', '/Users/ann/Library/CloudStorage/GoogleDrive-ann@example.com/My Drive/Vault'],
    ['OneDrive', '/home/ann/OneDrive/Vault'],
    ['OneDrive', '/home/ann/OneDrive - Contoso/Vault'],
    ['Dropbox', '/home/ann/Dropbox/Vault'],
    ['Dropbox', '/home/ann/Dropbox (Personal)/Vault'],
    ['Google Drive', '/Users/ann/Google Drive/Vault'],
  ])('%s: %s', async (tool, vault) => {
    expect(await why(fsWith(vault), vault)).toContain(tool);
  });

  it('a word in a name is no path: `My Dropbox notes`, `OneDriveless`', async () => {
    for (const vault of ['/home/ann/My Dropbox notes', '/home/ann/OneDriveless/Vault']) expect(await why(fsWith(vault), vault)).toBeUndefined();
  });
});

describe('Obsidian Sync', () => {
  it("is on when core-plugins.json lists `sync` (older Obsidian) or maps it to true (newer); off otherwise", async () => {
    expect(obsidianSyncOn('["file-explorer","sync"]')).toBe(true);
    expect(obsidianSyncOn('{"file-explorer": true, "sync": true}')).toBe(true);
    expect(obsidianSyncOn('["file-explorer","publish"]')).toBe(false);
    expect(obsidianSyncOn('{"file-explorer": true, "sync": false}')).toBe(false);
    expect(obsidianSyncOn('{"sync": "yes"}')).toBe(false);
    expect(obsidianSyncOn('not json')).toBe(false);
    expect(obsidianSyncOn(undefined)).toBe(false);
    const V = `${HOME}/Vault`;
    expect(await why(fsWith(V, { [`${V}/.obsidian/core-plugins.json`]: '{"sync": true}' }), V)).toBe(`Obsidian Sync is on in it (${V}/.obsidian/core-plugins.json)`);
    expect(await why(fsWith(V, { [`${V}/.obsidian/core-plugins.json`]: '{"sync": false}' }), V)).toBeUndefined();
  });
});

describeVault(SHARED_VAULT, `Obsidian Sync in a real vault's settings: ${SHARED_VAULT.title}`, () => {
  it("reads newer Obsidian's core-plugins.json, which names sync and turns it off: not shared", async () => {
    const text = readFileSync(path.join(SHARED_VAULT.dir, '.obsidian', 'core-plugins.json'), 'utf8');
    expect(JSON.parse(text)).toHaveProperty('sync', false);
    expect(obsidianSyncOn(text)).toBe(false);
    // The same file with Sync turned on, as Obsidian writes it when the plugin is switched on.
    expect(obsidianSyncOn(text.replace('"sync": false', '"sync": true'))).toBe(true);
  });
});

describe('a configured machine name', () => {
  it('says more than one machine is expected; blank is none', async () => {
    const V = `${HOME}/Vault`;
    expect(await why(fsWith(V), V, 'Desktop')).toContain('MachineName is set (Desktop)');
    expect(await why(fsWith(V), V, '  ')).toBeUndefined();
  });
});

describe('nothing says so', () => {
  it('a plain folder with notes and an Obsidian config without Sync: undefined', async () => {
    const V = `${HOME}/Documents/Vault`;
    const fs = fsWith(V, { [`${V}/Note.md`]: '# x', [`${V}/.obsidian/core-plugins.json`]: '["file-explorer"]', [`${V}/.trash`]: null });
    expect(await why(fs, V)).toBeUndefined();
  });
});

/** The first start of two machines on a brand-new vault that looks shared (issue #45 point 1). */
describe('the first start on a vault that looks shared', () => {
  const HEARTBEAT = 1000;
  const T0 = Date.parse('2026-12-01T10:00:00Z');
  const vaultOn = () => new Vault((memfs({ '/vault': null }, '/').fs.promises as unknown as Fs), testConfig().layout);

  /** The sync tool, for one machine's record: its own copy carried to the other. */
  async function carry(machine: string, from: Vault, to: Vault): Promise<void> {
    await to.fs.mkdir(machinesFolder(to), { recursive: true });
    await to.fs.writeFile(instanceFile(to, machine), await readText(from.fs, instanceFile(from, machine)));
  }

  it('waits as a candidate, says why, and is active after the settle time when no other claim came', async () => {
    let now = T0;
    const log = capturedLogger('info');
    const vault = vaultOn();
    const claim = await VaultClaim.claim(vault, { machine: 'alpha', heartbeatMs: HEARTBEAT, clock: () => new Date(now), log: log.log, looksShared: async () => 'Syncthing shares it (/vault/.stfolder)' });
    expect(claim.role).toBe('candidate');
    const line = log.lines.find((l) => String(l.msg).startsWith('no other machine is active on this vault'));
    expect(line?.msg).toContain('no machine has run this vault yet, but it looks shared (Syncthing shares it (/vault/.stfolder))');
    for (let i = 0; i < SETTLE_BEATS; i++) {
      now += HEARTBEAT;
      await claim.beat();
    }
    expect(claim.role).toBe('active');
    await claim.release();
    // Its record stays: the next start is at once, though the vault still looks shared.
    const again = await VaultClaim.claim(vault, { machine: 'alpha', heartbeatMs: HEARTBEAT, clock: () => new Date(now + 86_400_000), log: log.log, looksShared: async () => 'x' });
    expect(again.role).toBe('active');
    await again.release();
  });

  it('is asked only at a first start with no record at all: not at a restart, nor once another machine left its record', async () => {
    let asked = 0;
    const looksShared = async () => (asked++, 'Syncthing shares it');
    const vault = vaultOn();
    const o = { heartbeatMs: HEARTBEAT, clock: () => new Date(T0), log: capturedLogger('info').log, looksShared };
    const first = await VaultClaim.claim(vault, { ...o, machine: 'alpha' });
    expect([first.role, asked]).toEqual(['candidate', 1]);
    await first.release();
    const again = await VaultClaim.claim(vault, { ...o, machine: 'alpha' });
    expect([again.role, asked]).toEqual(['active', 1]);
    await again.release();
    // beta's first start on a copy that holds alpha's record (stopped): the records decide.
    const beta = await VaultClaim.claim(vault, { ...o, machine: 'beta' });
    expect([beta.role, asked]).toEqual(['candidate', 1]);
    await beta.release();
  });

  it('a look that takes long (folders on a slow mount) shortens no wait: the settle time counts from the claim', async () => {
    let now = T0;
    const looksShared = async () => {
      now += 10 * HEARTBEAT;
      return 'Syncthing shares it';
    };
    const claim = await VaultClaim.claim(vaultOn(), { machine: 'alpha', heartbeatMs: HEARTBEAT, clock: () => new Date(now), log: capturedLogger('info').log, looksShared });
    expect(claim.role).toBe('candidate');
    for (let i = 1; i < SETTLE_BEATS; i++) {
      now += HEARTBEAT;
      await claim.beat();
      expect(claim.role).toBe('candidate');
    }
    now += HEARTBEAT;
    await claim.beat();
    expect(claim.role).toBe('active');
    await claim.release();
  });

  it('a vault that looks shared by nothing starts at once, as before', async () => {
    const claim = await VaultClaim.claim(vaultOn(), { machine: 'alpha', heartbeatMs: HEARTBEAT, clock: () => new Date(T0), log: capturedLogger('info').log });
    expect(claim.role).toBe('active');
    await claim.release();
  });

  it('two machines started together on it: never both active; the name that sorts first runs it', async () => {
    let now = T0;
    const clock = () => new Date(now);
    const [va, vb] = [vaultOn(), vaultOn()];
    const o = { heartbeatMs: HEARTBEAT, clock, looksShared: async () => 'Syncthing shares it' };
    const a = await VaultClaim.claim(va, { ...o, machine: 'alpha', log: capturedLogger('info').log });
    const b = await VaultClaim.claim(vb, { ...o, machine: 'beta', log: capturedLogger('info').log });
    expect([a.role, b.role]).toEqual(['candidate', 'candidate']);
    for (let i = 0; i < 4 * SETTLE_BEATS; i++) {
      now += HEARTBEAT;
      await a.beat();
      await b.beat();
      expect([a.role, b.role]).not.toEqual(['active', 'active']);
      // The sync tool brings each record within a heartbeat.
      await carry('alpha', va, vb);
      await carry('beta', vb, va);
    }
    expect([a.role, b.role]).toEqual(['active', 'standby']);
    expect((await readMachineRecords(vb)).map((r) => [r.machine, r.role])).toEqual([
      ['alpha', 'active'],
      ['beta', 'standby'],
    ]);
    expect(await readText(va.fs, instanceFile(va, 'beta'))).toContain('"standby"');
    await Promise.all([a.release(), b.release()]);
  });
});

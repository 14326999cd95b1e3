import { describe, expect, it } from 'vitest';
import type { Fs } from '../../src/vault/fs.js';
import { ConcurrentEditError, UNCHANGED, updateFile } from '../../src/vault/update.js';
import { LinkOutsideVaultError, Vault } from '../../src/vault/vault.js';
import { memoryFs, testConfig } from '../helpers/memfs.js';
import { symlink } from '../tools/helpers.js';

/** Compare before replacing (vault/update.ts) on memfs, with another writer simulated at exact moments. */

const FILE = '/vault/Projects/Alpha/Log.md';
const append = (line: string) => (current: string | undefined) => `${current ?? ''}${line}\n`;

/** An fs whose `hook` runs before the n-th read of FILE by path (the compare reads by path; the first read is by handle). */
function withReadHook(fs: Fs, hook: (n: number) => Promise<void>): Fs {
  let n = 0;
  return new Proxy(fs, {
    get(target, prop, receiver) {
      if (prop === 'readFile') {
        return async (file: string) => {
          if (file === FILE) await hook(++n);
          return target.readFile(file);
        };
      }
      return Reflect.get(target, prop, receiver) as unknown;
    },
  });
}

describe('updateFile', () => {
  it('applies the change to the file as it is, writing nothing when the transform changes nothing', async () => {
    const fs = memoryFs({ 'Projects/Alpha/Log.md': 'a\n' });
    const r = await updateFile(fs, FILE, append('b'));
    expect(r).toMatchObject({ before: 'a\n', after: 'a\nb\n', changed: true, attempts: 1 });
    const same = await updateFile(fs, FILE, () => UNCHANGED);
    expect(same).toMatchObject({ changed: false, after: 'a\nb\n' });
  });

  it('a line another program appends between the read and the rename is kept, after the change', async () => {
    const base = memoryFs({ 'Projects/Alpha/Log.md': 'a\n' });
    const fs = withReadHook(base, async (n) => {
      if (n === 1) await base.writeFile(FILE, 'a\nperson\n');
    });
    const r = await updateFile(fs, FILE, append('agent'));
    expect(Buffer.from(await base.readFile(FILE)).toString()).toBe('a\nagent\nperson\n');
    // The result is this write's own change: the audit shows the agent's line, not the person's.
    expect(r).toMatchObject({ before: 'a\n', after: 'a\nagent\n', attempts: 1 });
  });

  it('a file rewritten between the read and the rename gets the change applied again to the new content', async () => {
    const base = memoryFs({ 'Projects/Alpha/Log.md': 'a\n' });
    const fs = withReadHook(base, async (n) => {
      if (n === 1) await base.writeFile(FILE, 'rewritten by a person\n');
    });
    const r = await updateFile(fs, FILE, append('agent'));
    expect(Buffer.from(await base.readFile(FILE)).toString()).toBe('rewritten by a person\nagent\n');
    expect(r).toMatchObject({ before: 'rewritten by a person\n', after: 'rewritten by a person\nagent\n', attempts: 2 });
  });

  it('a line appended to the replaced file in the last instant (after the compare) is appended to the new one', async () => {
    const base = memoryFs({ 'Projects/Alpha/Log.md': 'a\n' });
    let once = false;
    const fs = new Proxy(base, {
      get(target, prop, receiver) {
        if (prop === 'rename') {
          return async (from: string, to: string) => {
            if (!once && to === FILE) {
              once = true;
              // Into the old file, which the rename is about to replace.
              const h = await target.open(FILE, 'a');
              await h.writeFile('late\n');
              await h.close();
            }
            return target.rename(from, to);
          };
        }
        return Reflect.get(target, prop, receiver) as unknown;
      },
    });
    await updateFile(fs, FILE, append('agent'));
    expect(Buffer.from(await base.readFile(FILE)).toString()).toBe('a\nagent\nlate\n');
  });

  it('gives up after the bound, leaving the other program\'s content, when the file never stops changing', async () => {
    const base = memoryFs({ 'Projects/Alpha/Log.md': 'a\n' });
    let i = 0;
    const fs = withReadHook(base, async () => base.writeFile(FILE, `a\nchanged ${++i}\n`));
    await expect(updateFile(fs, FILE, append('agent'), { maxAttempts: 5 })).rejects.toBeInstanceOf(ConcurrentEditError);
    expect(Buffer.from(await base.readFile(FILE)).toString()).toBe(`a\nchanged ${i}\n`);
    expect((await base.readdir('/vault/Projects/Alpha', { withFileTypes: true })).map((e) => e.name)).toEqual(['Log.md']);
  });

  it('a refusal thrown by the transform writes nothing', async () => {
    const fs = memoryFs({ 'Projects/Alpha/Log.md': 'a\n' });
    await expect(
      updateFile(fs, FILE, () => {
        throw new Error('refused');
      }),
    ).rejects.toThrow('refused');
    expect(Buffer.from(await fs.readFile(FILE)).toString()).toBe('a\n');
  });
});

describe('Vault.update', () => {
  it('one writer per file: 40 concurrent appends from many callers all land', async () => {
    const vault = new Vault(memoryFs({ 'Projects/Alpha/Log.md': '' }), testConfig().layout);
    await Promise.all(Array.from({ length: 40 }, (_, i) => vault.update(FILE, append(`line ${i}`))));
    const lines = (await vault.read(FILE)).trim().split('\n');
    expect(lines.sort()).toEqual(Array.from({ length: 40 }, (_, i) => `line ${i}`).sort());
    expect(vault.locks.size).toBe(0);
  });

  it('a symbolic link inside the vault is written through and stays a link', async () => {
    const fs = memoryFs({ 'People/Real note.md': '---\nattendees: [A]\n---\nbody\n', 'Meetings/Other.md': '' });
    await symlink(fs, '/vault/People/Real note.md', '/vault/Meetings/Link.md');
    const vault = new Vault(fs, testConfig().layout);
    await vault.update('/vault/Meetings/Link.md', append('more'));
    expect((await fs.lstat('/vault/Meetings/Link.md')).isSymbolicLink()).toBe(true);
    expect(await vault.read('/vault/People/Real note.md')).toBe('---\nattendees: [A]\n---\nbody\nmore\n');
  });

  it('the configured dictionary may link outside the vault (written through); a note may not', async () => {
    const fs = memoryFs({ '/recognizer/words.txt': 'Kubernetes\n', '/elsewhere/note.md': 'x\n', 'Meetings/Other.md': '' });
    await symlink(fs, '/recognizer/words.txt', '/vault/Meetings/Dictionary.md');
    await symlink(fs, '/elsewhere/note.md', '/vault/Meetings/Outside.md');
    const vault = new Vault(fs, testConfig().layout);
    await vault.update('/vault/Meetings/Dictionary.md', append('Anthropic'));
    expect((await fs.lstat('/vault/Meetings/Dictionary.md')).isSymbolicLink()).toBe(true);
    expect(Buffer.from(await fs.readFile('/recognizer/words.txt')).toString()).toBe('Kubernetes\nAnthropic\n');
    await expect(vault.update('/vault/Meetings/Outside.md', append('y'))).rejects.toBeInstanceOf(LinkOutsideVaultError);
    expect(Buffer.from(await fs.readFile('/elsewhere/note.md')).toString()).toBe('x\n');
  });

  it('replace keeps what it replaces in .trash/ when asked, including a version written after the copy', async () => {
    const fs = memoryFs({ 'Meetings/Summaries/S.md': 'person v1\n' });
    const vault = new Vault(fs, testConfig().layout);
    await vault.replace('/vault/Meetings/Summaries/S.md', 'summary\n', () => true);
    expect(await vault.read('/vault/Meetings/Summaries/S.md')).toBe('summary\n');
    expect(await vault.read('/vault/.trash/Meetings/Summaries/S.md')).toBe('person v1\n');
  });
});

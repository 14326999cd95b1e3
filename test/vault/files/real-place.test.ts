import { describe, expect, it } from 'vitest';
import { confinedPlace, OutsideVaultError, readConfinedText } from '../../../src/vault/files/real-place.js';
import type { Fs } from '../../../src/vault/files/fs.js';
import { NotTextFileError } from '../../../src/vault/files/text-file.js';
import { Vault } from '../../../src/vault/files/vault.js';
import { memoryFs, memoryVault, testConfig } from '../../helpers/memfs.js';
import { symlink } from '../../helpers/tool-harness.js';

/** The one confinement of the reads mcp/ and ask/ make (docs/design.md §10 "Confinement", vault/files/real-place.ts), on memfs. */

const files = {
  'Meetings/Summaries/A.md': 'summary A\n',
  '.meeting-assistant/token': 'TOKEN\n',
  '.obsidian/notes.md': 'plugin settings\n',
  'Meetings/.hidden/B.md': 'hidden\n',
  '/etc/passwd': 'root:x:0:0\n',
  '/outside/Note.md': 'outside\n',
  '/cfg/config.json': '{"ApiKey":"sk-1"}\n',
};

describe('readConfinedText', () => {
  it('reads a note of the vault, and one through a symbolic link that stays in it; undefined for a missing one', async () => {
    const vault = memoryVault(files);
    await symlink(vault.fs, '/vault/Meetings/Summaries/A.md', '/vault/Meetings/Summaries/Link.md');
    expect(await readConfinedText(vault, vault.abs('Meetings/Summaries/A.md'))).toBe('summary A\n');
    expect(await readConfinedText(vault, vault.abs('Meetings/Summaries/Link.md'))).toBe('summary A\n');
    expect(await readConfinedText(vault, vault.abs('Meetings/Summaries/None.md'))).toBeUndefined();
  });

  it('refuses paths that lead out lexically (`..`, absolute) or into a dot-folder', async () => {
    const vault = memoryVault(files);
    for (const p of ['../cfg/config.json', '../../../etc/passwd', '/etc/passwd', '.meeting-assistant/token', '.obsidian/notes.md', 'Meetings/.hidden/B.md']) {
      const err = await readConfinedText(vault, vault.abs(p)).catch((e: unknown) => e);
      expect(err, p).toBeInstanceOf(OutsideVaultError);
      expect((err as Error).message).not.toMatch(/sk-1|TOKEN|root:/);
    }
  });

  it('refuses symbolic links to the token, out of the vault, and folders linked out', async () => {
    const vault = memoryVault(files);
    await symlink(vault.fs, '/vault/.meeting-assistant/token', '/vault/Meetings/Summaries/Token.md');
    await symlink(vault.fs, '/etc/passwd', '/vault/Meetings/Summaries/Etc.md');
    await symlink(vault.fs, '/outside', '/vault/Meetings/Summaries/Shared');
    await symlink(vault.fs, '/vault/.obsidian', '/vault/Meetings/Summaries/Dot');
    for (const p of ['Meetings/Summaries/Token.md', 'Meetings/Summaries/Etc.md', 'Meetings/Summaries/Shared/Note.md', 'Meetings/Summaries/Dot/notes.md']) {
      await expect(readConfinedText(vault, vault.abs(p)), p).rejects.toBeInstanceOf(OutsideVaultError);
      await expect(confinedPlace(vault, vault.abs(p)), p).rejects.toBeInstanceOf(OutsideVaultError);
    }
  });

  it('reads a configured folder placed outside the vault, and refuses a binary file', async () => {
    const vault = memoryVault({ ...files, '/elsewhere/Summaries/S.md': 'elsewhere\n', 'Meetings/Summaries/bin.md': 'a\u0000b' }, { Folders: { Summaries: '/elsewhere/Summaries' } });
    expect(await readConfinedText(vault, '/elsewhere/Summaries/S.md')).toBe('elsewhere\n');
    await expect(readConfinedText(vault, vault.abs('Meetings/Summaries/bin.md'))).rejects.toBeInstanceOf(NotTextFileError);
  });

  it("reads a file another writer replaced (an atomic rename) just after it was opened: the new text, not an 'outside the vault' refusal", async () => {
    // The fault suite's two runs and an editor writing the dictionary at once met this (issue #43's confinement).
    const target = '/vault/Meetings/Dictionary.md';
    let replaced = 0;
    const vault = vaultOpening({ 'Meetings/Dictionary.md': 'Alpha\n' }, async (fs, file, phase) => {
      if (file !== target || phase !== 'after' || replaced++ > 0) return;
      await fs.writeFile(`${target}.tmp`, 'Alpha\nBeta\n');
      await fs.rename(`${target}.tmp`, target);
    });
    expect(await readConfinedText(vault, target)).toBe('Alpha\nBeta\n');
    expect(replaced).toBe(2);
  });

  it('refuses a link turned to a file outside the vault at each open and back after it: nothing of that file is returned', async () => {
    const link = '/vault/Meetings/Summaries/Link.md';
    let opens = 0;
    const vault = vaultOpening(files, async (fs, file, phase) => {
      if (file !== link) return;
      if (phase === 'before') opens++;
      await fs.unlink(link);
      await symlinkIn(fs, phase === 'before' ? '/etc/passwd' : '/vault/Meetings/Summaries/A.md', link);
    });
    await symlinkIn(vault.fs, '/vault/Meetings/Summaries/A.md', link);
    const err = await readConfinedText(vault, link).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(OutsideVaultError);
    expect((err as OutsideVaultError).where).toBe('changing');
    expect((err as Error).message).not.toMatch(/root:/);
    expect(opens).toBe(4);
  });
});

type Linking = { symlink(target: string, at: string): Promise<void> };
const symlinkIn = (fs: Fs, target: string, at: string) => (fs as unknown as Linking).symlink(target, at);

/** A memfs vault whose `open` runs `around` just before it (phase 'before') and just after it (phase 'after'). */
function vaultOpening(files: Record<string, string>, around: (fs: Fs, file: string, phase: 'before' | 'after') => Promise<void>): Vault {
  const fs = memoryFs(files);
  const open = fs.open.bind(fs);
  const wrapped = new Proxy(fs, {
    get(target, prop, receiver) {
      if (prop !== 'open') return Reflect.get(target, prop, receiver) as unknown;
      return async (...args: Parameters<Fs['open']>) => {
        await around(target, String(args[0]), 'before');
        const handle = await open(...args);
        await around(target, String(args[0]), 'after');
        return handle;
      };
    },
  });
  return new Vault(wrapped, testConfig({}).layout);
}

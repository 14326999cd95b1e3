import path from 'node:path';
import { NotTextFileError, readTextFile as readLinkedText } from '../../vault/files/text-file.js';
import { OutsideVaultError, readConfinedText } from '../../vault/files/real-place.js';
import type { Vault } from '../../vault/files/vault.js';
import { ToolError } from '../errors.js';

/**
 * A text file for the model: undefined when missing; a ToolError for a folder or a binary
 * file, which no read tool can show usefully, and for a file that really lies out of the
 * vault or in a dot-folder. The place is checked at each read, not only when the run
 * resolved its meeting: a sync tool may turn a transcript into a symbolic link to the token
 * during the minutes a run takes (vault/files/real-place.ts; docs/design.md §10; issue #43).
 */
export async function readTextFile(vault: Vault, abs: string): Promise<string | undefined> {
  try {
    const stats = await vault.fs.stat(abs).catch(() => undefined);
    if (stats?.isDirectory()) throw new NotTextFileError(`${vault.rel(abs)} is a folder, not a file.`);
    if (await isLinkedWordList(vault, abs)) return await readLinkedText(vault, abs);
    return await readConfinedText(vault, abs);
  } catch (err) {
    if (err instanceof NotTextFileError || err instanceof OutsideVaultError) throw new ToolError(err.message);
    throw err;
  }
}

/** A configured word list linked out of the vault (Vault.isLinkedWordList); one in it is read confined. */
async function isLinkedWordList(vault: Vault, abs: string): Promise<boolean> {
  const file = path.resolve(vault.root, abs);
  // Only the two configured word lists can be: no realpath for every other read.
  if (file !== vault.layout.files.dictionary && file !== vault.layout.files.glossary) return false;
  const real = await vault.fs.realpath(file).catch(() => undefined);
  return real !== undefined && !vault.contains(real) && vault.isLinkedWordList(file, real);
}

import { NotTextFileError, readTextFile as readVaultText } from '../../vault/files/text-file.js';
import type { Vault } from '../../vault/files/vault.js';
import { ToolError } from '../errors.js';

/**
 * A text file for the model: undefined when missing; a ToolError for a folder or a binary
 * file, which no read tool can show usefully.
 */
export async function readTextFile(vault: Vault, abs: string): Promise<string | undefined> {
  try {
    return await readVaultText(vault, abs);
  } catch (err) {
    if (err instanceof NotTextFileError) throw new ToolError(err.message);
    throw err;
  }
}

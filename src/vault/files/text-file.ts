import { MeetingAssistantError } from '../../errors.js';
import { looksBinary } from './confine.js';
import { isNotFound } from './fs.js';
import { readRegularFile } from './regular-file.js';
import type { Vault } from './vault.js';

/** A path that names a folder or a binary file where a text file was wanted. */
export class NotTextFileError extends MeetingAssistantError {
  constructor(message: string) {
    super(message, true);
  }
}

/**
 * A text file of the vault: undefined when missing; a NotTextFileError for a folder or a
 * binary file (a NUL byte in the first 8 KB), which no reader can use as text; a FIFO, a
 * device or a file over `Agent.MaxFileBytes` is refused before it is read (regular-file.ts).
 */
export async function readTextFile(vault: Vault, abs: string): Promise<string | undefined> {
  let bytes: Uint8Array | undefined;
  try {
    const stats = await vault.fs.stat(abs);
    if (stats.isDirectory()) throw new NotTextFileError(`${vault.rel(abs)} is a folder, not a file.`);
    bytes = await readRegularFile(vault.fs, abs, vault.maxFileBytes, vault.rel(abs));
    if (bytes === undefined) return undefined;
  } catch (err) {
    if (isNotFound(err) || (err as { code?: string }).code === 'ENOTDIR') return undefined;
    throw err;
  }
  if (looksBinary(bytes)) throw new NotTextFileError(`${vault.rel(abs)} is a binary file; only text files can be read or edited.`);
  return Buffer.from(bytes).toString('utf8');
}

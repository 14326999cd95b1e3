import { isNotFound } from '../vault/fs.js';
import type { Vault } from '../vault/vault.js';
import { ToolError } from './errors.js';
import { looksBinary } from '../vault/confine.js';

/**
 * A text file for the model: undefined when missing; a ToolError for a folder or a binary
 * file (a NUL byte in the first 8 KB), which no read tool can show usefully.
 */
export async function readTextFile(vault: Vault, abs: string): Promise<string | undefined> {
  let bytes: Uint8Array;
  try {
    const stats = await vault.fs.stat(abs);
    if (stats.isDirectory()) throw new ToolError(`${vault.rel(abs)} is a folder, not a file.`);
    bytes = await vault.fs.readFile(abs);
  } catch (err) {
    if (isNotFound(err) || (err as { code?: string }).code === 'ENOTDIR') return undefined;
    throw err;
  }
  if (looksBinary(bytes)) throw new ToolError(`${vault.rel(abs)} is a binary file; only text files can be read or edited.`);
  return Buffer.from(bytes).toString('utf8');
}

/** The line ending a text uses (its first), `\n` for a text without one. */
export function eolOf(text: string): '\n' | '\r\n' {
  const nl = text.indexOf('\n');
  return nl > 0 && text[nl - 1] === '\r' ? '\r\n' : '\n';
}

/** Lines joined into a text that ends with a line ending (empty for no lines). */
export function joinLines(lines: readonly string[], eol: string): string {
  return lines.length === 0 ? '' : lines.join(eol) + eol;
}

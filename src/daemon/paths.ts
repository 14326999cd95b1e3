import path from 'node:path';
import { Vault } from '../vault/vault.js';

/**
 * Confining a note named by a caller (HTTP parameter, CLI argument) to the vault or to one
 * folder of it: lexically first (no `..`, no NUL, no backslash, no absolute path elsewhere),
 * then with symbolic links followed, so a link inside the folder cannot point out of it.
 */

export class NotePathError extends Error {
  override readonly name = 'NotePathError';
}

export interface ResolveNoteOptions {
  /** The folder the note must lie in (absolute); default the vault. */
  folder?: string;
  /** Human name of that folder for messages, e.g. `Folders.Summaries (Meetings/Summaries)`. */
  folderName?: string;
  /** Fail when the file does not exist (default true). */
  mustExist?: boolean;
}

/** Strips `[[…]]`, an alias and a heading, so a wikilink copied from Obsidian works too. */
function unwrapLink(raw: string): string {
  const m = /^\[\[([^\]]*)\]\]$/.exec(raw.trim());
  if (!m) return raw.trim();
  return m[1]!.split('|')[0]!.split('#')[0]!.trim();
}

/** Absolute path of the note, confined as described above; throws NotePathError for people. */
export async function resolveNotePath(vault: Vault, raw: unknown, options: ResolveNoteOptions = {}): Promise<string> {
  if (typeof raw !== 'string' || raw.trim() === '') throw new NotePathError('a note path is required');
  if (raw.length > 4096) throw new NotePathError('the note path is too long');
  if (raw.includes('\0')) throw new NotePathError('the note path contains a NUL byte');
  const name = unwrapLink(raw);
  if (name.includes('\\')) throw new NotePathError(`the note path must use forward slashes: ${name}`);
  if (name.split('/').includes('..')) throw new NotePathError(`the note path must not contain "..": ${name}`);
  const withExt = path.extname(name) ? name : `${name}.md`;
  const folder = options.folder ?? vault.root;
  const where = options.folderName ?? (options.folder ? vault.rel(folder) : 'the vault');
  const abs = path.resolve(vault.root, withExt);
  if (!Vault.isBelow(folder, abs)) throw new NotePathError(`${name} is not inside ${where}`);

  let real: string;
  try {
    real = await vault.fs.realpath(abs);
  } catch {
    if (options.mustExist ?? true) throw new NotePathError(`no such note: ${vault.contains(abs) ? vault.rel(abs) : abs}`);
    // A note yet to be created: its nearest existing folder must still be inside.
    real = abs;
  }
  const realFolder = await vault.fs.realpath(folder).catch(() => folder);
  if (!Vault.isBelow(realFolder, real)) throw new NotePathError(`${name} resolves outside ${where}`);
  return abs;
}

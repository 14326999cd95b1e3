import path from 'node:path';
import { MeetingAssistantError } from '../../errors.js';
import { type Fs, isNotFound } from './fs.js';
import { Vault } from './vault.js';
import { isSyncToolFile } from './sync-files.js';

/**
 * Keeping paths inside the vault, for every caller: the model's tool arguments (relative
 * paths, folder names) and the notes a person names on the command line or over HTTP.
 * Messages are written for whoever supplied the path; the tool registry returns them to the
 * model as `Error: …` results, the daemon as a 400 or a CLI usage error.
 */
export class PathError extends MeetingAssistantError {
  constructor(message: string) {
    super(message, true);
  }
}

/*
 * A path the model supplies is refused before any read or write when it
 * has `..` segments, is absolute (leading `/` or a drive letter), contains a backslash or a
 * NUL byte, or — following symbolic links, on the longest prefix that exists — resolves
 * outside the folder it must stay in. Real paths are compared, so on a case-insensitive
 * filesystem a differently-cased spelling resolves to the same canonical path.
 */

/** Check the form of a relative path and return its normalised segments. */
export function checkRelativePath(p: string, within: string): string[] {
  if (p.includes('\0')) throw new PathError(`the path contains a NUL byte; give a plain path relative to ${within}.`);
  if (p.includes('\\')) throw new PathError(`the path ${JSON.stringify(p)} contains a backslash; use forward slashes, relative to ${within}.`);
  if (p.startsWith('/') || /^[A-Za-z]:/.test(p) || p === '~' || p.startsWith('~/')) {
    throw new PathError(`the path ${JSON.stringify(p)} is absolute; give a path relative to ${within}.`);
  }
  const segments = p.split('/').filter((s) => s !== '' && s !== '.');
  if (segments.some((s) => s === '..')) {
    throw new PathError(`the path ${JSON.stringify(p)} contains ".."; give a path inside ${within} without "..".`);
  }
  if (segments.length === 0) throw new PathError(`the path is empty; give a file path relative to ${within}.`);
  return segments;
}

/**
 * The real location of `target`, following symbolic links on its longest existing prefix
 * (the rest does not exist yet, e.g. a file about to be created).
 */
export async function realLocation(fs: Fs, target: string): Promise<string> {
  const rest: string[] = [];
  let current = target;
  for (;;) {
    try {
      const real = await fs.realpath(current);
      return rest.length > 0 ? path.join(real, ...rest) : real;
    } catch (err) {
      const code = (err as { code?: string }).code;
      if (code === 'ENOTDIR') throw new PathError(`${current} is a file, not a folder.`);
      if (!isNotFound(err)) throw err;
      // A dangling symbolic link would be followed by a write: it is not a missing file.
      if (await isLink(fs, current)) {
        throw new PathError('the path goes through a symbolic link whose target does not exist; refused.');
      }
    }
    const parent = path.dirname(current);
    if (parent === current) return target;
    rest.unshift(path.basename(current));
    current = parent;
  }
}

async function isLink(fs: Fs, p: string): Promise<boolean> {
  try {
    return (await fs.lstat(p)).isSymbolicLink();
  } catch {
    return false;
  }
}

/**
 * Resolve a model-supplied path against `base` and make sure that it stays inside it, symbolic
 * links followed. Returns the path to use: the real location expressed under `base` — so a
 * link inside the folder is written through (not replaced by a file) and a differently-cased
 * spelling on a case-insensitive disk becomes the file's real name — and the real one.
 */
export async function resolveInside(
  fs: Fs,
  base: string,
  rel: string,
  within: string,
): Promise<{ abs: string; real: string; segments: string[] }> {
  const segments = checkRelativePath(rel, within);
  const realBase = await realLocation(fs, base);
  const real = await realLocation(fs, path.join(base, ...segments));
  if (real === realBase || !Vault.isInside(realBase, real)) {
    throw new PathError(`the path ${JSON.stringify(rel)} resolves outside ${within} (symbolic links are followed); refused.`);
  }
  return { abs: path.join(base, path.relative(realBase, real)), real, segments };
}

/** True when two paths name the same file: same real path, or equal ignoring case (conservative on case-insensitive disks). */
export async function sameFile(fs: Fs, a: string, b: string): Promise<boolean> {
  if (a === b || a.toLowerCase() === b.toLowerCase()) return true;
  const [ra, rb] = await Promise.all([realLocation(fs, a).catch(() => a), realLocation(fs, b).catch(() => b)]);
  return ra === rb || ra.toLowerCase() === rb.toLowerCase();
}

/** A single folder name as a model supplies it (a project): no separators, no dot names. */
export function checkFolderName(name: string, what: string): string {
  const n = name.trim();
  if (n === '' || n.includes('\0') || n.includes('/') || n.includes('\\') || n === '.' || n === '..' || /^[A-Za-z]:/.test(n)) {
    throw new PathError(`${JSON.stringify(name)} is not a valid ${what} name: give the folder name only, without slashes.`);
  }
  return n;
}

/** Does `text` look binary (a NUL byte in its first 8 KB)? */
export function looksBinary(bytes: Uint8Array): boolean {
  const end = Math.min(bytes.length, 8192);
  for (let i = 0; i < end; i++) if (bytes[i] === 0) return true;
  return false;
}

/*
 * Confining a note named by a person (HTTP parameter, CLI argument) to the vault or to one
 * folder of it: lexically first (no `..`, no NUL, no backslash, no absolute path elsewhere),
 * then with symbolic links followed, so a link inside the folder cannot point out of it.
 */

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

/** Absolute path of the note, confined as described above; throws PathError for people. */
export async function resolveNotePath(vault: Vault, raw: unknown, options: ResolveNoteOptions = {}): Promise<string> {
  if (typeof raw !== 'string' || raw.trim() === '') throw new PathError('a note path is required');
  if (raw.length > 4096) throw new PathError('the note path is too long');
  if (raw.includes('\0')) throw new PathError('the note path contains a NUL byte');
  const name = unwrapLink(raw);
  if (name.includes('\\')) throw new PathError(`the note path must use forward slashes: ${name}`);
  if (name.split('/').includes('..')) throw new PathError(`the note path must not contain "..": ${name}`);
  const withExt = path.extname(name) ? name : `${name}.md`;
  if (isSyncToolFile(withExt)) throw new PathError(`${name} is a sync tool's conflict copy or temporary file, not a note (docs/design.md §4)`);
  const folder = options.folder ?? vault.root;
  const where = options.folderName ?? (options.folder ? vault.rel(folder) : 'the vault');
  const abs = path.resolve(vault.root, withExt);
  if (!Vault.isBelow(folder, abs)) throw new PathError(`${name} is not inside ${where}`);

  let real: string;
  try {
    real = await vault.fs.realpath(abs);
  } catch {
    if (options.mustExist ?? true) throw new PathError(`no such note: ${vault.contains(abs) ? vault.rel(abs) : abs}`);
    // A note yet to be created: its nearest existing folder must still be inside.
    real = abs;
  }
  const realFolder = await vault.fs.realpath(folder).catch(() => folder);
  if (!Vault.isBelow(realFolder, real)) throw new PathError(`${name} resolves outside ${where}`);
  return abs;
}

import path from 'node:path';
import { MeetingAssistantError } from '../../errors.js';
import { looksBinary } from './confine.js';
import { type FileHandleLike, isNotFound, type StatsLike } from './fs.js';
import { openRegular, readAllBounded } from './regular-file.js';
import { NotTextFileError } from './text-file.js';
import { Vault } from './vault.js';

/**
 * Where a path really is once symbolic links are followed, links in its folders included
 * (docs/design.md §9 "Limits", §4): in the vault, outside it, or in one of its dot-folders
 * (`.meeting-assistant` holds the HTTP token, `.obsidian` the plugins' settings, `.git` the
 * history). Nothing is read, moved or imported through a link that leads out of the vault or
 * into a dot-folder; a link that stays in the vault is as good as the file it names.
 */
export type RealPlace = { where: 'vault' | 'outside' | 'dot-folder'; real: string } | { where: 'missing' };

export async function realPlace(vault: Vault, abs: string): Promise<RealPlace> {
  let real: string;
  let realRoot: string;
  try {
    [real, realRoot] = await Promise.all([vault.fs.realpath(abs), vault.fs.realpath(vault.root)]);
  } catch (err) {
    if (isNotFound(err)) return { where: 'missing' };
    throw err;
  }
  if (!Vault.isInside(realRoot, real)) return { where: 'outside', real };
  const hidden = path.relative(realRoot, real).split(path.sep).some((segment) => segment.startsWith('.'));
  return { where: hidden ? 'dot-folder' : 'vault', real };
}

/**
 * Whether the open `handle` is the very file the real place of `abs` names now. A check of
 * the real place before the open leaves a window: a link turned to `/etc/passwd` between the
 * check and the open would be read. So the place is found again after the open, and the file
 * there must be the one opened (same inode, same device): what was read is what was checked.
 */
export async function isOpenedAt(vault: Vault, handle: FileHandleLike, abs: string): Promise<RealPlace & { same: boolean }> {
  const place = await realPlace(vault, abs);
  if (place.where === 'missing') return { ...place, same: false };
  const [there, opened] = await Promise.all([vault.fs.stat(place.real).catch(() => undefined), handle.stat()]);
  const dev = (s: StatsLike | undefined) => (s as { dev?: number } | undefined)?.dev;
  return { ...place, same: there !== undefined && there.ino === opened.ino && dev(there) === dev(opened) };
}

/**
 * The one confinement of every read that vault content decides (docs/design.md §10
 * "Confinement"): a meeting note's `summary:`/`transcript:` link, a listing of the meeting
 * folders, a path a person or a model names to `mcp` and `ask`. A meeting note is written by
 * sync, other people and imports, so where it points is never trusted: a file is read only
 * when it lies in the vault (or in a configured folder placed outside it), in no dot-folder
 * (`.meeting-assistant` holds the HTTP token, `.obsidian` the plugins' settings), lexically and
 * once symbolic links are followed, and is a regular file (no FIFO, no device: regular-file.ts).
 * The place is checked again on the open handle (real-place.ts's isOpenedAt does the same for
 * imports), so a link turned elsewhere between the check and the open is not read either.
 */

/**
 * A read refused because the file is not, or cannot be shown to be, where a confined read may
 * go. 'changing': the file at the path was another one after each open, so which file was read
 * cannot be told (a link turned back and forth looks the same as that).
 */
export class OutsideVaultError extends MeetingAssistantError {
  constructor(
    readonly file: string,
    readonly where: 'outside' | 'dot-folder' | 'changing',
  ) {
    super(OutsideVaultError.say(file, where), true);
  }

  private static say(file: string, where: 'outside' | 'dot-folder' | 'changing'): string {
    if (where === 'outside') return `${file} lies outside the vault (a link or a symbolic link leads there); it is not read.`;
    if (where === 'dot-folder') return `${file} lies in one of the vault's dot-folders (.meeting-assistant, .obsidian …); it is not read.`;
    return `${file} was replaced by another file each time it was opened (${OPEN_ATTEMPTS} times), so what would be read cannot be checked; it is not read.`;
  }
}

/**
 * How often a confined read opens its file. Another writer's atomic write (a rename over the
 * file: the other run, a sync tool, an editor) between the open and the check after it is
 * common and lands once; the file is then simply opened again. A link turned back and forth at
 * each open is refused after these.
 */
const OPEN_ATTEMPTS = 4;

/** The folders a confined read may reach: the vault and the configured folders outside it. */
function rootsOf(vault: Vault): string[] {
  return Vault.outermost([vault.root, ...Object.values(vault.layout.folders)]);
}

/** Which of `roots` holds `p`, and whether a step below it is a dot-name; undefined: none holds it. */
function placeAmong(roots: readonly string[], p: string): 'inside' | 'dot-folder' | undefined {
  for (const root of roots) {
    if (!Vault.isBelow(root, p)) continue;
    return path.relative(root, p).split(path.sep).some((s) => s.startsWith('.')) ? 'dot-folder' : 'inside';
  }
  return undefined;
}

/** A name for messages: vault-relative when inside. */
function nameOf(vault: Vault, abs: string): string {
  return vault.contains(abs) ? vault.rel(abs) : abs;
}

/**
 * Where `abs` really is: 'missing', else its real path once checked; an OutsideVaultError when it
 * lies (lexically or really) outside the vault or in a dot-folder. Reads nothing.
 */
export async function confinedPlace(vault: Vault, abs: string, realRoots?: readonly string[]): Promise<{ real: string } | 'missing'> {
  const file = path.resolve(vault.root, abs);
  const lexical = placeAmong(rootsOf(vault), file);
  if (lexical !== 'inside') throw new OutsideVaultError(nameOf(vault, file), lexical ?? 'outside');
  let real: string;
  try {
    real = await vault.fs.realpath(file);
  } catch (err) {
    if (isNotFound(err) || (err as { code?: string }).code === 'ENOTDIR') return 'missing';
    throw err;
  }
  const place = placeAmong(realRoots ?? (await realRootsOf(vault)), real);
  if (place !== 'inside') throw new OutsideVaultError(nameOf(vault, file), place ?? 'outside');
  return { real };
}

/** The roots once their links are followed: a read resolves them once, not at each of its checks. */
function realRootsOf(vault: Vault): Promise<string[]> {
  return Promise.all(rootsOf(vault).map((r) => vault.fs.realpath(r).catch(() => r)));
}

/** The open handle is the file the real place of `abs` names now (same inode and device). */
async function sameFileThere(vault: Vault, handle: FileHandleLike, abs: string, realRoots: readonly string[]): Promise<boolean> {
  const place = await confinedPlace(vault, abs, realRoots);
  if (place === 'missing') return false;
  const [there, opened] = await Promise.all([vault.fs.stat(place.real).catch(() => undefined), handle.stat()]);
  const dev = (s: StatsLike | undefined) => (s as { dev?: number } | undefined)?.dev;
  return there !== undefined && there.ino === opened.ino && dev(there) === dev(opened);
}

/**
 * The text of a file vault content names, confined as above: undefined when it does not
 * exist; an OutsideVaultError, a NotRegularFileError, a FileTooLargeError (`Agent.MaxFileBytes`)
 * or a NotTextFileError (binary) otherwise. All are expected errors with a message for people.
 */
export async function readConfinedText(vault: Vault, abs: string): Promise<string | undefined> {
  const file = path.resolve(vault.root, abs);
  const name = nameOf(vault, file);
  const realRoots = await realRootsOf(vault);
  for (let attempt = 0; attempt < OPEN_ATTEMPTS; attempt++) {
    if ((await confinedPlace(vault, file, realRoots)) === 'missing') return undefined;
    const handle = await openRegular(vault.fs, file, name);
    if (!handle) return undefined;
    try {
      if (!(await sameFileThere(vault, handle, file, realRoots))) continue;
      const bytes = await readAllBounded(handle, vault.maxFileBytes, name);
      if (looksBinary(bytes)) throw new NotTextFileError(`${name} is a binary file; only text files can be read.`);
      return bytes.toString('utf8');
    } finally {
      await handle.close().catch(() => undefined);
    }
  }
  throw new OutsideVaultError(name, 'changing');
}

import path from 'node:path';
import { type FileHandleLike, isNotFound, type StatsLike } from './fs.js';
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

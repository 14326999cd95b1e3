import { PathError, resolveInside } from './confine.js';
import { realPlace } from './real-place.js';
import { Vault } from './vault.js';

/**
 * What counts as a project folder (docs/design.md §4): a folder, or a symbolic link to a
 * folder whose real location is inside the vault. A link resolving outside the vault
 * (`Projects/Etc` → `/etc`) is no project: not listed, not read, not written, its AGENTS.md
 * never in the instructions. A link into one of the vault's dot-folders (`.meeting-assistant`
 * holds the HTTP token, `.obsidian` the plugins' settings) is refused too: nothing there is a
 * note, and Obsidian shows none of it. And a link to the vault root, to a folder above the
 * projects, or into (or above) one of the daemon's meeting folders is no project: the agent
 * writes inside its projects only, never anywhere else in the vault.
 */
export async function isProjectFolder(vault: Vault, abs: string): Promise<boolean> {
  let stats;
  try {
    stats = await vault.fs.lstat(abs);
  } catch {
    return false;
  }
  if (stats.isDirectory()) return true;
  if (!stats.isSymbolicLink()) return false;
  try {
    const place = await realPlace(vault, abs);
    if (place.where !== 'vault' || !(await vault.fs.stat(place.real)).isDirectory()) return false;
    return !(await overlapsDaemonFolders(vault, place.real));
  } catch {
    return false;
  }
}

/**
 * Whether a linked project's real folder holds, or lies in, a folder that is not a project's
 * (issue 33): a link to the vault root, or to any folder above `Folders.Projects`, would let
 * write_projectfile reach every note of the vault, one to `Meetings` the daemon's own notes.
 */
async function overlapsDaemonFolders(vault: Vault, real: string): Promise<boolean> {
  const { Projects, ...others } = vault.layout.folders;
  const realOf = (folder: string) => vault.fs.realpath(folder).catch(() => folder);
  if (Vault.isInside(real, await realOf(Projects))) return true;
  for (const folder of Object.values(others)) {
    const f = await realOf(folder);
    if (Vault.isInside(real, f) || Vault.isInside(f, real)) return true;
  }
  return false;
}

/** A project's AGENTS.md (its instructions for the agent), undefined when it has none or the project is no project. */
export async function readAgentsFile(vault: Vault, projectAbs: string): Promise<string | undefined> {
  if (!(await isProjectFolder(vault, projectAbs))) return undefined;
  try {
    const { abs } = await resolveInside(vault.fs, projectAbs, 'AGENTS.md', 'the project folder');
    return await vault.readIfExists(abs);
  } catch (err) {
    if (err instanceof PathError) return undefined;
    throw err;
  }
}

import { PathError, resolveInside } from './confine.js';
import { realPlace } from './real-place.js';
import type { Vault } from './vault.js';

/**
 * What counts as a project folder (docs/design.md §4): a folder, or a symbolic link to a
 * folder whose real location is inside the vault. A link resolving outside the vault
 * (`Projects/Etc` → `/etc`) is no project: not listed, not read, not written, its AGENTS.md
 * never in the instructions. A link into one of the vault's dot-folders (`.meeting-assistant`
 * holds the HTTP token, `.obsidian` the plugins' settings) is refused too: nothing there is a
 * note, and Obsidian shows none of it.
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
    if (place.where !== 'vault' || place.real === (await vault.fs.realpath(vault.root))) return false;
    return (await vault.fs.stat(place.real)).isDirectory();
  } catch {
    return false;
  }
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

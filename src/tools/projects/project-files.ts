import { isTempFile, walkFiles } from '../../vault/files/fs.js';
import { isSyncToolFile } from '../../vault/files/sync-files.js';
import { Vault } from '../../vault/files/vault.js';
import { ToolError } from '../errors.js';
import { checkFolderName, realLocation } from '../../vault/files/confine.js';
import { type ProjectFolder, readProjectFolders } from '../cache/project-folders.js';
import { sameProject } from '../cache/past-index.js';

/**
 * Project folders: each direct subfolder of `Folders.Projects` is one project. Names a model
 * supplies are matched exactly, else without regard to case when that is unambiguous, so the
 * folder's real spelling is used from then on (and case tricks change nothing).
 */

export type { ProjectFolder } from '../cache/project-folders.js';

/**
 * Existing project folders (directories, or links to directories inside the vault: see
 * vault/files/project-folder.ts), sorted by name; dot-folders and sync tools' files skipped.
 * Read from the disk each time: what a project tool reads or writes is found here. The run
 * caches keep a listing for `list_projects` and the tool offer (`RunCaches.projectFolders`).
 */
export async function listProjectFolders(vault: Vault): Promise<ProjectFolder[]> {
  return (await readProjectFolders(vault)).folders;
}

/** The existing project folder a name denotes, or undefined. */
export function findProject(folders: readonly ProjectFolder[], name: string): ProjectFolder | undefined {
  const exact = folders.find((f) => f.name === name);
  if (exact) return exact;
  const folded = folders.filter((f) => sameProject(f.name, name));
  return folded.length === 1 ? folded[0] : undefined;
}

/** An existing project folder, or a ToolError naming the ones that exist. */
export async function resolveProject(vault: Vault, name: string): Promise<ProjectFolder> {
  const checked = checkFolderName(name, 'project');
  const folders = await listProjectFolders(vault);
  const found = findProject(folders, checked);
  if (found) return found;
  const existing = folders.map((f) => f.name);
  throw new ToolError(
    `there is no project folder ${JSON.stringify(checked)} in ${vault.rel(vault.layout.folders.Projects)}/. ` +
      (existing.length > 0 ? `Existing projects: ${existing.join(', ')}.` : 'There are no project folders.'),
  );
}

/**
 * The files of a project, project-relative with forward slashes, sorted. Dot-entries and
 * temporary files are skipped; a symbolic link counts only when it is a file that resolves
 * inside the project (linked folders are not followed: no loops, no escapes).
 */
export async function filesOfProject(vault: Vault, project: ProjectFolder): Promise<string[]> {
  const realRoot = await realLocation(vault.fs, project.abs);
  const out: string[] = [];
  await walkFiles(vault.fs, project.abs, { skip: hiddenOrTemp }, async ({ abs, rel, entry }) => {
    if (entry.isFile() || (entry.isSymbolicLink() && (await isFileInside(vault, abs, realRoot)))) out.push(rel);
  });
  return out.sort();
}

function hiddenOrTemp(name: string): boolean {
  return name.startsWith('.') || isTempFile(name) || isSyncToolFile(name);
}

async function isFileInside(vault: Vault, abs: string, realRoot: string): Promise<boolean> {
  try {
    const real = await vault.fs.realpath(abs);
    return Vault.isInside(realRoot, real) && (await vault.fs.stat(real)).isFile();
  } catch {
    return false;
  }
}

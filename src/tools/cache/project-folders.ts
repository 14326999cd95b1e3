import path from 'node:path';
import { isNotFound } from '../../vault/files/fs.js';
import { isInside } from '../../vault/files/lexical-paths.js';
import { isProjectFolder } from '../../vault/files/project-folder.js';
import { isEditorTempName, isSyncToolFile } from '../../vault/files/sync-files.js';
import type { Vault } from '../../vault/files/vault.js';
import type { FileWatch } from './file-cache.js';

/**
 * The project folders: each direct subfolder of `Folders.Projects` is one project
 * (docs/design.md §4), a folder or a link to a folder inside the vault
 * (vault/files/project-folder.ts).
 */

export interface ProjectFolder {
  name: string;
  abs: string;
}

/**
 * The project folders as the disk has them now, sorted by name; dot-folders and sync tools'
 * files skipped. `unwatched`: one entry is a symbolic link, whose target no event of the
 * projects folder reports, or has a name the watcher ignores (no event reports it either).
 */
export async function readProjectFolders(vault: Vault): Promise<{ folders: ProjectFolder[]; unwatched: boolean }> {
  const root = vault.layout.folders.Projects;
  let entries;
  try {
    entries = await vault.fs.readdir(root, { withFileTypes: true });
  } catch (err) {
    if (isNotFound(err)) return { folders: [], unwatched: false };
    throw err;
  }
  const folders: ProjectFolder[] = [];
  let unwatched = false;
  for (const entry of entries) {
    if (entry.name.startsWith('.') || isSyncToolFile(entry.name)) continue;
    const abs = path.join(root, entry.name);
    const link = entry.isSymbolicLink();
    // A folder the watcher passes over by its name (`Draft~`, `4913`: daemon/intake/file-events.ts)
    // is renamed or removed without an event, like a link's target.
    unwatched ||= link || isEditorTempName(entry.name);
    if (entry.isDirectory() || (link && (await isProjectFolder(vault, abs)))) folders.push({ name: entry.name, abs });
  }
  folders.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
  return { folders, unwatched };
}

/**
 * The project folders as the runs of one vault share them (tools/binding/run-caches.ts): where
 * the daemon's watcher covers the projects folder (FileWatch.trust), a listing read within
 * `maxTrustMs` with no event of the folder or of an entry in it since is answered without a
 * readdir. `list_projects` is a turn of its own in most runs, and that readdir (a trip through
 * libuv's threads: 0.34 ms at the median, up to 5 ms on a loaded machine) was a tenth of the
 * turn (BENCHMARKS.md, the `list_projects` turn). A folder holding a link is read every time
 * (its target lies outside what the folder's events report), and so is everything without a
 * watcher. The tools that read or write a project's files list the folder from the disk
 * (tools/projects/project-files.ts): what they touch is never found from a listing held here.
 */
export class ProjectFolders {
  #held: { folders: readonly ProjectFolder[]; readAt: number } | undefined;
  readonly #root: string;
  /** Readings of the folder so far (tests read it). */
  reads = 0;

  constructor(
    private readonly vault: Vault,
    private readonly watch: FileWatch,
  ) {
    this.#root = path.resolve(vault.layout.folders.Projects);
    watch.onInvalidate((abs) => {
      if (this.#changes(abs)) this.#held = undefined;
    });
  }

  /** The project folders, sorted by name; the array is shared, never to be changed by the caller. */
  async list(): Promise<readonly ProjectFolder[]> {
    const held = this.#held;
    if (held && this.watch.covers(this.#root) && this.watch.now() - held.readAt <= this.watch.maxTrustMs) return held.folders;
    const readAt = this.watch.now();
    const invalidations = this.watch.invalidations;
    this.reads++;
    const { folders, unwatched } = await readProjectFolders(this.vault);
    // An event during the reading may be of a folder added after readdir saw the entries.
    const keep = !unwatched && this.watch.covers(this.#root) && this.watch.invalidations === invalidations;
    this.#held = keep ? { folders, readAt } : undefined;
    return folders;
  }

  /** Let go (the idle release). */
  clear(): void {
    this.#held = undefined;
  }

  /** An event of the projects folder, of an entry in it, or of a folder above it: the listing may differ. */
  #changes(abs: string): boolean {
    return isInside(abs, this.#root) || path.dirname(abs) === this.#root;
  }
}

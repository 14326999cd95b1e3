import path from 'node:path';
import { type Clock, systemClock } from '../../clock.js';
import type { Logger } from '../../log.js';
import { isNotFound, isTempFile, tempFileOwner, type WalkedEntry, walkFiles } from '../../vault/files/fs.js';
import { Vault } from '../../vault/files/vault.js';
import { STATE_FOLDER } from '../../vault/files/state.js';
import { processIsAlive } from '../../instance/liveness.js';

/**
 * Temporary files that a killed process left behind. An atomic write never leaves a
 * half-written note, but a crash between creating its temporary file and the rename leaves
 * that file (a dot-file, so Obsidian hides it; sync tools do not). At start the daemon
 * removes the ones whose writer is gone: their pid is in the name.
 */

export interface SweepOptions {
  /** Default: a signal-0 probe of the pid. */
  isAlive?: (pid: number) => boolean;
  clock?: Clock;
  /** A temporary file older than this is garbage whoever made it (a pid reused, another machine's sync). */
  maxAgeMs?: number;
}

const DEFAULT_MAX_AGE_MS = 60 * 60 * 1000;

/** The folders the daemon and its tools write into, none inside another. */
export function writtenFolders(vault: Vault): string[] {
  const { folders, files } = vault.layout;
  return Vault.outermost([
    ...Object.values(folders),
    path.dirname(files.glossary),
    path.dirname(files.dictionary),
    path.join(vault.root, STATE_FOLDER),
  ]);
}

/** Removes leftover temporary files of dead writers below the written folders; returns their absolute paths. */
export async function sweepTempFiles(vault: Vault, log: Logger, options: SweepOptions = {}): Promise<string[]> {
  const isAlive = options.isAlive ?? processIsAlive;
  const clock = options.clock ?? systemClock;
  const maxAgeMs = options.maxAgeMs ?? DEFAULT_MAX_AGE_MS;
  const removed: string[] = [];
  const stateFolder = path.join(vault.root, STATE_FOLDER);
  // Obsidian's settings, git, the trash: nothing of ours is written there atomically.
  const enter = (name: string, abs: string) => !name.startsWith('.') || abs === stateFolder;
  const sweep = async ({ abs, entry }: WalkedEntry): Promise<void> => {
    if (!entry.isFile() || !isTempFile(entry.name)) return;
    const owner = tempFileOwner(entry.name);
    let stale = owner !== undefined && owner !== process.pid && !isAlive(owner);
    if (!stale) {
      const stat = await vault.fs.stat(abs).catch(() => undefined);
      stale = stat !== undefined && clock().getTime() - stat.mtimeMs > maxAgeMs;
    }
    if (!stale) return;
    try {
      await vault.fs.unlink(abs);
      removed.push(abs);
    } catch (err) {
      if (!isNotFound(err)) log.warn({ err, file: vault.rel(abs) }, 'could not remove a leftover temporary file');
    }
  };
  for (const folder of writtenFolders(vault)) await walkFiles(vault.fs, folder, { enter }, sweep);
  if (removed.length > 0) {
    log.info(
      { files: removed.map((f) => vault.rel(f)) },
      `removed ${removed.length} temporary file(s) left by an interrupted write (the notes themselves are whole)`,
    );
  }
  return removed;
}

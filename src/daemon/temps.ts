import path from 'node:path';
import type { Logger } from '../log.js';
import { isNotFound, isTempFile, tempFileOwner } from '../vault/fs.js';
import type { Vault } from '../vault/vault.js';
import { STATE_FOLDER } from './token.js';

/**
 * Temporary files that a killed process left behind. An atomic write never leaves a
 * half-written note, but a crash between creating its temporary file and the rename leaves
 * that file (a dot-file, so Obsidian hides it; sync tools do not). At start the daemon
 * removes the ones whose writer is gone: their pid is in the name.
 */

export interface SweepOptions {
  /** Default: a signal-0 probe of the pid. */
  isAlive?: (pid: number) => boolean;
  now?: () => number;
  /** A temporary file older than this is garbage whoever made it (a pid reused, another machine's sync). */
  maxAgeMs?: number;
}

const DEFAULT_MAX_AGE_MS = 60 * 60 * 1000;

export function processIsAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    // EPERM: it exists, it just is not ours to signal.
    return (err as { code?: string }).code === 'EPERM';
  }
}

/** The folders the daemon and its tools write into, none inside another. */
export function writtenFolders(vault: Vault): string[] {
  const { folders, files } = vault.layout;
  const all = [
    ...Object.values(folders),
    path.dirname(files.glossary),
    path.dirname(files.dictionary),
    path.join(vault.root, STATE_FOLDER),
  ].map((f) => path.resolve(f));
  const unique = [...new Set(all)];
  return unique.filter((f) => !unique.some((other) => other !== f && isBelow(other, f)));
}

function isBelow(folder: string, candidate: string): boolean {
  const r = path.relative(folder, candidate);
  return r !== '' && !r.startsWith('..') && !path.isAbsolute(r);
}

/** Removes leftover temporary files of dead writers below the written folders; returns their absolute paths. */
export async function sweepTempFiles(vault: Vault, log: Logger, options: SweepOptions = {}): Promise<string[]> {
  const isAlive = options.isAlive ?? processIsAlive;
  const now = options.now ?? Date.now;
  const maxAgeMs = options.maxAgeMs ?? DEFAULT_MAX_AGE_MS;
  const removed: string[] = [];
  const walk = async (dir: string): Promise<void> => {
    let entries;
    try {
      entries = await vault.fs.readdir(dir, { withFileTypes: true });
    } catch (err) {
      if (isNotFound(err) || (err as { code?: string }).code === 'ENOTDIR') return;
      throw err;
    }
    for (const entry of entries) {
      const full = path.join(dir, entry.name);
      if (entry.isDirectory()) {
        // Obsidian's settings, git, the trash: nothing of ours is written there atomically.
        if (!entry.name.startsWith('.') || full === path.join(vault.root, STATE_FOLDER)) await walk(full);
        continue;
      }
      if (!entry.isFile() || !isTempFile(entry.name)) continue;
      const owner = tempFileOwner(entry.name);
      let stale = owner !== undefined && owner !== process.pid && !isAlive(owner);
      if (!stale) {
        const stat = await vault.fs.stat(full).catch(() => undefined);
        stale = stat !== undefined && now() - stat.mtimeMs > maxAgeMs;
      }
      if (!stale) continue;
      try {
        await vault.fs.unlink(full);
        removed.push(full);
      } catch (err) {
        if (!isNotFound(err)) log.warn({ err, file: vault.rel(full) }, 'could not remove a leftover temporary file');
      }
    }
  };
  for (const folder of writtenFolders(vault)) await walk(folder);
  if (removed.length > 0) {
    log.info(
      { files: removed.map((f) => vault.rel(f)) },
      `removed ${removed.length} temporary file(s) left by an interrupted write (the notes themselves are whole)`,
    );
  }
  return removed;
}

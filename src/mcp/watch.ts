import { type FSWatcher, watch as fsWatch } from 'node:fs';
import path from 'node:path';
import { invalidate, stopTrustingWatcher, trustWatcher } from '../tools/file-cache.js';
import { walkFiles } from '../vault/fs.js';
import { Vault } from '../vault/vault.js';
import type { Logger } from '../log.js';

/**
 * The MCP server's watcher (docs/design.md §10): one `fs.watch` per folder of the meeting
 * notes, summaries and transcripts — a handful of inotify watches, not one per note as a
 * chokidar watcher of the whole vault would take — reporting every change there through
 * `invalidate`, so the caches (the meeting index, the search's texts) trust what they hold and
 * a warm call touches no file. Events can still be missed, so the caches re-check everything
 * every `maxTrustMs` anyway (tools/file-cache.ts); a folder that cannot be watched (a watch
 * limit reached) leaves the caches checking each file on every call, logged.
 */

export interface FolderWatcher {
  close(): void;
}

export async function watchMeetingFolders(vault: Vault, log: Logger): Promise<FolderWatcher> {
  const { folders } = vault.layout;
  const roots = Vault.outermost([folders.Meetings, folders.Summaries, folders.Transcripts]);
  const watchers = new Map<string, FSWatcher>();
  let failed = false;
  const add = (dir: string): void => {
    if (watchers.has(dir) || failed) return;
    try {
      const watcher = fsWatch(dir, { persistent: false }, (_event, name) => {
        const abs = name ? path.join(dir, name.toString()) : dir;
        invalidate(vault, abs);
        // A folder added (or renamed into place) is watched as well.
        if (name) void vault.fs.stat(abs).then((s) => (s.isDirectory() ? addTree(abs) : undefined), () => undefined);
      });
      watcher.on('error', () => {
        watcher.close();
        watchers.delete(dir);
        invalidate(vault, dir);
      });
      watchers.set(dir, watcher);
    } catch (err) {
      // Gone again already: nothing to watch.
      if ((err as { code?: string }).code === 'ENOENT') return;
      failed = true;
      log.warn({ folder: dir, err: (err as Error).message }, 'cannot watch the folder; every call checks each note instead');
    }
  };
  const addTree = async (dir: string): Promise<void> => {
    add(dir);
    const subfolders: string[] = [];
    await walkFiles(vault.fs, dir, { skip: (name) => name.startsWith('.'), enter: (_name, abs) => (subfolders.push(abs), true) }, () => undefined);
    for (const sub of subfolders) add(sub);
  };
  // A folder that does not exist yet stays untrusted: its notes are checked on every call.
  const existing: string[] = [];
  for (const root of roots) {
    if (!(await vault.fs.stat(root).then((st) => st.isDirectory(), () => false))) continue;
    existing.push(root);
    await addTree(root);
  }
  if (failed) {
    for (const w of watchers.values()) w.close();
    watchers.clear();
    stopTrustingWatcher(vault);
  } else trustWatcher(vault, existing);
  return {
    close() {
      stopTrustingWatcher(vault);
      for (const w of watchers.values()) w.close();
      watchers.clear();
    },
  };
}

import type { Logger } from '../log.js';
import type { FileWatch } from '../tools/cache/file-cache.js';
import { DirectoryWatcher } from '../vault/scan/dir-watch.js';
import { isSyncToolFile } from '../vault/files/sync-files.js';
import { Vault } from '../vault/files/vault.js';

/**
 * The MCP server's watcher (docs/design.md §10): the daemon's folder watcher (vault/scan/dir-watch.ts,
 * one `fs.watch` per folder, none per note) over the meeting notes, summaries and transcripts,
 * every event passed at once to `watch.invalidate`, so the caches (the meeting index, the
 * search's texts and plans) trust what they hold and a warm call touches no file. Events can
 * still be missed, so the caches re-check everything every `maxTrustMs` anyway
 * (tools/cache/file-cache.ts); a folder that cannot be watched (a watch limit reached) leaves the
 * caches checking each file on every call, logged.
 */

export interface FolderWatcher {
  close(): Promise<void>;
}

export async function watchMeetingFolders(vault: Vault, watch: FileWatch, log: Logger): Promise<FolderWatcher> {
  const { folders } = vault.layout;
  const roots: string[] = [];
  for (const root of Vault.outermost([folders.Meetings, folders.Summaries, folders.Transcripts])) {
    // A folder that does not exist yet stays untrusted: its notes are checked on every call.
    if (await vault.fs.stat(root).then((st) => st.isDirectory(), () => false)) roots.push(root);
  }
  let failed = false;
  const untrusted = (err: unknown, folder?: string): void => {
    if (failed) return;
    failed = true;
    watch.stopTrusting();
    log.warn({ err: (err as Error).message, ...(folder && { folder }) }, 'cannot watch the meeting folders; every call checks each note instead');
  };
  const watcher = new DirectoryWatcher({
    roots,
    ignored: (abs) => {
      const rel = vault.rel(abs);
      return rel.split('/').some((segment) => segment.startsWith('.')) || isSyncToolFile(abs);
    },
    onRaw: (abs) => watch.invalidate(abs),
    onSettled: () => undefined,
    // Nothing waits for a file to settle here: the caches were told at once (onRaw).
    quietMs: 50,
    onError: (err) => untrusted(err),
    // A folder the system will not watch (the inotify limit, EMFILE): its notes are checked on every call.
    onUnwatched: (folder, err) => untrusted(err, folder),
  });
  await watcher.ready;
  if (!failed) watch.trust(roots);
  return {
    async close() {
      watch.stopTrusting();
      await watcher.close();
    },
  };
}

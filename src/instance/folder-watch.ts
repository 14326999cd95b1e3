import { watch } from 'node:fs';

/**
 * Tells when a file in a folder changes (docs/design.md §2, two machines): the claim hears of
 * another machine's record the moment the sync tool brings it, instead of at its next
 * heartbeat (issue #45 point 1). `name` is the file's name, when the platform says it. A watch
 * that cannot start, or fails later, costs nothing but that speed: the heartbeat still reads
 * the folder.
 */
export type FolderWatch = (folder: string, onChange: (name: string | undefined) => void) => { close(): void };

export const watchFolder: FolderWatch = (folder, onChange) => {
  const watcher = watch(folder, { persistent: false }, (_event, name) => onChange(name === null ? undefined : String(name)));
  watcher.on('error', () => watcher.close());
  return { close: () => watcher.close() };
};

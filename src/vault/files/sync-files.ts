import path from 'node:path';
import { isTempFile } from './fs.js';

/**
 * Files that sync tools leave while syncing or on a conflict are not notes (docs/design.md
 * §4): a conflict copy of a failure report that says `retry: true`, of a transcript that says
 * `finished`, of a summary, is somebody's older or partial version of the real note. They are
 * never triggers, never listed, searched or resolved as links, and never written. One
 * predicate, used by the watcher, the catch-up scan, every listing and the vault's writes.
 */

/** Names of sync tools' own files, judged on the file's name alone (case-insensitive). */
const SYNC_NAME_PATTERNS: readonly RegExp[] = [
  // Syncthing: `Note.sync-conflict-20240101-120000-ABCDEFG.md`, temporaries `.syncthing.Note.md.tmp`, `~syncthing~Note.md.tmp`.
  /\.sync-conflict-/i,
  /\.syncthing\./i,
  /~syncthing~/i,
  // Obsidian Sync: `Note (Conflicted copy 2024-01-01 120000).md`.
  /\(conflicted copy/i,
  // Dropbox: `Note (Ann's conflicted copy 2024-01-01).md`.
  /conflicted copy/i,
  // Partial downloads and temporaries of many tools.
  /\.tmp$/i,
];

/** True when `fileOrName` (a name, or a path whose last segment is judged) is a sync tool's file. */
export function isSyncToolFile(fileOrName: string): boolean {
  const name = path.basename(fileOrName);
  return SYNC_NAME_PATTERNS.some((re) => re.test(name));
}

/**
 * Editors' temporary and swap files: vim (`*.swp`, `*.swx`, `*~`, the `4913` probe), emacs
 * (`.#*` locks, `#*#` autosaves), and our own atomic-write temporaries.
 */
export function isEditorTempName(name: string): boolean {
  return (
    name.startsWith('.') ||
    name.endsWith('~') ||
    /\.sw[a-p]$/i.test(name) ||
    /\.swx$/i.test(name) ||
    name === '4913' ||
    (name.startsWith('#') && name.endsWith('#')) ||
    /\.(tmp|temp|crdownload|part)$/i.test(name) ||
    isTempFile(name) ||
    // Sync tools' conflict copies and temporaries are not notes (docs/design.md §4).
    isSyncToolFile(name)
  );
}

import type { StatsLike } from './fs.js';

/**
 * What tells a cache that a file's bytes may have changed (docs/design.md §4). The
 * modification time alone does not: a sync tool (Obsidian Sync does) writes new bytes and sets
 * the old mtime back, and a rewrite of the same length then looks unchanged. The change time
 * cannot be set from user space and moves with every write and every `utimes`; the inode
 * moves with a rename over the file; both together with size and mtime are the version.
 */
export interface FileVersion {
  mtimeMs: number;
  ctimeMs: number;
  ino: number;
  size: number;
}

export function fileVersion(stats: StatsLike): FileVersion {
  return { mtimeMs: stats.mtimeMs, ctimeMs: stats.ctimeMs, ino: stats.ino, size: stats.size };
}

export function sameVersion(a: FileVersion, b: FileVersion): boolean {
  return a.mtimeMs === b.mtimeMs && a.ctimeMs === b.ctimeMs && a.ino === b.ino && a.size === b.size;
}

/** The version as a short string (signatures of several files). */
export function versionKey(v: FileVersion): string {
  return `${v.mtimeMs}:${v.ctimeMs}:${v.ino}:${v.size}`;
}

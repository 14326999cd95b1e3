import { createHash } from 'node:crypto';
import path from 'node:path';
import { cutToBytes, isTempFile, NAME_MAX_BYTES } from '../vault/files/fs.js';
import { isSyncToolFile } from '../vault/files/sync-files.js';

/**
 * Which files in the inbox are the import's (docs/design.md §9). Names sync tools and
 * browsers use while a file is still being written are never imported: a download or a
 * sync renames its file into place when it is complete, and that file is then imported.
 */

export const FAILURE_SUFFIX = ' (import failed).md';

/** `*.tmp`, `*.part`, `*.crdownload`, Syncthing's temporaries and conflicts, dot-files, our own temporaries, editors' backups: a superset of src/vault/files/sync-files.ts. */
export function isIgnoredInboxName(name: string): boolean {
  return (
    name.startsWith('.') ||
    name.startsWith('~syncthing~') ||
    name.startsWith('~$') ||
    name.endsWith('~') ||
    /\.(tmp|temp|part|partial|crdownload|download|opdownload|!ut)$/i.test(name) ||
    /\.sync-conflict-/i.test(name) ||
    /\.syncthing\./i.test(name) ||
    isTempFile(name) ||
    // The vault's own predicate (docs/design.md §4): a conflict copy is nobody's meeting either.
    isSyncToolFile(name)
  );
}

export function isFailureNote(name: string): boolean {
  return name.endsWith(FAILURE_SUFFIX);
}

/** The note beside a file that could not be imported. */
export function failureNoteOf(file: string): string {
  const name = path.basename(file);
  const note = `${name}${FAILURE_SUFFIX}`;
  if (Buffer.byteLength(note) <= NAME_MAX_BYTES) return path.join(path.dirname(file), note);
  // A name too long to take the suffix (docs/design.md §9 "Limits"): its start and a hash of
  // the whole, so that each file still has one note of its own. fileOfFailureNote cannot undo
  // this; the inbox finds such a note's file among the files beside it.
  const hash = createHash('sha256').update(name).digest('hex').slice(0, 8);
  const room = NAME_MAX_BYTES - Buffer.byteLength(FAILURE_SUFFIX) - Buffer.byteLength(` ${hash}`) - 3;
  return path.join(path.dirname(file), `${cutToBytes(name, room)}… ${hash}${FAILURE_SUFFIX}`);
}

/** The file a failure note is about (for a shortened note, a name that does not exist: see failureNoteOf). */
export function fileOfFailureNote(note: string): string {
  return path.join(path.dirname(note), path.basename(note).slice(0, -FAILURE_SUFFIX.length));
}

/**
 * What the inbox does with a file: import it, or pass over it. Unknown extensions are
 * imported too, so that they get their error note rather than lying there unexplained.
 */
export function isInboxCandidate(name: string): boolean {
  return !isIgnoredInboxName(name) && !isFailureNote(name);
}


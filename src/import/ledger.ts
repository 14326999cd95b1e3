import { createHash } from 'node:crypto';
import path from 'node:path';
import { type FileHandleLike, type Fs, readTextIfExists, writeFileAtomic } from '../vault/files/fs.js';
import { STATE_FOLDER } from '../vault/files/state.js';
import type { Vault } from '../vault/files/vault.js';

/**
 * What has been imported, by the SHA-256 of the file's bytes (docs/design.md §9: the same
 * content is not imported twice). One small file per hash in the state folder, written
 * atomically when an import completes.
 */

export interface LedgerEntry {
  /** Vault-relative paths. */
  meeting: string;
  source: string;
  importedAt: string;
}

const CHUNK = 1024 * 1024;

/**
 * A megabyte at a time, with a turn of the event loop between (docs/design.md §9): 20 MB
 * hashed at once held the daemon's thread for 50 ms and more on a busy machine.
 */
export async function contentHash(bytes: Uint8Array): Promise<string> {
  const hash = createHash('sha256');
  for (let at = 0; at < bytes.length; at += CHUNK) {
    if (at > 0) await new Promise((resolve) => setImmediate(resolve));
    hash.update(bytes.subarray(at, at + CHUNK));
  }
  return hash.digest('hex');
}

/** The hash of a file read a megabyte at a time: a recording of an hour is never held in memory. */
export async function fileHash(fs: Fs, file: string): Promise<string> {
  const handle = await fs.open(file, 'r');
  try {
    return await handleHash(handle);
  } finally {
    await handle.close();
  }
}

/** fileHash of a file already open (the import reads what it checked, not a name again). */
export async function handleHash(handle: FileHandleLike): Promise<string> {
  const hash = createHash('sha256');
  const buffer = new Uint8Array(CHUNK);
  for (let position = 0; ; ) {
    const { bytesRead } = await handle.read(buffer, 0, CHUNK, position);
    if (bytesRead === 0) break;
    hash.update(buffer.subarray(0, bytesRead));
    position += bytesRead;
  }
  return hash.digest('hex');
}

function entryPath(vault: Vault, hash: string): string {
  return path.join(vault.root, STATE_FOLDER, 'imported', `${hash}.json`);
}

/** The earlier import of this content, when its meeting note still exists (a deleted meeting may be imported again). */
export async function findImported(vault: Vault, hash: string): Promise<LedgerEntry | undefined> {
  const text = await readTextIfExists(vault.fs, entryPath(vault, hash));
  if (text === undefined) return undefined;
  let entry: LedgerEntry;
  try {
    entry = JSON.parse(text) as LedgerEntry;
  } catch {
    return undefined;
  }
  return typeof entry.meeting === 'string' && (await vault.exists(vault.abs(entry.meeting))) ? entry : undefined;
}

export async function recordImported(vault: Vault, hash: string, entry: LedgerEntry): Promise<void> {
  await writeFileAtomic(vault.fs, entryPath(vault, hash), JSON.stringify(entry) + '\n');
}

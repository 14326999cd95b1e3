import type { Fs } from '../vault/files/fs.js';
import { isNotFound } from '../vault/files/fs.js';
import { FileTooLargeError, NotRegularFileError, openRegular, readAllBounded } from '../vault/files/regular-file.js';

/**
 * A machine's record, read without trusting its size (docs/design.md §2; issue #43 point 4): a
 * record is a few hundred bytes, and one of 700 MB (a sync tool's accident, or anyone who can
 * write the vault) read whole at every heartbeat took the daemon to 1.5 GB. So the file is
 * stat'ed first and read through a handle up to the cap, never whole.
 */

/** Far above any record (~300 bytes), far below what would cost memory or time to read. */
export const MAX_RECORD_BYTES = 64 * 1024;

/** The text, or why the file is no record (not a plain file, too large); undefined when missing. */
export type SmallRead = { text: string } | { problem: string } | undefined;

export async function readSmallText(fs: Fs, file: string, max: number = MAX_RECORD_BYTES): Promise<SmallRead> {
  let stat;
  try {
    stat = await fs.lstat(file);
  } catch (err) {
    if (isNotFound(err)) return undefined;
    throw err;
  }
  if (!stat.isFile()) return { problem: 'it is not a plain file' };
  if (stat.size > max) return { problem: `it holds ${stat.size} bytes, more than a record's ${max}` };
  // Opened as every read of vault content is (regular-file.ts): a FIFO swapped in after the
  // look is refused on the handle, never waited on, and the read stops past the cap.
  try {
    const handle = await openRegular(fs, file);
    if (!handle) return undefined;
    try {
      return { text: (await readAllBounded(handle, max, file)).toString('utf8') };
    } finally {
      await handle.close().catch(() => undefined);
    }
  } catch (err) {
    if (err instanceof FileTooLargeError) return { problem: `it holds more than a record's ${max} bytes` };
    if (err instanceof NotRegularFileError) return { problem: 'it is not a plain file' };
    throw err;
  }
}

/** The text when the file is a record-sized plain file; undefined otherwise. */
export async function smallTextOrUndefined(fs: Fs, file: string): Promise<string | undefined> {
  const read = await readSmallText(fs, file).catch(() => undefined);
  return read && 'text' in read ? read.text : undefined;
}

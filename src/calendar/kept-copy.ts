import path from 'node:path';
import { type Fs, readTextIfExists, writeFileAtomic } from '../vault/files/fs.js';
import type { Validators } from './fetch-source.js';

/**
 * A source's last good copy under `.meeting-assistant/calendar/` (docs/design.md §12): what it
 * held when last read, when, and a URL's validators for the next conditional request. A daemon
 * started offline reads the day's events from it. Written atomically: a crash leaves the old copy.
 */

export interface KeptCopy {
  texts: string[];
  validators: Validators;
  /** ISO 8601 UTC. */
  readAt: string;
}

export const KEPT_FOLDER = 'calendar';

function keptFile(stateDir: string, keptAs: string): string {
  return path.join(stateDir, KEPT_FOLDER, `${keptAs}.json`);
}

export async function readKeptCopy(fs: Fs, stateDir: string, keptAs: string): Promise<KeptCopy | undefined> {
  const text = await readTextIfExists(fs, keptFile(stateDir, keptAs));
  if (text === undefined) return undefined;
  const value = JSON.parse(text) as Partial<KeptCopy>;
  if (!Array.isArray(value.texts) || typeof value.readAt !== 'string' || Number.isNaN(Date.parse(value.readAt))) return undefined;
  return { texts: value.texts.filter((t) => typeof t === 'string'), validators: value.validators ?? {}, readAt: value.readAt };
}

export async function writeKeptCopy(fs: Fs, stateDir: string, keptAs: string, copy: KeptCopy): Promise<void> {
  // Private to the user: the copy is the calendar itself (0600).
  await writeFileAtomic(fs, keptFile(stateDir, keptAs), JSON.stringify(copy), { mode: 0o600 });
}

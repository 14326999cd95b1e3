import { createHash } from 'node:crypto';
import path from 'node:path';
import type { Clock } from '../clock.js';
import { readTextIfExists, writeFileAtomic } from '../vault/files/fs.js';
import { STATE_FOLDER } from '../vault/files/state.js';
import type { Vault } from '../vault/files/vault.js';
import { type HolderProbe, holderRuns, parseHolder, systemProbe } from './liveness.js';

/**
 * A `summarize` or `retry` run from the command line while no daemon runs on the vault
 * (docs/design.md §2): for as long as it runs it leaves a marker naming its process in
 * `.meeting-assistant/cli-runs/`, so that a daemon started meanwhile does not run the same
 * meeting at the same time. The daemon skips such a job; its catch-up finds the meeting again
 * once the command has ended (finished, or killed: its marker then names no live process).
 */

const FOLDER = 'cli-runs';

function markerFile(vault: Vault, key: string): string {
  const id = createHash('sha256').update(vault.rel(key)).digest('hex').slice(0, 16);
  return path.join(vault.root, STATE_FOLDER, FOLDER, `${id}.json`);
}

/** A command-line run that has the meeting: its process and its command. */
export interface CliRun {
  pid: number;
  command: string;
}

/**
 * Marks the meeting (the queue's key: the meeting note, or the summary when it has none) as
 * run by this process's `command`.
 */
export async function markCliRun(vault: Vault, key: string, command: 'summarize' | 'retry', clock: Clock): Promise<{ release(): Promise<void> }> {
  const file = markerFile(vault, key);
  await vault.fs.mkdir(path.dirname(file), { recursive: true, mode: 0o700 });
  // `meeting` is for a person looking into the folder.
  const mine = { pid: process.pid, command, meeting: vault.rel(key), startedAt: clock().toISOString() };
  await writeFileAtomic(vault.fs, file, JSON.stringify(mine) + '\n');
  return {
    async release() {
      const now = await readTextIfExists(vault.fs, file).catch(() => undefined);
      if (parseHolder(now)?.pid === process.pid) await vault.fs.unlink(file).catch(() => undefined);
    },
  };
}

/**
 * The command-line run of this meeting going on now, else undefined. A marker whose process is
 * gone (or is no meeting-assistant) is stale and removed.
 */
export async function cliRunOf(vault: Vault, key: string, probe: HolderProbe = systemProbe): Promise<CliRun | undefined> {
  const file = markerFile(vault, key);
  const text = await readTextIfExists(vault.fs, file).catch(() => undefined);
  if (text === undefined) return undefined;
  const marker = parseHolder(text);
  if (marker && (await holderRuns(marker, new Set(), probe))) return { pid: marker.pid, command: marker.command ?? 'summarize' };
  await vault.fs.unlink(file).catch(() => undefined);
  return undefined;
}

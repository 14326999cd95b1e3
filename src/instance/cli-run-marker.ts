import { createHash } from 'node:crypto';
import path from 'node:path';
import type { Clock } from '../clock.js';
import { readTextIfExists, writeFileAtomic } from '../vault/files/fs.js';
import type { Vault } from '../vault/files/vault.js';
import { type HolderProbe, holderRuns, parseHolder, systemProbe } from './liveness.js';
import { cliRunsFolder, ensureRuntimeFolder, existingRuntimeFolder, realVaultRoot } from './runtime-folder.js';

/**
 * A `summarize` or `retry` run from the command line while no daemon runs on the vault
 * (docs/design.md §2): for as long as it runs it leaves a marker naming its process in this
 * user's runtime folder (runtime-folder.ts: `<vault's hash>.cli-runs/`), so that a daemon
 * started meanwhile on this machine does not run the same meeting at the same time. The
 * daemon skips such a job; its catch-up finds the meeting again once the command has ended
 * (finished, or killed: its marker then names no live process). Not in the vault: a pid means
 * something on this machine only, and a marker there, carried by a sync tool or forged,
 * would hold a meeting back on every machine (issue #43 point 2).
 */

async function markerFile(vault: Vault, key: string, folder: string): Promise<string> {
  const id = createHash('sha256').update(vault.rel(key)).digest('hex').slice(0, 16);
  return path.join(cliRunsFolder(folder, await realVaultRoot(vault)), `${id}.json`);
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
export async function markCliRun(vault: Vault, key: string, command: 'summarize' | 'retry', clock: Clock, env: NodeJS.ProcessEnv = process.env): Promise<{ release(): Promise<void> }> {
  const file = await markerFile(vault, key, await ensureRuntimeFolder(vault.fs, env));
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
export async function cliRunOf(vault: Vault, key: string, probe: HolderProbe = systemProbe, env: NodeJS.ProcessEnv = process.env): Promise<CliRun | undefined> {
  // A runtime folder that is not private holds no marker this daemon believes.
  const folder = await existingRuntimeFolder(vault.fs, env).catch(() => undefined);
  if (folder === undefined) return undefined;
  const file = await markerFile(vault, key, folder);
  const text = await readTextIfExists(vault.fs, file).catch(() => undefined);
  if (text === undefined) return undefined;
  const marker = parseHolder(text);
  if (marker && (await holderRuns(marker, new Set(), probe))) return { pid: marker.pid, command: marker.command ?? 'summarize' };
  await vault.fs.unlink(file).catch(() => undefined);
  return undefined;
}

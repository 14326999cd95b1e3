import path from 'node:path';
import { isNotFound, readTextIfExists, writeFileAtomic } from '../../vault/files/fs.js';
import type { Vault } from '../../vault/files/vault.js';
import type { Job, JobKind } from './queue.js';
import { STATE_FOLDER } from '../../vault/files/state.js';

/**
 * Jobs a clean stop left unstarted (or aborted), kept in `<vault>/.meeting-assistant/queue.json`
 * and enqueued again at the next start. Catch-up finds most of them from the notes anyway; a
 * retry asked for by link or API leaves no trace in the notes, so without this it would be lost.
 */

const FILE = 'queue.json';

interface Stored {
  key: string;
  kind: JobKind;
  target: string;
  trigger: string;
}

/**
 * The trigger of a job resumed at start: what first started it, then `, resumed` once, however
 * many restarts it went through (the logs' and the run history's `trigger` stays bounded).
 */
export function resumedTrigger(trigger: string): string {
  return `${trigger.replace(/(, resumed)+$/, '')}, resumed`;
}

function fileOf(vault: Vault): string {
  return path.join(vault.root, STATE_FOLDER, FILE);
}

export async function saveLeftover(vault: Vault, jobs: Job[]): Promise<void> {
  const file = fileOf(vault);
  if (jobs.length === 0) {
    await vault.fs.unlink(file).catch((err: unknown) => {
      if (!isNotFound(err)) throw err;
    });
    return;
  }
  // Vault-relative, so a vault moved or synced elsewhere still finds its jobs.
  const stored: Stored[] = jobs.map((j) => ({ key: vault.rel(j.key), kind: j.kind, target: vault.rel(j.target), trigger: j.trigger }));
  await vault.fs.mkdir(path.dirname(file), { recursive: true, mode: 0o700 });
  await writeFileAtomic(vault.fs, file, JSON.stringify({ version: 1, jobs: stored }, null, 2) + '\n');
}

/** The jobs saved at the last stop (then forgotten); entries that make no sense are dropped. */
export async function takeLeftover(vault: Vault): Promise<Job[]> {
  const file = fileOf(vault);
  const text = await readTextIfExists(vault.fs, file);
  if (text === undefined) return [];
  await vault.fs.unlink(file).catch(() => undefined);
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    return [];
  }
  const list = (parsed as { jobs?: unknown }).jobs;
  if (!Array.isArray(list)) return [];
  const jobs: Job[] = [];
  for (const item of list as Partial<Stored>[]) {
    if (typeof item?.key !== 'string' || typeof item.target !== 'string' || typeof item.trigger !== 'string') continue;
    if (item.kind !== 'summarize' && item.kind !== 'retry') continue;
    const key = vault.abs(item.key);
    const target = vault.abs(item.target);
    if (!vault.contains(key) || !vault.contains(target)) continue;
    jobs.push({ key, kind: item.kind, target, trigger: item.trigger });
  }
  return jobs;
}

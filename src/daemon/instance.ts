import path from 'node:path';
import { type Clock, systemClock } from '../clock.js';
import type { Fs } from '../vault/fs.js';
import { isNotFound, readTextIfExists, writeFileAtomic } from '../vault/fs.js';
import type { Vault } from '../vault/vault.js';
import { processIsAlive } from './temps.js';
import { localBaseUrl, STATE_FOLDER } from '../vault/state.js';
import type { Settings } from '../config.js';
import { MeetingAssistantError } from '../errors.js';

/**
 * One daemon per vault (docs/design.md §2): `<vault>/.meeting-assistant/daemon.json` names the
 * daemon that runs on the vault (pid, HTTP address). It is created exclusively at start and
 * removed at stop; one left by a process that is gone (a crash, SIGKILL) is stale and taken
 * over. The one-shot commands read it to hand their work to the running daemon.
 */

export interface DaemonInstance {
  pid: number;
  startedAt: string;
  /** The HTTP API's base URL; undefined when `Http.Enabled` is false. */
  http?: string;
}

export class DaemonRunningError extends MeetingAssistantError {
  constructor(
    readonly holder: DaemonInstance,
    vaultRoot: string,
  ) {
    super(
      `another daemon already runs on the vault ${vaultRoot}: pid ${holder.pid}` +
        `${holder.http ? `, HTTP ${holder.http}` : ', HTTP off'} (since ${holder.startedAt}); stop it first, or give this one another vault`,
      true,
    );
  }
}

export function instanceFile(vault: Vault): string {
  return path.join(vault.root, STATE_FOLDER, 'daemon.json');
}

function parseInstance(text: string | undefined): DaemonInstance | undefined {
  if (text === undefined) return undefined;
  try {
    const value = JSON.parse(text) as Partial<DaemonInstance>;
    if (typeof value.pid !== 'number' || !Number.isInteger(value.pid) || value.pid <= 0) return undefined;
    return { pid: value.pid, startedAt: String(value.startedAt ?? ''), ...(typeof value.http === 'string' && { http: value.http }) };
  } catch {
    return undefined;
  }
}

/** The daemon running on the vault now, if any (a stale file names none). */
export async function liveDaemon(vault: Vault): Promise<DaemonInstance | undefined> {
  const found = parseInstance(await readTextIfExists(vault.fs, instanceFile(vault)));
  return found && processIsAlive(found.pid) ? found : undefined;
}

/**
 * The base URL of the vault's daemon: the address the live daemon recorded (it keeps the port
 * it started with when the configuration has changed since), else the configured one.
 */
export async function daemonBaseUrl(vault: Vault, http: Settings['Http']): Promise<string> {
  return (await liveDaemon(vault))?.http ?? localBaseUrl(http);
}

async function createExclusive(fs: Fs, file: string, content: string): Promise<boolean> {
  try {
    const handle = await fs.open(file, 'wx', 0o644);
    try {
      await handle.writeFile(content);
      await handle.sync();
    } finally {
      await handle.close();
    }
    return true;
  } catch (err) {
    if ((err as { code?: unknown }).code === 'EEXIST') return false;
    throw err;
  }
}

export interface InstanceLock {
  /** Records the HTTP address once the server listens. */
  setHttp(url: string | undefined): Promise<void>;
  /** Removes the file when it is still ours. */
  release(): Promise<void>;
}

/**
 * Claims the vault for this process; throws DaemonRunningError naming the live holder. A
 * stale file (its process is gone, or it does not parse) is replaced.
 */
export async function claimVault(vault: Vault, clock: Clock = systemClock): Promise<InstanceLock> {
  const file = instanceFile(vault);
  await vault.fs.mkdir(path.dirname(file), { recursive: true, mode: 0o700 });
  const mine: DaemonInstance = { pid: process.pid, startedAt: clock().toISOString() };
  const render = () => JSON.stringify(mine, null, 2) + '\n';
  for (let attempt = 0; attempt < 3; attempt++) {
    if (await createExclusive(vault.fs, file, render())) break;
    const holder = parseInstance(await readTextIfExists(vault.fs, file));
    if (holder && processIsAlive(holder.pid)) throw new DaemonRunningError(holder, vault.root);
    // Stale: its process is gone. Removing it and creating ours exclusively again means two
    // daemons starting at once cannot both win.
    await vault.fs.unlink(file).catch((err: unknown) => {
      if (!isNotFound(err)) throw err;
    });
    if (attempt === 2) throw new Error(`cannot claim the vault: ${file} keeps reappearing`);
  }
  const isOurs = async () => parseInstance(await readTextIfExists(vault.fs, file))?.pid === process.pid;
  return {
    async setHttp(url) {
      if (url) mine.http = url;
      if (await isOurs()) await writeFileAtomic(vault.fs, file, render());
    },
    async release() {
      if (await isOurs()) await vault.fs.unlink(file).catch(() => undefined);
    },
  };
}

import { createHash, randomUUID } from 'node:crypto';
import path from 'node:path';
import { setTimeout as delay } from 'node:timers/promises';
import { type Clock, systemClock } from '../clock.js';
import type { Fs } from '../vault/files/fs.js';
import { isNotFound, readTextIfExists, statIfExists, writeFileAtomic } from '../vault/files/fs.js';
import type { Vault } from '../vault/files/vault.js';
import { type HolderProbe, holderRuns, parseHolder, systemProbe } from './liveness.js';
import { localBaseUrl, STATE_FOLDER } from '../vault/files/state.js';
import type { Settings } from '../config.js';
import { MeetingAssistantError } from '../errors.js';
import { machineName } from './machine-name.js';

/**
 * One daemon per vault on this machine (docs/design.md §2):
 * `<vault>/.meeting-assistant/machines/<machine>.json` names the daemon that runs on the vault
 * here (pid, HTTP address; and, for the other machines a sync tool shares the vault with, its
 * role and heartbeat: vault-claim.ts). It is created exclusively at start and removed at stop;
 * one left by a process that is gone (a crash, SIGKILL), or whose pid now belongs to another
 * process (holder.ts), is stale and taken over. A pid means something on this machine only,
 * so each machine has a file of its own, which no other machine writes. The one-shot commands
 * read it to hand their work to the running daemon. `daemon.json`, where earlier versions
 * kept the claim, is still honoured while its daemon runs (an upgrade with the old service up).
 */

export interface DaemonInstance {
  pid: number;
  startedAt: string;
  /** The HTTP API's base URL; undefined when `Http.Enabled` is false. */
  http?: string;
}

/** The folder of the machines' claims (vault-claim.ts reads the others'). */
export function machinesFolder(vault: Vault): string {
  return path.join(vault.root, STATE_FOLDER, 'machines');
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

/** This machine's claim file (machine-name.ts gives the name). */
export function instanceFile(vault: Vault, machine: string = machineName('')): string {
  return path.join(machinesFolder(vault), `${machine}.json`);
}

/** Where versions before the two-machine claim kept it. */
function legacyInstanceFile(vault: Vault): string {
  return path.join(vault.root, STATE_FOLDER, 'daemon.json');
}

interface Entry {
  instance: DaemonInstance;
  claim?: string;
}

function parseEntry(text: string | undefined): Entry | undefined {
  const record = parseHolder(text);
  if (!record) return undefined;
  const { claim, pid, startedAt, http } = record;
  return { instance: { pid, startedAt, ...(http !== undefined && { http }) }, ...(claim !== undefined && { claim }) };
}

/** The claims this process holds (a daemon's, or several in one test process). */
const ownClaims = new Set<string>();

function runs(entry: Entry, probe: HolderProbe): Promise<boolean> {
  return holderRuns({ ...entry.instance, ...(entry.claim !== undefined && { claim: entry.claim }) }, ownClaims, probe);
}

/** The holder of one claim file when it runs now (a stale file names none: see holder.ts). */
export async function runningHolder(vault: Vault, file: string, probe: HolderProbe): Promise<{ instance: DaemonInstance; role?: unknown } | undefined> {
  const text = await readTextIfExists(vault.fs, file);
  const found = parseEntry(text);
  if (!found || !(await runs(found, probe))) return undefined;
  return { instance: found.instance, role: roleIn(text) };
}

function roleIn(text: string | undefined): unknown {
  try {
    return (JSON.parse(text ?? '') as { role?: unknown }).role;
  } catch {
    return undefined;
  }
}

/**
 * The daemon that runs the vault on this machine now, if any: a standby (another machine is
 * active, vault-claim.ts) is none, since it takes no work.
 */
export async function liveDaemon(vault: Vault, probe: HolderProbe = systemProbe, machine: string = machineName('')): Promise<DaemonInstance | undefined> {
  const found = (await runningHolder(vault, instanceFile(vault, machine), probe)) ?? (await runningHolder(vault, legacyInstanceFile(vault), probe));
  return found && (found.role === undefined || found.role === 'active') ? found.instance : undefined;
}

/**
 * The base URL of the vault's daemon: the address the live daemon recorded (it keeps the port
 * it started with when the configuration has changed since), else the configured one.
 */
export async function daemonBaseUrl(vault: Vault, http: Settings['Http'], probe: HolderProbe = systemProbe, machine: string = machineName('')): Promise<string> {
  return (await liveDaemon(vault, probe, machine))?.http ?? localBaseUrl(http);
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
  /**
   * Rewrites the file with these fields besides pid, claim and address (the machine's role and
   * heartbeat) when it is still ours; false when it is not.
   */
  update(fields: Record<string, unknown>): Promise<boolean>;
  /** Writes the file again when it is gone (removed by a person, or by a sync tool carrying a removal). */
  restore(): Promise<boolean>;
  /** Writes the file again whatever it holds now (a sync tool left it spoilt, or old: vault-claim.ts). */
  replace(): Promise<void>;
  /**
   * Gives the claim up: the file is removed when it is still ours, or, given `last`, left with
   * those fields (a machine's last word to the others, vault-claim.ts).
   */
  release(last?: Record<string, unknown>): Promise<void>;
}

/**
 * Claims the vault for this process; throws DaemonRunningError naming the live holder. A
 * stale file (no daemon runs as its holder, or it does not parse) is taken over.
 */
export async function claimVault(
  vault: Vault,
  clock: Clock = systemClock,
  probe: HolderProbe = systemProbe,
  machine: string = machineName(''),
  fields: Record<string, unknown> = {},
): Promise<InstanceLock> {
  const file = instanceFile(vault, machine);
  await vault.fs.mkdir(path.dirname(file), { recursive: true, mode: 0o700 });
  const legacy = await runningHolder(vault, legacyInstanceFile(vault), probe);
  if (legacy) throw new DaemonRunningError(legacy.instance, vault.root);
  const mine: DaemonInstance = { pid: process.pid, startedAt: clock().toISOString() };
  const claim = randomUUID();
  let extra = fields;
  const render = () => JSON.stringify({ ...mine, claim, ...extra }, null, 2) + '\n';
  ownClaims.add(claim);
  try {
    await acquire(vault, file, render(), probe);
  } catch (err) {
    ownClaims.delete(claim);
    throw err;
  }
  const isOurs = async () => parseEntry(await readTextIfExists(vault.fs, file))?.claim === claim;
  const rewrite = async () => {
    if (!(await isOurs())) return false;
    await writeFileAtomic(vault.fs, file, render());
    return true;
  };
  return {
    async setHttp(url) {
      if (url) mine.http = url;
      await rewrite();
    },
    update(next) {
      extra = next;
      return rewrite();
    },
    async restore() {
      if (await statIfExists(vault.fs, file)) return false;
      await writeFileAtomic(vault.fs, file, render());
      return true;
    },
    replace: () => writeFileAtomic(vault.fs, file, render()),
    async release(last) {
      if (last) {
        delete mine.http;
        extra = last;
        await rewrite().catch(() => undefined);
      } else if (await isOurs()) await vault.fs.unlink(file).catch(() => undefined);
      ownClaims.delete(claim);
    },
  };
}

/** An empty file younger than this is a claim being written (open, then write), not a stale one. */
const BEING_WRITTEN_MS = 2000;
const MAX_ATTEMPTS = 500;

/**
 * Creating the file exclusively is the only way to win; a stale file is first removed by
 * takeOver, which removes only that very content, so two claimants that both read the stale
 * file cannot remove each other's fresh claim.
 */
async function acquire(vault: Vault, file: string, content: string, probe: HolderProbe): Promise<void> {
  const { fs } = vault;
  for (let attempt = 0; attempt < MAX_ATTEMPTS; attempt++) {
    if (await createExclusive(fs, file, content)) return;
    const text = await readTextIfExists(fs, file);
    if (text === undefined) continue;
    if (text.trim() === '') {
      const stat = await statIfExists(fs, file);
      if (stat && Date.now() - stat.mtimeMs < BEING_WRITTEN_MS) {
        await delay(5);
        continue;
      }
    }
    const entry = parseEntry(text);
    if (entry && (await runs(entry, probe))) throw new DaemonRunningError(entry.instance, vault.root);
    await takeOver(fs, file, text);
  }
  throw new Error(`cannot claim the vault: ${file} keeps changing`);
}

/** A takeover lock older than this was left by a claimant that crashed while holding it. */
const TAKEOVER_STALE_MS = 10_000;

/**
 * Removes `file` if it still holds the stale `text`, under a lock named after that content:
 * of the claimants that read it, one removes it, and none removes anything else (every claim
 * has its own id, so a stale content never comes back).
 */
async function takeOver(fs: Fs, file: string, text: string): Promise<void> {
  const lock = `${file}.takeover-${createHash('sha256').update(text).digest('hex').slice(0, 16)}`;
  if (!(await createExclusive(fs, lock, `${process.pid}\n`))) {
    const stat = await statIfExists(fs, lock);
    if (stat && Date.now() - stat.mtimeMs > TAKEOVER_STALE_MS) await fs.unlink(lock).catch(() => undefined);
    else await delay(5);
    return;
  }
  try {
    if ((await readTextIfExists(fs, file)) === text) {
      await fs.unlink(file).catch((err: unknown) => {
        if (!isNotFound(err)) throw err;
      });
    }
  } finally {
    await fs.unlink(lock).catch(() => undefined);
  }
}

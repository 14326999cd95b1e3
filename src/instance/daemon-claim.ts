import { createHash, randomUUID } from 'node:crypto';
import path from 'node:path';
import { setTimeout as delay } from 'node:timers/promises';
import { type Clock, systemClock } from '../clock.js';
import type { Fs } from '../vault/files/fs.js';
import { isNotFound, readTextIfExists, statIfExists, writeFileAtomic } from '../vault/files/fs.js';
import type { Vault } from '../vault/files/vault.js';
import { smallTextOrUndefined } from './small-file.js';
import { daemonRecordFile, ensureRuntimeFolder, existingRuntimeFolder, realVaultRoot } from './runtime-folder.js';
import { type HolderProbe, holderRuns, parseHolder, systemProbe } from './liveness.js';
import { localBaseUrl, STATE_FOLDER } from '../vault/files/state.js';
import type { Settings } from '../config.js';
import { MeetingAssistantError } from '../errors.js';
import { machineName } from './machine-name.js';

/**
 * One daemon per vault on this machine (docs/design.md §2): the daemon's record in this user's
 * runtime folder (runtime-folder.ts), outside the vault, names it (pid, claim, HTTP address,
 * role). It is created exclusively at start and removed at stop; one left by a process that
 * is gone (a crash, SIGKILL), or whose pid now belongs to another process (liveness.ts), is
 * stale and taken over. The one-shot commands read it, and only it, to hand their work to the
 * running daemon: no sync tool carries it and no one else can write it, so the token goes to
 * this machine's daemon and to nothing a file in the vault names (issue #43 point 2).
 *
 * For the other machines a sync tool shares the vault with, the daemon also keeps
 * `<vault>/.meeting-assistant/machines/<machine>.json`: its role and heartbeat
 * (vault-claim.ts). That record is judged by its heartbeat only; its pid and any address in it
 * mean nothing here.
 */

export interface DaemonInstance {
  pid: number;
  startedAt: string;
  /** The HTTP API's base URL; undefined when `Http.Enabled` is false. */
  http?: string;
}

/** The folder of the machines' records (vault-claim.ts reads the others'). */
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

/** This machine's record in the vault, for the other machines (machine-name.ts gives the name). */
export function instanceFile(vault: Vault, machine: string = machineName('')): string {
  return path.join(machinesFolder(vault), `${machine}.json`);
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

/** How the commands and the daemon find the record: the process's environment and probe by default. */
export interface PlaceOptions {
  env?: NodeJS.ProcessEnv;
  probe?: HolderProbe;
}

/** The record's file for this vault, when the runtime folder exists. */
async function localRecordFile(vault: Vault, env: NodeJS.ProcessEnv): Promise<{ file: string; realRoot: string } | undefined> {
  const folder = await existingRuntimeFolder(vault.fs, env);
  if (folder === undefined) return undefined;
  const realRoot = await realVaultRoot(vault);
  return { file: daemonRecordFile(folder, realRoot), realRoot };
}

function fieldOf(text: string | undefined, key: string): unknown {
  try {
    return (JSON.parse(text ?? '') as Record<string, unknown>)[key];
  } catch {
    return undefined;
  }
}

/** This machine's daemon of the vault when it runs now, whatever its role; undefined otherwise. */
export async function localHolder(vault: Vault, o: PlaceOptions = {}): Promise<{ instance: DaemonInstance; role?: unknown } | undefined> {
  const place = await localRecordFile(vault, o.env ?? process.env);
  if (!place) return undefined;
  const text = await readTextIfExists(vault.fs, place.file);
  const found = parseEntry(text);
  // The vault's path is in the record too: a hash names the file, the path proves the match.
  if (!found || fieldOf(text, 'vault') !== place.realRoot || !(await runs(found, o.probe ?? systemProbe))) return undefined;
  return { instance: found.instance, role: fieldOf(text, 'role') };
}

/**
 * The daemon that runs the vault on this machine now, if any: a standby (another machine is
 * active, vault-claim.ts) is none, since it takes no work.
 */
export async function liveDaemon(vault: Vault, o: PlaceOptions = {}): Promise<DaemonInstance | undefined> {
  const found = await localHolder(vault, o);
  return found && (found.role === undefined || found.role === 'active') ? found.instance : undefined;
}

/**
 * The base URL of the vault's daemon: the address the live daemon recorded (it keeps the port
 * it started with when the configuration has changed since), else the configured one.
 */
export async function daemonBaseUrl(vault: Vault, http: Settings['Http'], o: PlaceOptions = {}): Promise<string> {
  return (await liveDaemon(vault, o))?.http ?? localBaseUrl(http);
}

async function createExclusive(fs: Fs, file: string, content: string, mode: number): Promise<boolean> {
  try {
    const handle = await fs.open(file, 'wx', mode);
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
  /** Records the HTTP address once the server listens (in the local record only). */
  setHttp(url: string | undefined): Promise<void>;
  /**
   * Rewrites the vault's record with these fields besides pid and claim (the machine's role
   * and heartbeat) when it is still ours, and the local record's role; false when the vault's
   * record is not ours.
   */
  update(fields: Record<string, unknown>): Promise<boolean>;
  /** Writes the vault's record again when it is gone (removed by a person, or by a sync tool carrying a removal). */
  restore(): Promise<boolean>;
  /** Writes the vault's record again whatever it holds now (a sync tool left it spoilt, or old: vault-claim.ts). */
  replace(): Promise<void>;
  /**
   * Gives the claim up: the local record is removed; the vault's record is removed when it is
   * still ours, or, given `last`, left with those fields (a machine's last word to the others,
   * vault-claim.ts).
   */
  release(last?: Record<string, unknown>): Promise<void>;
}

export interface ClaimOptions extends PlaceOptions {
  clock?: Clock;
  machine?: string;
  /** The vault record's fields besides pid and claim (vault-claim.ts: role, heartbeat). */
  fields?: Record<string, unknown>;
}

/**
 * Claims the vault for this process on this machine; throws DaemonRunningError naming the live
 * holder. A stale local record (no daemon runs as its holder, or it does not parse) is taken
 * over. Whatever the vault's record of this machine holds (a sync tool's copy, a forgery) has
 * no say in it.
 */
export async function claimVault(vault: Vault, o: ClaimOptions = {}): Promise<InstanceLock> {
  const { fs } = vault;
  const clock = o.clock ?? systemClock;
  const probe = o.probe ?? systemProbe;
  const folder = await ensureRuntimeFolder(fs, o.env ?? process.env);
  const realRoot = await realVaultRoot(vault);
  const local = daemonRecordFile(folder, realRoot);
  const synced = instanceFile(vault, o.machine ?? machineName(''));
  const mine: DaemonInstance = { pid: process.pid, startedAt: clock().toISOString() };
  const claim = randomUUID();
  let extra = o.fields ?? {};
  const role = () => (typeof extra.role === 'string' ? { role: extra.role } : {});
  const renderLocal = () => JSON.stringify({ vault: realRoot, ...mine, claim, ...role() }, null, 2) + '\n';
  const renderSynced = () => JSON.stringify({ pid: mine.pid, startedAt: mine.startedAt, claim, ...extra }, null, 2) + '\n';
  ownClaims.add(claim);
  try {
    await acquire(fs, local, renderLocal(), probe, vault.root);
  } catch (err) {
    ownClaims.delete(claim);
    throw err;
  }
  // The vault's record is read with a cap: anyone who can write the vault can make it huge (small-file.ts).
  const ours = async (file: string) => parseEntry(await smallTextOrUndefined(fs, file))?.claim === claim;
  const rewriteLocal = async () => {
    if (await ours(local)) await writeFileAtomic(fs, local, renderLocal(), { mode: 0o600 });
  };
  const rewriteSynced = async () => {
    if (!(await ours(synced))) return false;
    await writeFileAtomic(fs, synced, renderSynced());
    return true;
  };
  try {
    await fs.mkdir(path.dirname(synced), { recursive: true, mode: 0o700 });
    await writeFileAtomic(fs, synced, renderSynced());
  } catch (err) {
    ownClaims.delete(claim);
    await fs.unlink(local).catch(() => undefined);
    throw err;
  }
  return {
    async setHttp(url) {
      if (url) mine.http = url;
      await rewriteLocal();
    },
    async update(next) {
      extra = next;
      await rewriteLocal();
      return rewriteSynced();
    },
    async restore() {
      if (await statIfExists(fs, synced)) return false;
      await writeFileAtomic(fs, synced, renderSynced());
      return true;
    },
    replace: () => writeFileAtomic(fs, synced, renderSynced()),
    async release(last) {
      if (last) {
        extra = last;
        await rewriteSynced().catch(() => undefined);
      } else if (await ours(synced)) await fs.unlink(synced).catch(() => undefined);
      if (await ours(local)) await fs.unlink(local).catch(() => undefined);
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
async function acquire(fs: Fs, file: string, content: string, probe: HolderProbe, vaultRoot: string): Promise<void> {
  for (let attempt = 0; attempt < MAX_ATTEMPTS; attempt++) {
    if (await createExclusive(fs, file, content, 0o600)) return;
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
    if (entry && (await runs(entry, probe))) throw new DaemonRunningError(entry.instance, vaultRoot);
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
  if (!(await createExclusive(fs, lock, `${process.pid}\n`, 0o600))) {
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

import { createHash } from 'node:crypto';
import os from 'node:os';
import path from 'node:path';
import { MeetingAssistantError } from '../errors.js';
import { isNotFound, type Fs } from '../vault/files/fs.js';
import type { Vault } from '../vault/files/vault.js';

/**
 * Where this machine's daemon of a vault is (docs/design.md §2, "where a command finds its
 * daemon"): a record in a folder of this user's that no sync tool carries and no one else can
 * write, `$XDG_RUNTIME_DIR/meeting-assistant/` (else `<temp>/meeting-assistant-<uid>/`), one
 * file per vault, named by a hash of the vault's real path. Its pid, claim and HTTP address
 * are what the one-shot commands send the token to; the vault's own `.meeting-assistant/`
 * travels to other machines and to anyone who can write the vault, so nothing in it says where
 * this machine's daemon listens (issue #43 point 2).
 */

export class RuntimeFolderError extends MeetingAssistantError {
  constructor(folder: string, why: string) {
    super(`${folder} cannot hold where this machine's daemon is: ${why}. Remove it, or set XDG_RUNTIME_DIR to a folder of your own`, true);
  }
}

const currentUid = (): number | undefined => (typeof process.getuid === 'function' ? process.getuid() : undefined);

/** The folder this environment gives: where a daemon started here keeps its record. */
export function runtimeFolder(env: NodeJS.ProcessEnv, uid: number | undefined = currentUid()): string {
  const xdg = env.XDG_RUNTIME_DIR;
  if (xdg && path.isAbsolute(xdg)) return path.join(xdg, 'meeting-assistant');
  const temp = env.TMPDIR && path.isAbsolute(env.TMPDIR) ? env.TMPDIR : os.tmpdir();
  return path.join(temp, `meeting-assistant-${uid ?? 'user'}`);
}

/**
 * The places the folder may be, this environment's first. A service and a shell need not
 * share an environment (cron has no XDG_RUNTIME_DIR, a launchd agent another TMPDIR than
 * Terminal), so a command looks in each of them, and a daemon refuses to start while another
 * runs the vault from any of them.
 */
function runtimeFolders(env: NodeJS.ProcessEnv, uid: number | undefined = currentUid()): string[] {
  // systemd's runtime folder, where the environment does not name it (cron, a bare ssh).
  const runs = process.platform === 'linux' && uid !== undefined ? [`/run/user/${uid}`] : [];
  const temps = [os.tmpdir(), process.platform === 'win32' ? undefined : '/tmp'].filter((t): t is string => !!t && path.isAbsolute(t));
  const all = [runtimeFolder(env, uid), ...runs.map((r) => path.join(r, 'meeting-assistant')), ...temps.map((t) => path.join(t, `meeting-assistant-${uid ?? 'user'}`))];
  return [...new Set(all)];
}

/**
 * Why the folder is not this user's private one (a link, another owner, writable by others),
 * or undefined when it is. In a shared temporary folder another account could have made it
 * first, to be sent the token.
 */
async function problemOf(fs: Fs, folder: string, uid: number | undefined): Promise<string | undefined> {
  const stat = await fs.lstat(folder);
  if (stat.isSymbolicLink() || !stat.isDirectory()) return 'it is not a folder';
  if (uid !== undefined && stat.uid !== undefined && stat.uid !== uid) return `it belongs to another user (uid ${stat.uid})`;
  if ((stat.mode & 0o077) !== 0) return `others may read or write it (mode ${(stat.mode & 0o777).toString(8)})`;
  return undefined;
}

/** Makes the folder (mode 0700) when missing; throws RuntimeFolderError when it is not private. */
export async function ensureRuntimeFolder(fs: Fs, env: NodeJS.ProcessEnv): Promise<string> {
  const uid = currentUid();
  const folder = runtimeFolder(env, uid);
  await fs.mkdir(folder, { recursive: true, mode: 0o700 });
  const problem = await problemOf(fs, folder, uid);
  if (problem) throw new RuntimeFolderError(folder, problem);
  return folder;
}

/** The folder when it exists and is private; undefined when missing; throws when it is not private. */
async function existingRuntimeFolder(fs: Fs, env: NodeJS.ProcessEnv): Promise<string | undefined> {
  const uid = currentUid();
  const folder = runtimeFolder(env, uid);
  let problem;
  try {
    problem = await problemOf(fs, folder, uid);
  } catch (err) {
    if (isNotFound(err)) return undefined;
    throw err;
  }
  if (problem) throw new RuntimeFolderError(folder, problem);
  return folder;
}

/**
 * The places that exist and are private, this environment's first. This environment's own
 * place throws RuntimeFolderError when it is not private; another that is not is passed over
 * (not ours to trust, nor ours to complain of).
 */
export async function existingRuntimeFolders(fs: Fs, env: NodeJS.ProcessEnv): Promise<string[]> {
  const [, ...others] = runtimeFolders(env);
  const found: string[] = [];
  const first = await existingRuntimeFolder(fs, env);
  if (first !== undefined) found.push(first);
  for (const folder of others) {
    const problem = await problemOf(fs, folder, currentUid()).catch(() => 'missing');
    if (problem === undefined) found.push(folder);
  }
  return found;
}

/** The vault's real path: two spellings of one folder (a link, `..`) name one daemon. */
export async function realVaultRoot(vault: Vault): Promise<string> {
  return vault.fs.realpath(vault.root).catch(() => vault.root);
}

/** The record's file in `folder` for the vault at `realRoot`. */
export function daemonRecordFile(folder: string, realRoot: string): string {
  return path.join(folder, `${createHash('sha256').update(realRoot).digest('hex').slice(0, 32)}.json`);
}

/** The folder of the vault's command-line run markers (cli-run-marker.ts) in `folder`. */
export function cliRunsFolder(folder: string, realRoot: string): string {
  return daemonRecordFile(folder, realRoot).replace(/\.json$/, '.cli-runs');
}

/** Where the record of the vault's daemon on this machine is, or would be (nothing made). */
export async function daemonRecordPath(vault: Vault, env: NodeJS.ProcessEnv): Promise<string> {
  return daemonRecordFile(runtimeFolder(env), await realVaultRoot(vault));
}

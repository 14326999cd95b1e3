import { readFileSync } from 'node:fs';
import { readFile, readlink } from 'node:fs/promises';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

/**
 * Whether the process a daemon.json names is a running daemon (docs/design.md §2, one daemon
 * per vault). A pid alone says little: after a crash or a container restart the pid is reused,
 * by this very process (pid 1 in a container) or by anything else. So a live pid counts only
 * when the HTTP address it recorded answers, or when its command line is a meeting-assistant;
 * when neither can be asked (no HTTP, no /proc on macOS and Windows) a live pid counts, the
 * cautious answer.
 */

/**
 * Whether a process with this pid exists (EPERM: it does, it just is not ours to signal). A
 * zombie does not count: it has ended and only waits for its parent to collect it, which may
 * take a while when the parent died with it (a daemon killed with its run process, the run
 * process left to an init that reaps slowly).
 */
export function processIsAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
  } catch (err) {
    return (err as { code?: string }).code === 'EPERM';
  }
  return !isZombie(pid);
}

/** Linux: the state after the command name in /proc/<pid>/stat is Z; elsewhere never known. */
function isZombie(pid: number): boolean {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    return stat.slice(stat.lastIndexOf(')') + 2, stat.lastIndexOf(')') + 3) === 'Z';
  } catch {
    return false;
  }
}

/** What daemon.json and a command-line run's marker say of the process that holds them. */
export interface HolderRecord {
  pid: number;
  startedAt: string;
  /** daemon.json: the HTTP API's base URL, once it listens. */
  http?: string;
  /** daemon.json: the claim's id (tells two claims of one process, or of one reused pid, apart). */
  claim?: string;
  /** A marker: the command that runs the meeting (`summarize`, `retry`). */
  command?: string;
}

/** The record in a holder file's text; undefined when it does not parse or names no valid pid. */
export function parseHolder(text: string | undefined): HolderRecord | undefined {
  if (text === undefined) return undefined;
  try {
    const value = JSON.parse(text) as Record<string, unknown>;
    if (typeof value.pid !== 'number' || !Number.isInteger(value.pid) || value.pid <= 0) return undefined;
    const optional = (key: 'http' | 'claim' | 'command') => (typeof value[key] === 'string' ? { [key]: value[key] } : {});
    return { pid: value.pid, startedAt: String(value.startedAt ?? ''), ...optional('http'), ...optional('claim'), ...optional('command') };
  } catch {
    return undefined;
  }
}

export interface HolderProbe {
  isAlive(pid: number): boolean;
  /** The process's arguments and working folder; undefined when they cannot be read. */
  commandLine(pid: number): Promise<{ argv: string[]; cwd?: string } | undefined>;
  /** Whether a daemon's HTTP API answers at this base URL (GET /healthz, short timeout). */
  answers(baseUrl: string): Promise<boolean>;
}

const HEALTH_TIMEOUT_MS = 1000;

export const systemProbe: HolderProbe = {
  isAlive: processIsAlive,
  async commandLine(pid) {
    try {
      const raw = await readFile(`/proc/${pid}/cmdline`, 'utf8');
      const argv = raw.split('\0').filter((a) => a !== '');
      if (argv.length === 0) return undefined;
      const cwd = await readlink(`/proc/${pid}/cwd`).catch(() => undefined);
      return { argv, ...(cwd !== undefined && { cwd }) };
    } catch {
      return undefined;
    }
  },
  async answers(baseUrl) {
    try {
      const res = await fetch(`${baseUrl}/healthz`, { signal: AbortSignal.timeout(HEALTH_TIMEOUT_MS) });
      return res.ok && (await res.text()).trim() === 'ok';
    } catch {
      return false;
    }
  },
};

/** This package's folder: src/daemon or dist/daemon, two levels up. */
const PACKAGE_ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..');
const OWN_FOLDERS = ['bin', 'dist', 'src'].map((f) => path.join(PACKAGE_ROOT, f));

/** A command line that runs meeting-assistant: its bin by name, an installed package, or this copy's entry points. */
export function isMeetingAssistantCommand(argv: string[], cwd?: string): boolean {
  return argv.some((arg) => {
    if (/^meeting-assistant(\.[cm]?js)?$/.test(path.basename(arg))) return true;
    if (arg.split(/[\\/]/).includes('meeting-assistant')) return true;
    const abs = path.isAbsolute(arg) ? arg : cwd !== undefined ? path.resolve(cwd, arg) : undefined;
    return abs !== undefined && OWN_FOLDERS.some((folder) => abs.startsWith(folder + path.sep));
  });
}

/**
 * Whether the daemon.json entry (`pid`, its HTTP address, its claim id) names a daemon that
 * runs now. `ownClaims` are the claims this process holds: an entry with this process's pid is
 * running only when it is one of them (else it was left by an earlier process with the same pid).
 */
export async function holderRuns(
  holder: { pid: number; http?: string; claim?: string },
  ownClaims: ReadonlySet<string>,
  probe: HolderProbe = systemProbe,
): Promise<boolean> {
  if (holder.pid === process.pid) return holder.claim !== undefined && ownClaims.has(holder.claim);
  if (!probe.isAlive(holder.pid)) return false;
  if (holder.http !== undefined && (await probe.answers(holder.http))) return true;
  const command = await probe.commandLine(holder.pid);
  return command === undefined || isMeetingAssistantCommand(command.argv, command.cwd);
}

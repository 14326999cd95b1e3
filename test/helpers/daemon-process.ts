import { type ChildProcess, spawn } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync, readdirSync, statSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

/**
 * The real daemon as a child process for integration tests: `node bin/meeting-assistant.js
 * run --config <file>` from the built dist/, its JSON log lines collected, helpers to wait
 * for a line or a file state with a deadline, and a stop that always leaves no process.
 */

export const REPO_ROOT = fileURLToPath(new URL('../..', import.meta.url));
export const BIN = path.join(REPO_ROOT, 'bin', 'meeting-assistant.js');

export interface LogLine {
  level?: string;
  msg?: string;
  [key: string]: unknown;
}

export interface Exit {
  code: number | null;
  signal: NodeJS.Signals | null;
}

export interface DaemonProcess {
  child: ChildProcess;
  /** Parsed JSON log lines so far (stdout). */
  logs: LogLine[];
  /** Raw stdout and stderr so far. */
  stdout(): string;
  stderr(): string;
  /** Resolves with the first log line (past or future) matching; rejects at the deadline or exit. */
  waitForLog(predicate: (line: LogLine) => boolean, timeoutMs?: number, what?: string): Promise<LogLine>;
  /** Resolves when the process has exited. */
  exited: Promise<Exit>;
  /** Send a signal (default SIGTERM) and wait for the exit. */
  stop(signal?: NodeJS.Signals, timeoutMs?: number): Promise<Exit>;
  /** SIGKILL now and wait for the exit (no-op when already gone). */
  kill(): Promise<Exit>;
}

export interface StartOptions {
  configPath: string;
  env?: Record<string, string>;
  /** Wait for the "ready" line (default true). */
  waitReady?: boolean;
  readyTimeoutMs?: number;
  args?: string[];
}

/**
 * The bound of a wait for a process of ours to be up (a daemon's ready line, a one-shot
 * command's exit). Warm, a daemon is ready in 0.4 s; with the page cache dropped, 2.2 s; cold
 * while Chromium's launch read its binary beside it, 18.2 s (BENCHMARKS.md, "The suite on a cold
 * disk"), which failed the 20 s this was. A bound, not a timed assertion: a quick start ends it.
 */
export const PROCESS_START_MS = 60_000;

/**
 * The default bound of a wait for what a daemon does (a log line, a note's state): most such
 * waits cover a run, and a run may start a run process cold, which on a cold disk beside
 * Chromium's launch is a start of up to ~20 s like the daemon's own (PROCESS_START_MS).
 */
export const WAIT_MS = 30_000;

const live = new Set<ChildProcess>();
/** Daemons started in a process group of their own. */
const groups = new WeakSet<ChildProcess>();
/** Their groups' ids, kept after the daemon exits: a run process it left behind is still in its group. */
const groupIds = new Set<number>();

/** SIGKILL to the daemon and everything it started (its run process), or to the process alone. */
function killGroup(child: ChildProcess): void {
  try {
    if (groups.has(child) && child.pid !== undefined) process.kill(-child.pid, 'SIGKILL');
    else child.kill('SIGKILL');
  } catch {
    child.kill('SIGKILL');
  }
}

/**
 * After a child's exit, its output may still be in the pipes: 'close' comes once both are
 * read to their end. A process it left behind (a run process, while a test kills the daemon
 * alone) holds them open, so the wait for that is bounded: what has arrived by then is it.
 */
const DRAIN_MS = 2_000;
function afterExit(child: ChildProcess, done: (code: number | null, signal: NodeJS.Signals | null) => void): void {
  child.once('exit', (code, signal) => {
    let called = false;
    const finish = () => {
      if (called) return;
      called = true;
      clearTimeout(timer);
      done(code, signal);
    };
    const timer = setTimeout(finish, DRAIN_MS);
    if (child.stdout?.readableEnded !== false && child.stderr?.readableEnded !== false) finish();
    else child.once('close', finish);
  });
}

/** Spawn the CLI with arbitrary arguments (for one-shot commands) and collect its output. */
export function runCli(
  args: string[],
  options: { env?: Record<string, string>; timeoutMs?: number; cwd?: string } = {},
): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [BIN, ...args], {
      cwd: options.cwd ?? REPO_ROOT,
      env: { ...process.env, ...options.env },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    live.add(child);
    let stdout = '';
    let stderr = '';
    child.stdout!.on('data', (d: Buffer) => (stdout += d.toString()));
    child.stderr!.on('data', (d: Buffer) => (stderr += d.toString()));
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new Error(`meeting-assistant ${args.join(' ')} did not exit within ${options.timeoutMs ?? PROCESS_START_MS} ms\n${stdout}\n${stderr}`));
    }, options.timeoutMs ?? PROCESS_START_MS);
    afterExit(child, (code) => {
      clearTimeout(timer);
      live.delete(child);
      resolve({ code, stdout, stderr });
    });
  });
}

export async function startDaemonProcess(options: StartOptions): Promise<DaemonProcess> {
  const child = spawn(process.execPath, [BIN, 'run', '--config', options.configPath, ...(options.args ?? [])], {
    cwd: REPO_ROOT,
    env: { ...process.env, ...options.env },
    stdio: ['ignore', 'pipe', 'pipe'],
    // A group of its own: a SIGKILL ends the daemon and its run process at the same instant,
    // as a power cut or systemd's final kill does (docs/design.md §8).
    detached: true,
  });
  live.add(child);
  groups.add(child);
  if (child.pid !== undefined) groupIds.add(child.pid);
  const logs: LogLine[] = [];
  let stdout = '';
  let stderr = '';
  let partial = '';
  const watchers = new Set<() => void>();
  const notify = () => watchers.forEach((w) => w());
  child.stdout!.on('data', (d: Buffer) => {
    const text = d.toString();
    stdout += text;
    partial += text;
    const lines = partial.split('\n');
    partial = lines.pop() ?? '';
    for (const line of lines) {
      if (line.trim() === '') continue;
      try {
        logs.push(JSON.parse(line) as LogLine);
      } catch {
        logs.push({ msg: line, raw: true });
      }
    }
    notify();
  });
  child.stderr!.on('data', (d: Buffer) => {
    stderr += d.toString();
    notify();
  });
  let exitInfo: Exit | undefined;
  const exited = new Promise<Exit>((resolve) => {
    afterExit(child, (code, signal) => {
      live.delete(child);
      exitInfo = { code, signal };
      notify();
      resolve(exitInfo);
    });
  });

  const waitForLog = (predicate: (line: LogLine) => boolean, timeoutMs = WAIT_MS, what = 'a log line'): Promise<LogLine> =>
    new Promise((resolve, reject) => {
      const check = () => {
        const found = logs.find(predicate);
        if (found) {
          done();
          resolve(found);
        } else if (exitInfo) {
          done();
          reject(new Error(`daemon exited (${JSON.stringify(exitInfo)}) before ${what}\nstdout:\n${stdout}\nstderr:\n${stderr}`));
        }
      };
      const timer = setTimeout(() => {
        done();
        reject(new Error(`timed out after ${timeoutMs} ms waiting for ${what}\nstdout:\n${stdout.slice(-4000)}\nstderr:\n${stderr}`));
      }, timeoutMs);
      const done = () => {
        clearTimeout(timer);
        watchers.delete(check);
      };
      watchers.add(check);
      check();
    });

  const stop = async (signal: NodeJS.Signals = 'SIGTERM', timeoutMs = 20000): Promise<Exit> => {
    if (exitInfo) return exitInfo;
    if (signal === 'SIGKILL') killGroup(child);
    else child.kill(signal);
    const timer = setTimeout(() => killGroup(child), timeoutMs);
    const result = await exited;
    clearTimeout(timer);
    return result;
  };

  const proc: DaemonProcess = {
    child,
    logs,
    stdout: () => stdout,
    stderr: () => stderr,
    waitForLog,
    exited,
    stop,
    kill: () => stop('SIGKILL'),
  };
  if (options.waitReady ?? true) {
    try {
      await waitForLog((l) => typeof l.msg === 'string' && l.msg.startsWith('ready'), options.readyTimeoutMs ?? PROCESS_START_MS, 'the ready line');
    } catch (err) {
      await proc.kill();
      throw err;
    }
  }
  return proc;
}

/** Kill every process these helpers started that is still alive (afterEach/afterAll safety net). */
export async function killAll(): Promise<void> {
  await Promise.all(
    [...live].map(
      (child) =>
        new Promise<void>((resolve) => {
          if (child.exitCode !== null || child.signalCode !== null) return resolve();
          child.once('exit', () => resolve());
          killGroup(child);
        }),
    ),
  );
  // A run process left by a daemon that has exited (what a test of a defect may leave) goes too.
  for (const id of groupIds) {
    try {
      process.kill(-id, 'SIGKILL');
    } catch {
      // nothing of that group is left
    }
  }
  groupIds.clear();
}

/** The temporary folders of makeTempSetup not yet removed. */
const tempDirs = new Set<string>();

/** Kill every daemon and remove every temporary vault these helpers made (after a test or a file). */
export async function cleanUpAll(): Promise<void> {
  await killAll();
  for (const dir of tempDirs) rmSync(dir, { recursive: true, force: true });
  tempDirs.clear();
}

/**
 * The exit of a process already told to end (a signal sent some other way than `stop`), if it
 * comes within `timeoutMs`: a deadline on the wait, to be well past what a prompt exit takes
 * on a loaded machine and short of what the exit must not wait for (a grace period). Rejects
 * after it; the process is left as it is (cleanUpAll ends it).
 */
export async function exitWithin(proc: Pick<DaemonProcess, 'exited'>, timeoutMs: number, what = 'the exit'): Promise<Exit> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<never>((_resolve, reject) => {
    timer = setTimeout(() => reject(new Error(`timed out after ${timeoutMs} ms waiting for ${what}`)), timeoutMs);
  });
  try {
    return await Promise.race([proc.exited, late]);
  } finally {
    clearTimeout(timer);
  }
}

/**
 * The bound of a wait for what a run process that is not up yet does: its fork, the runtime's
 * load and a run's turns. A cold run start (to the first model request) is under 1 s on a quiet
 * machine but measured 7.4 s median and 14.6 s at most at load 26–28 (BENCHMARKS.md, issue 31),
 * which a whole suite beside busy loops reaches (issue 37): waitFor's 15 s was too little for a
 * restart and its run. A bound on a wait, not a timed assertion: a quick run ends it at once.
 */
export const COLD_RUN_WAIT_MS = 60_000;

/** Poll `check` until it returns a truthy value or the deadline passes (default WAIT_MS). */
export async function waitFor<T>(check: () => T | Promise<T>, what: string, timeoutMs = WAIT_MS, intervalMs = 25): Promise<NonNullable<T>> {
  const deadline = Date.now() + timeoutMs;
  let last: unknown;
  for (;;) {
    try {
      const value = await check();
      if (value) return value as NonNullable<T>;
    } catch (err) {
      last = err;
    }
    if (Date.now() > deadline) {
      throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}${last ? ` (last error: ${String(last)})` : ''}`);
    }
    await new Promise((r) => setTimeout(r, intervalMs));
  }
}

/** A temporary vault and config under os.tmpdir(); `cleanup()` removes it all. */
export interface TempSetup {
  dir: string;
  vault: string;
  configPath: string;
  write(rel: string, content: string): void;
  read(rel: string): string;
  readIfExists(rel: string): string | undefined;
  /** Rewrite the config (merged over the current one). */
  configure(settings: Record<string, unknown>): void;
  cleanup(): void;
}

function merge(a: Record<string, unknown>, b: Record<string, unknown>): Record<string, unknown> {
  const out: Record<string, unknown> = { ...a };
  for (const [k, v] of Object.entries(b)) {
    const prev = out[k];
    out[k] =
      v && typeof v === 'object' && !Array.isArray(v) && prev && typeof prev === 'object' && !Array.isArray(prev)
        ? merge(prev as Record<string, unknown>, v as Record<string, unknown>)
        : v;
  }
  return out;
}

export function makeTempSetup(settings: Record<string, unknown>, prefix = 'ma-daemon-'): TempSetup {
  const dir = mkdtempSync(path.join(os.tmpdir(), prefix));
  tempDirs.add(dir);
  const vault = path.join(dir, 'vault');
  mkdirSync(vault, { recursive: true });
  const configPath = path.join(dir, 'config.json');
  let current: Record<string, unknown> = { VaultPath: './vault', ...settings };
  const save = () => writeFileSync(configPath, JSON.stringify({ MeetingAssistant: current }, null, 2));
  save();
  const abs = (rel: string) => path.join(vault, rel);
  return {
    dir,
    vault,
    configPath,
    write(rel, content) {
      mkdirSync(path.dirname(abs(rel)), { recursive: true });
      // Like an editor or a sync tool: write in place.
      writeFileSync(abs(rel), content);
    },
    read: (rel) => readFileSync(abs(rel), 'utf8'),
    readIfExists(rel) {
      try {
        return readFileSync(abs(rel), 'utf8');
      } catch {
        return undefined;
      }
    },
    configure(more) {
      current = merge(current, more);
      save();
    },
    cleanup() {
      rmSync(dir, { recursive: true, force: true });
      tempDirs.delete(dir);
    },
  };
}

/** Every file below `dir` (relative paths), for "no half-written note" checks. */
export function listFiles(dir: string): string[] {
  const out: string[] = [];
  const walk = (d: string, rel: string) => {
    for (const name of readdirSync(d)) {
      const full = path.join(d, name);
      const r = rel ? `${rel}/${name}` : name;
      if (statSync(full).isDirectory()) walk(full, r);
      else out.push(r);
    }
  };
  walk(dir, '');
  return out;
}

/**
 * Ports for daemons below the ephemeral range (Linux 32768–60999, macOS 49152–65535): a port
 * the OS hands out for `listen(0)` is one it also hands to outgoing connections, and in the
 * moment between the probe and the daemon's own listen one took it (EADDRINUSE, 2 in 20 loaded
 * runs). Picked at random, so two suites on one machine rarely try the same one.
 */
const PORTS = { first: 20_000, last: 32_767 };

/**
 * Ports this process handed out already: tests of a file that run at once each ask for ports
 * before their daemon or late server listens on them, and one must not be handed the port
 * another holds for later.
 */
const handedOut = new Set<number>();

/** A port that was free a moment ago on 127.0.0.1 and not handed out before (config ports must be 1-65535, so not 0). */
export async function freePort(): Promise<number> {
  const net = await import('node:net');
  const free = (port: number) =>
    new Promise<boolean>((resolve, reject) => {
      const server = net.createServer();
      server.once('error', (err: NodeJS.ErrnoException) => (err.code === 'EADDRINUSE' || err.code === 'EACCES' ? resolve(false) : reject(err)));
      server.listen(port, '127.0.0.1', () => server.close(() => resolve(true)));
    });
  for (let tries = 0; tries < 100; tries++) {
    const port = PORTS.first + Math.floor(Math.random() * (PORTS.last - PORTS.first + 1));
    if (handedOut.has(port)) continue;
    handedOut.add(port);
    if (await free(port)) return port;
  }
  throw new Error(`no free port on 127.0.0.1 between ${PORTS.first} and ${PORTS.last} in 100 tries`);
}

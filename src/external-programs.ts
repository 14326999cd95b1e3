import { execFile, spawn } from 'node:child_process';
import { accessSync, constants } from 'node:fs';
import path from 'node:path';

/**
 * Other programs the daemon and the CLI start (notify-send, osascript, xdg-open, open): found
 * on PATH, run without a shell. Callers take a CommandRunner so tests can stand in for them.
 */

export interface CommandResult {
  code: number | null;
  stdout: string;
  stderr: string;
}

/** Runs a command without a shell; resolves when it exits (never rejects). */
export type CommandRunner = (command: string, args: string[]) => Promise<CommandResult>;

/** The executable file `name` in one of PATH's folders, or undefined. */
export function findOnPath(name: string, pathVar = process.env.PATH ?? ''): string | undefined {
  for (const dir of pathVar.split(path.delimiter)) {
    if (!dir) continue;
    const file = path.join(dir, name);
    try {
      accessSync(file, constants.X_OK);
      return file;
    } catch {
      // not here
    }
  }
  return undefined;
}

/**
 * `background`: the child does not keep this process alive (a notification waiting for its
 * click must not hold up a stopping daemon).
 */
export function runCommand(command: string, args: string[], options: { background?: boolean } = {}): Promise<CommandResult> {
  return new Promise((resolve) => {
    const child = execFile(command, args, { encoding: 'utf8' }, (err, stdout, stderr) => {
      const code = err ? (typeof err.code === 'number' ? err.code : null) : 0;
      resolve({ code, stdout, stderr: stderr || (err && !stdout ? err.message : '') });
    });
    if (options.background) {
      child.unref();
      for (const stream of [child.stdout, child.stderr, child.stdin]) (stream as { unref?: () => void } | null)?.unref?.();
    }
  });
}

/**
 * Starts a program that may go on running (xdg-open starts the browser itself when none runs,
 * and then lasts as long as the browser): its exit when that comes within `settleMs`, else
 * it counts as started and is left to run on its own.
 */
export function launch(command: string, args: string[], settleMs = 2000): Promise<CommandResult> {
  return new Promise((resolve) => {
    const child = spawn(command, args, { stdio: 'ignore', detached: true });
    const settle = (result: CommandResult) => {
      clearTimeout(timer);
      child.unref();
      resolve(result);
    };
    const timer = setTimeout(() => settle({ code: 0, stdout: '', stderr: '' }), settleMs);
    child.once('error', (err) => settle({ code: null, stdout: '', stderr: err.message }));
    child.once('exit', (code) => settle({ code, stdout: '', stderr: '' }));
  });
}

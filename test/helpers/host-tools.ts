import { spawnSync } from 'node:child_process';

/** Whether a tool runs here; the suite only looks, it never installs anything. */
export function runs(command: string, args: string[]): boolean {
  return spawnSync(command, args, { stdio: 'ignore' }).status === 0;
}

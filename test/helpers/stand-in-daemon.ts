import { spawn } from 'node:child_process';

/**
 * A live process that stands in for a daemon in its record (src/instance/runtime-folder.ts): its command line names
 * meeting-assistant, as a real daemon's does (src/instance/liveness.ts), so a pid that is merely
 * alive (this test process, pid 1) is not taken for one. Always stop it.
 */
export async function standInDaemon(): Promise<{ pid: number; stop: () => void }> {
  const child = spawn(process.execPath, ['-e', 'setInterval(() => {}, 1 << 30)', 'meeting-assistant', 'run'], { stdio: 'ignore' });
  await new Promise((resolve, reject) => child.once('spawn', resolve).once('error', reject));
  return { pid: child.pid!, stop: () => void child.kill() };
}

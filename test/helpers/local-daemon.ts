import type { Fs } from '../../src/vault/files/fs.js';
import { daemonRecordFile, ensureRuntimeFolder } from '../../src/instance/runtime-folder.js';

/**
 * A daemon's record in this user's runtime folder (src/instance/runtime-folder.ts), as a
 * running daemon writes it: where the one-shot commands find it. `vaultRoot` is the vault's
 * real path. Returns the record's file.
 */
export async function recordLocalDaemon(fs: Fs, vaultRoot: string, instance: Record<string, unknown>, env: NodeJS.ProcessEnv): Promise<string> {
  const file = daemonRecordFile(await ensureRuntimeFolder(fs, env), vaultRoot);
  await fs.writeFile(file, JSON.stringify({ vault: vaultRoot, ...instance }));
  return file;
}

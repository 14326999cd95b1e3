import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Fs } from '../../src/vault/files/fs.js';
import { daemonRecordFile, ensureRuntimeFolder } from '../../src/instance/runtime-folder.js';
import { healthzProof, PROOF_HEADER } from '../../src/vault/files/state.js';

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

/**
 * For a stand-in of the daemon's HTTP API: answers `GET /healthz` as the daemon does, proving
 * it holds `token` when asked (src/instance/daemon-proof.ts), and says whether it did.
 */
export function answeredHealth(req: IncomingMessage, res: ServerResponse, token: string): boolean {
  const url = new URL(req.url ?? '/', 'http://stand-in');
  if (url.pathname !== '/healthz') return false;
  const challenge = url.searchParams.get('challenge');
  res.writeHead(200, { 'content-type': 'text/plain', ...(challenge !== null && { [PROOF_HEADER]: healthzProof(token, challenge) }) }).end('ok');
  return true;
}

import { createHash } from 'node:crypto';
import type { Fs } from './fs.js';

/**
 * What proves which vault a daemon serves without saying where it is (docs/design.md §7,
 * `GET /api/whoami`): a hash of the vault's real path (symbolic links resolved, so two names
 * of one folder are one vault). `doctor` compares it with its own before it calls a held port
 * ours, and needs no token for it: the token goes only to a daemon of this vault.
 */
export async function vaultIdentity(fs: Pick<Fs, 'realpath'>, root: string): Promise<string> {
  const real = await fs.realpath(root).catch(() => root);
  return createHash('sha256').update(`meeting-assistant vault\0${real}`).digest('hex').slice(0, 32);
}

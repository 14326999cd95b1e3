import type { AppConfig } from '../config.js';
import { isBundledDefaultConfig } from '../example-vault.js';
import { type Fs, statIfExists } from '../vault/files/fs.js';

/**
 * A `VaultPath` that names no folder is a mistake in the configuration (docs/design.md §6,
 * exit 2), not a vault to create: a typo would otherwise start an empty vault beside the
 * real one and wait there forever. The bundled config.default.json is the one exception,
 * as `run` seeds its ./vault with the example on first start (example-vault.ts).
 */
export async function vaultPathProblem(config: AppConfig, fs: Fs): Promise<string | undefined> {
  if (isBundledDefaultConfig(config.file)) return undefined;
  const root = config.layout.root;
  const where = config.file ? `VaultPath in ${config.file}` : 'VaultPath (no config file was found, so the default ./vault)';
  const stat = await statIfExists(fs, root);
  if (!stat) return `the vault ${root} does not exist (${where}); point VaultPath at your vault, or create the folder`;
  if (!stat.isDirectory()) return `the vault ${root} is not a folder (${where})`;
  return undefined;
}

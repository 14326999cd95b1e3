import { randomBytes } from 'node:crypto';
import { realpathSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { STATE_FOLDER } from './vault/files/state.js';
import { type Fs, statIfExists } from './vault/files/fs.js';
import { MeetingAssistantError } from './errors.js';

/**
 * The example vault shipped with the package, and the first-start seeding that copies it to
 * the working vault of `npm start` (./vault), so the tracked example stays pristine.
 */

/** Both src/ (tests) and dist/ (the installed package) sit one level below the package root. */
const PACKAGE_ROOT = fileURLToPath(new URL('..', import.meta.url));

/** Absolute path of `example-vault/` in the installed package. */
export const EXAMPLE_VAULT_DIR = path.join(PACKAGE_ROOT, 'example-vault');

/** Absolute path of the package's `config.default.json` (what `npm start` uses). */
export const BUNDLED_DEFAULT_CONFIG = path.join(PACKAGE_ROOT, 'config.default.json');

/** Seeding failed: the example is missing, or the vault path is not a folder. */
export class SeedError extends MeetingAssistantError {
  constructor(message: string) {
    super(message, true);
  }
}

export interface SeedOptions {
  fs: Fs;
  exampleDir: string;
  vaultDir: string;
}

/**
 * True for the repo's `config.default.json`: only then does `run` seed the vault, so a
 * person's own config never gets example notes copied into their vault.
 */
export function isBundledDefaultConfig(configFile: string | undefined): boolean {
  if (!configFile) return false;
  const wanted = path.resolve(configFile);
  if (wanted === BUNDLED_DEFAULT_CONFIG) return true;
  // The same file reached through a symbolic link (a linked checkout, a global npm link).
  try {
    return realpathSync(wanted) === realpathSync(BUNDLED_DEFAULT_CONFIG);
  } catch {
    return false;
  }
}

/**
 * Copy the example vault into `vaultDir` when that does not exist or is an empty folder;
 * never touch a folder that has anything in it. The daemon's own state folder
 * (`.meeting-assistant/`, the HTTP token) does not count, so the order of start-up steps
 * does not matter; anything else does, a hidden `.obsidian/` included.
 */
export async function seedWorkingVault(options: SeedOptions): Promise<{ seeded: boolean }> {
  const { fs, exampleDir } = options;
  const vaultDir = path.resolve(options.vaultDir);
  const source = path.resolve(exampleDir);

  const exampleStat = await statIfExists(fs, source);
  if (!exampleStat?.isDirectory()) throw new SeedError(`the example vault is missing: ${source}`);

  const vaultStat = await statIfExists(fs, vaultDir);
  if (vaultStat && !vaultStat.isDirectory()) {
    throw new SeedError(`the vault path is not a folder: ${vaultDir}`);
  }
  if (vaultStat) {
    const entries = await fs.readdir(vaultDir, { withFileTypes: true });
    if (entries.some((entry) => entry.name !== STATE_FOLDER)) return { seeded: false };
  }

  // Copy into a hidden sibling first and rename it into place, so a crash mid-copy never
  // leaves a half-seeded vault that would then count as "not empty" forever.
  const parent = path.dirname(vaultDir);
  await fs.mkdir(parent, { recursive: true });
  const staging = path.join(parent, `.${path.basename(vaultDir)}.seed-${randomBytes(4).toString('hex')}`);
  try {
    await copyTree(fs, source, staging);
    if (!vaultStat) {
      await fs.rename(staging, vaultDir);
    } else {
      // An existing empty folder may be a mount point or a symbolic link, or hold our state
      // folder: keep the folder itself and move the copied entries into it.
      for (const entry of await fs.readdir(staging, { withFileTypes: true })) {
        await fs.rename(path.join(staging, entry.name), path.join(vaultDir, entry.name));
      }
    }
  } finally {
    await fs.rm(staging, { recursive: true, force: true }).catch(() => undefined);
  }
  return { seeded: true };
}

async function copyTree(fs: Fs, from: string, to: string): Promise<void> {
  await fs.mkdir(to, { recursive: true });
  for (const entry of await fs.readdir(from, { withFileTypes: true })) {
    const src = path.join(from, entry.name);
    const dest = path.join(to, entry.name);
    if (entry.isDirectory()) await copyTree(fs, src, dest);
    else if (entry.isFile()) await fs.copyFile(src, dest);
    // The shipped example holds only folders and regular files; anything else is not copied.
  }
}

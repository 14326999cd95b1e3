import os from 'node:os';
import path from 'node:path';
import { type Clock, systemClock } from '../clock.js';
import { type AppConfig, ConfigError, loadConfig } from '../config.js';
import { type Fs, nodeFs, statIfExists } from '../vault/files/fs.js';
import { MeetingAssistantError } from '../errors.js';
import { isBundledDefaultConfig } from '../example-vault.js';

/** Exit codes of every command (docs/design.md §6). */
export const EXIT_OK = 0;
export const EXIT_FAILED = 1;
export const EXIT_USAGE = 2;

/** An error a command reports to the person in one clear message, with its exit code. */
export class CliError extends MeetingAssistantError {
  constructor(
    message: string,
    readonly exitCode: number = EXIT_FAILED,
  ) {
    super(message, true);
  }
}

export interface GlobalOptions {
  config?: string;
}

/** Output streams, injectable so commands can be tested without a terminal. */
export interface Io {
  out(line: string): void;
  err(line: string): void;
}

export const processIo: Io = {
  out: (line) => process.stdout.write(line + '\n'),
  err: (line) => process.stderr.write(line + '\n'),
};

/**
 * What every command takes from the process. Each command is `(arguments…, options,
 * deps: Partial<…Deps> = {})`: the CLI passes nothing, tests pass what they replace.
 * A command that needs more (a platform, a browser opener) extends this in its own file.
 */
export interface CommandDeps {
  io: Io;
  fs: Fs;
  env: NodeJS.ProcessEnv;
  cwd: string;
  clock: Clock;
}

/** The real process: its streams, disk, environment, working folder and time. */
export function processDeps(): CommandDeps {
  return { io: processIo, fs: nodeFs, env: process.env, cwd: process.cwd(), clock: systemClock };
}

/**
 * The process's dependencies, then a command's own `defaults`, then what the caller gave;
 * a key given as `undefined` keeps its default.
 */
export function withDefaults<T extends CommandDeps>(given: Partial<T>, defaults: Omit<T, keyof CommandDeps>): T;
export function withDefaults(given: Partial<CommandDeps>): CommandDeps;
export function withDefaults(given: Partial<CommandDeps>, defaults: object = {}): CommandDeps {
  const chosen = Object.fromEntries(Object.entries(given).filter(([, value]) => value !== undefined));
  return { ...processDeps(), ...defaults, ...chosen };
}

/** The home folder the environment names (a test's temp HOME), else the account's. */
export function homeOf(env: NodeJS.ProcessEnv): string {
  return env.HOME || os.homedir();
}

/** The configuration as `--config` (or the default places) gives it; a bad one throws `ConfigError`. */
export async function readCommandConfig(opts: GlobalOptions, deps: Pick<CommandDeps, 'fs' | 'env' | 'cwd'>): Promise<AppConfig> {
  const configPath = opts.config ?? (await checkoutConfig(deps.fs, deps.cwd));
  return loadConfig({ configPath, fs: deps.fs, env: deps.env, cwd: deps.cwd, homedir: homeOf(deps.env) });
}

/**
 * In the package's own checkout, the config `npm start` runs (scripts/start.mjs): its
 * ./config.json, else the bundled config.default.json. Without this a command there found
 * no config and checked the defaults while `npm start` ran another (docs/design.md §5).
 * Elsewhere undefined: the default places of §5.
 */
async function checkoutConfig(fs: Fs, cwd: string): Promise<string | undefined> {
  const inCwd = (name: string) => path.join(cwd, name);
  const [start, bundled] = await Promise.all([statIfExists(fs, inCwd('scripts/start.mjs')), statIfExists(fs, inCwd('config.default.json'))]);
  if (!start?.isFile() || !bundled?.isFile()) return undefined;
  return (await statIfExists(fs, inCwd('config.json'))) ? inCwd('config.json') : inCwd('config.default.json');
}

/**
 * Load the configuration for a command; a bad config is exit 2 with every problem listed, and
 * so is a `VaultPath` that is not a folder (vault-path.ts; the bundled default seeds its own).
 */
export async function loadCommandConfig(
  opts: GlobalOptions,
  deps: Pick<CommandDeps, 'fs' | 'env' | 'cwd'>,
  needs: { vault?: boolean } = {},
): Promise<AppConfig> {
  let config: AppConfig;
  try {
    config = await readCommandConfig(opts, deps);
  } catch (err) {
    if (err instanceof ConfigError) throw new CliError(err.message, EXIT_USAGE);
    throw err;
  }
  const missing = needs.vault === false ? undefined : await vaultPathProblem(config, deps.fs);
  if (missing) throw new CliError(missing, EXIT_USAGE);
  return config;
}

/**
 * A `VaultPath` that names no folder is a mistake in the configuration (docs/design.md §6,
 * exit 2), not a vault to create: a typo would otherwise start an empty vault beside the
 * real one and wait there forever. The bundled config.default.json is the one exception,
 * as `run` seeds its ./vault with the example on first start (example-vault.ts).
 */
async function vaultPathProblem(config: AppConfig, fs: Fs): Promise<string | undefined> {
  if (isBundledDefaultConfig(config.file)) return undefined;
  const root = config.layout.root;
  const where = config.file ? `VaultPath in ${config.file}` : 'VaultPath (no config file was found, so the default ./vault)';
  const stat = await statIfExists(fs, root);
  if (!stat) return `the vault ${root} does not exist (${where}); point VaultPath at your vault, or create the folder`;
  if (!stat.isDirectory()) return `the vault ${root} is not a folder (${where})`;
  return undefined;
}

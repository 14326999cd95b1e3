import { type AppConfig, ConfigError, loadConfig } from '../config.js';
import { nodeFs } from '../vault/fs.js';
import { MeetingAssistantError } from '../errors.js';

/** Exit codes of every command (DESIGN section 6). */
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

/** Load the configuration for a command; a bad config is exit 2 with every problem listed. */
export async function loadCommandConfig(options: GlobalOptions): Promise<AppConfig> {
  try {
    return await loadConfig({ configPath: options.config, fs: nodeFs });
  } catch (err) {
    if (err instanceof ConfigError) throw new CliError(err.message, EXIT_USAGE);
    throw err;
  }
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

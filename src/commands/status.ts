import { CliError, EXIT_USAGE, type GlobalOptions } from './common.js';

export async function status(_opts: GlobalOptions): Promise<number> {
  throw new CliError('status is not available yet', EXIT_USAGE);
}

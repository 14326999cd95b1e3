import { CliError, EXIT_USAGE, type GlobalOptions } from './common.js';

export async function doctor(_opts: GlobalOptions): Promise<number> {
  throw new CliError('doctor is not available yet', EXIT_USAGE);
}

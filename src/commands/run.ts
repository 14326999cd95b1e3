import { CliError, EXIT_USAGE, type GlobalOptions } from './common.js';

export async function run(_opts: GlobalOptions): Promise<number> {
  throw new CliError('run is not available yet', EXIT_USAGE);
}

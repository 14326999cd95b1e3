import { CliError, EXIT_USAGE, type GlobalOptions } from './common.js';

export async function logs(_opts: GlobalOptions & { follow?: boolean }): Promise<number> {
  throw new CliError('logs is not available yet', EXIT_USAGE);
}

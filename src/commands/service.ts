import { CliError, EXIT_USAGE, type GlobalOptions } from './common.js';

import type { ServiceOptions } from '../cli.js';

export async function installService(_opts: GlobalOptions & ServiceOptions): Promise<number> {
  throw new CliError('install-service is not available yet', EXIT_USAGE);
}

export async function uninstallService(_opts: GlobalOptions & ServiceOptions): Promise<number> {
  throw new CliError('uninstall-service is not available yet', EXIT_USAGE);
}

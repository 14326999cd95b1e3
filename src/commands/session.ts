import { CliError, EXIT_USAGE, type GlobalOptions } from './common.js';

import type { SessionStartOptions } from '../cli.js';

export async function sessionStart(_opts: GlobalOptions & SessionStartOptions): Promise<number> {
  throw new CliError('session start is not available yet', EXIT_USAGE);
}

export async function sessionState(_note: string, _state: string, _opts: GlobalOptions): Promise<number> {
  throw new CliError('session state is not available yet', EXIT_USAGE);
}

export async function sessionStop(_note: string, _opts: GlobalOptions): Promise<number> {
  throw new CliError('session stop is not available yet', EXIT_USAGE);
}

import { CliError, EXIT_USAGE, type GlobalOptions } from './common.js';

export async function summarize(_note: string, _opts: GlobalOptions): Promise<number> {
  throw new CliError('summarize is not available yet', EXIT_USAGE);
}

export async function retry(_note: string, _opts: GlobalOptions): Promise<number> {
  throw new CliError('retry is not available yet', EXIT_USAGE);
}

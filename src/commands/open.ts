import { type CommandRunner, findOnPath, launch } from '../external-programs.js';
import { statusPageUrl } from '../instance/status-page-url.js';
import { daemonBaseUrl } from '../instance/daemon-claim.js';
import { daemonProof, type DaemonProof, NotOurDaemonError } from '../instance/daemon-proof.js';
import { readHttpToken } from '../vault/files/state.js';
import { Vault } from '../vault/files/vault.js';
import { CliError, type CommandDeps, EXIT_FAILED, EXIT_OK, EXIT_USAGE, type GlobalOptions, loadCommandConfig, withDefaults } from './common.js';

/**
 * `open [--print]`: the status page in the default browser, signed in by the token in its
 * address (the page turns it into a cookie and drops it from the address bar), or that
 * address printed.
 */

export interface OpenOptions extends GlobalOptions {
  print?: boolean;
}

export interface OpenDeps extends CommandDeps {
  platform: NodeJS.Platform;
  findCommand(name: string): string | undefined;
  run: CommandRunner;
  /** Whether this vault's daemon answers at this base URL, proving it holds the token (instance/daemon-proof.ts). */
  daemonUp(baseUrl: string, token: string): Promise<DaemonProof>;
}

const defaults: Omit<OpenDeps, keyof CommandDeps> = {
  platform: process.platform,
  findCommand: (name) => findOnPath(name),
  run: (command, args) => launch(command, args),
  daemonUp: (baseUrl, token) => daemonProof(baseUrl, token, 1500),
};

const OPENERS: Partial<Record<NodeJS.Platform, string>> = { linux: 'xdg-open', darwin: 'open', freebsd: 'xdg-open', openbsd: 'xdg-open' };

export async function open(opts: OpenOptions, given: Partial<OpenDeps> = {}): Promise<number> {
  const deps = withDefaults<OpenDeps>(given, defaults);
  const config = await loadCommandConfig(opts, deps);
  const http = config.settings.Http;
  if (!http.Enabled) {
    throw new CliError('the status page is served by the daemon\'s HTTP server, and MeetingAssistant.Http.Enabled is false', EXIT_USAGE);
  }
  const vault = new Vault(deps.fs, config.layout);
  const token = await readHttpToken(vault, http);
  if (!token) throw new CliError('no HTTP token yet: the daemon has not run on this vault. Start it (meeting-assistant run, or the service) first.');
  const base = await daemonBaseUrl(vault, http, { env: deps.env });
  const url = statusPageUrl(base, token);
  if (opts.print) {
    deps.io.out(url);
    return EXIT_OK;
  }
  // The browser would send the token to whatever holds the address: another program there gets none.
  const up = await deps.daemonUp(base, token);
  if (up === 'refused') throw new CliError(new NotOurDaemonError(base).message, EXIT_FAILED);
  if (up === 'silent') {
    deps.io.err(`warning: the daemon does not answer on ${base}; the page loads once it runs`);
  }
  const name = OPENERS[deps.platform];
  const opener = name ? deps.findCommand(name) : undefined;
  if (!opener) {
    deps.io.err(`cannot open a browser here (${name ? `${name} is not on PATH` : `no opener known for ${deps.platform}`}); open this address yourself:`);
    deps.io.out(url);
    return EXIT_FAILED;
  }
  const result = await deps.run(opener, [url]);
  if (result.code !== 0) {
    deps.io.err(`${name} failed (${result.stderr.trim() || `exit code ${result.code}`}); open this address yourself:`);
    deps.io.out(url);
    return EXIT_FAILED;
  }
  // The address carries the token: not printed unless asked for.
  deps.io.out(`opened the status page (${base}/) in the default browser`);
  return EXIT_OK;
}

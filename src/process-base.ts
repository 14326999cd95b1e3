import type { Clock } from './clock.js';
import type { AppConfig } from './config.js';
import { addLogSecret, createLoggerFromConfig, type Logger } from './log.js';
import { ServerWindowSource } from './agent/window/server-window.js';
import { ensureHttpToken } from './vault/files/state.js';
import { nodeFs, type Fs } from './vault/files/fs.js';
import { Vault } from './vault/files/vault.js';

/**
 * What every process of one vault builds first, before anything of a run: the vault (its
 * write events logged), the HTTP token, the logger and what the server says of its window.
 * The daemon's own process stops here when its runs happen in the run process
 * (daemon/runs/run-process/); runtime.ts adds what runs need (docs/design.md §8).
 */
export interface ProcessBase {
  config: AppConfig;
  vault: Vault;
  log: Logger;
  token: string;
  /** What the server says its context window is (asked at start and when a run begins). */
  serverWindow: ServerWindowSource;
}

export interface ProcessBaseOptions {
  fs?: Fs;
  log?: Logger;
  /** For the server's info routes (tests); default the global fetch. */
  fetch?: typeof fetch;
  clock?: Clock;
}

export async function openProcessBase(config: AppConfig, options: ProcessBaseOptions = {}): Promise<ProcessBase> {
  const vault = new Vault(options.fs ?? nodeFs, config.layout, options.clock ? { clock: options.clock } : {});
  const token = await ensureHttpToken(vault, config.settings.Http);
  const log = options.log ?? createLoggerFromConfig(config);
  addLogSecret(log, token);
  vault.onLateWrite(({ outcome, ...event }) => {
    if (outcome === 'merged') log.debug(event, 'merged a late write into a replaced note');
    else if (outcome === 'restored') log.debug(event, 'a stale rewrite of a note dropped the lines just written; put back');
    else log.warn(event, outcome === 'failed' ? 'could not merge a late write into a note' : 'a late write to a replaced note did not apply; kept in .trash');
  });
  vault.onSkippedWrite((err) => log.warn({ file: err.file, reason: err.reason }, `frontmatter edit skipped: ${err.message}`));
  return { config, vault, log, token, serverWindow: serverWindowSource(config, log, options) };
}

/** What the server says of its window (docs/design.md §3 step 8), asked with the configured endpoint. */
export function serverWindowSource(config: AppConfig, log: Logger, options: Pick<ProcessBaseOptions, 'fetch' | 'clock'> = {}): ServerWindowSource {
  const { Endpoint: endpoint, ContextWindow } = config.settings;
  return new ServerWindowSource({
    baseUrl: endpoint.BaseUrl,
    model: endpoint.Model,
    ...(config.apiKey ? { apiKey: config.apiKey } : {}),
    ...(options.fetch ? { fetch: options.fetch } : {}),
    loadTimeoutMs: endpoint.TimeoutSeconds * 1000,
    configured: ContextWindow.Tokens,
    log,
    ...(options.clock ? { clock: options.clock } : {}),
  });
}

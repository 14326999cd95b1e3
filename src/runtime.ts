import type { Clock } from './clock.js';
import type { AppConfig } from './config.js';
import { addLogSecret, createLoggerFromConfig, type Logger } from './log.js';
import { createModelClient } from './agent/model/client.js';
import { WindowBudget } from './agent/window/window-budget.js';
import { createOpenAI } from './agent/model/openai-sdk.js';
import { createRemoteCompactor } from './agent/window/remote-compaction.js';
import { ServerWindowSource } from './agent/window/server-window.js';
import { ensureHttpToken, retryUrl } from './vault/state.js';
import type { PipelineDeps } from './meeting/pipeline.js';
import { nodeFs, type Fs } from './vault/fs.js';
import { Vault } from './vault/vault.js';
import { RunCaches, type RunCachesOptions } from './tools/run-caches.js';

/**
 * Everything one process needs to run meetings, built once from the configuration: the
 * CLI's one-shot commands and the daemon share it, so a run behaves the same either way.
 */
export interface Runtime {
  config: AppConfig;
  vault: Vault;
  log: Logger;
  token: string;
  pipeline: PipelineDeps;
  /** What the server says its context window is (asked at start and when a run begins). */
  serverWindow: ServerWindowSource;
  /** What the runs share, released when idle; the owner (daemon, command) closes it. */
  caches: RunCaches;
}

export interface RuntimeOptions {
  fs?: Fs;
  log?: Logger;
  /** For the server's info routes (tests); default the global fetch. */
  fetch?: typeof fetch;
  clock?: Clock;
  /** The caches' idle release and timers (tests); default a minute. */
  caches?: RunCachesOptions;
}

export async function createRuntime(config: AppConfig, options: RuntimeOptions = {}): Promise<Runtime> {
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
  const settings = config.settings;
  const model = createModelClient(config, options.clock);
  // One remote compactor per process: an endpoint that answered 404 is not asked again.
  const remote = settings.ContextWindow.Compaction.Enabled
    ? createRemoteCompactor({ openai: createOpenAI(settings.Endpoint, config.apiKey), settings, log })
    : undefined;
  const endpoint = settings.Endpoint;
  const serverWindow = new ServerWindowSource({
    baseUrl: endpoint.BaseUrl,
    model: endpoint.Model,
    ...(config.apiKey ? { apiKey: config.apiKey } : {}),
    ...(options.fetch ? { fetch: options.fetch } : {}),
    loadTimeoutMs: endpoint.TimeoutSeconds * 1000,
    configured: settings.ContextWindow.Tokens,
    log,
    ...(options.clock ? { clock: options.clock } : {}),
  });
  const caches = new RunCaches(vault, options.caches);
  const pipeline: PipelineDeps = {
    vault,
    caches,
    config,
    log,
    model,
    retryUrl: (rel) => retryUrl(settings.Http, token, rel),
    ...(options.clock ? { clock: options.clock } : {}),
    contextManager: (runLog) =>
      new WindowBudget({
        settings: settings.ContextWindow,
        api: settings.Endpoint.Api,
        model,
        remote,
        log: runLog,
        // When a run begins: an Ollama model that is not loaded is loaded to tell its window.
        serverWindow: () => serverWindow.get(true, runLog).then((told) => told?.tokens),
      }),
  };
  return { config, vault, log, token, pipeline, serverWindow, caches };
}

import type { AppConfig } from './config.js';
import { createModelClient } from './agent/model/client.js';
import { WindowBudget } from './agent/window/window-budget.js';
import { createOpenAI } from './agent/model/openai-sdk.js';
import { createRemoteCompactor } from './agent/window/remote-compaction.js';
import { retryUrl } from './vault/files/state.js';
import type { PipelineDeps } from './meeting/pipeline.js';
import { ToolsRefusals } from './meeting/without-tools/memory.js';
import { openProcessBase, type ProcessBase, type ProcessBaseOptions } from './process-base.js';
import { RunCaches, type RunCachesOptions } from './tools/binding/run-caches.js';

/**
 * Everything one process needs to run meetings, built once from the configuration: the
 * CLI's one-shot commands and the daemon share it, so a run behaves the same either way.
 */
export interface Runtime extends ProcessBase {
  pipeline: PipelineDeps;
  /** What the runs share, released when idle; the owner (daemon, command) closes it. */
  caches: RunCaches;
}

export interface RuntimeOptions extends ProcessBaseOptions {
  /** The caches' idle release and timers (tests); default a minute. */
  caches?: RunCachesOptions;
}

export async function createRuntime(config: AppConfig, options: RuntimeOptions = {}): Promise<Runtime> {
  const { vault, token, log, serverWindow } = await openProcessBase(config, options);
  const settings = config.settings;
  const model = createModelClient(config, options.clock);
  // One remote compactor per process: an endpoint that answered 404 is not asked again.
  const remote = settings.ContextWindow.Compaction.Enabled
    ? createRemoteCompactor({ openai: createOpenAI(settings.Endpoint, config.apiKey), settings, log })
    : undefined;
  const caches = new RunCaches(vault, options.caches);
  const pipeline: PipelineDeps = {
    vault,
    caches,
    config,
    log,
    model,
    retryUrl: (rel) => retryUrl(settings.Http, token, rel),
    // A server seen refusing tools is not asked with tools again while this process runs meetings (docs/design.md §3 step 11).
    toolsRefusals: new ToolsRefusals(),
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

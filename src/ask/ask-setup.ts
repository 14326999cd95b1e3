import { createModelClient } from '../agent/model/client.js';
import { createOpenAI } from '../agent/model/openai-sdk.js';
import { createRemoteCompactor } from '../agent/window/remote-compaction.js';
import { WindowBudget } from '../agent/window/window-budget.js';
import type { AppConfig } from '../config.js';
import type { Logger } from '../log.js';
import { serverWindowSource } from '../process-base.js';
import type { RunCaches } from '../tools/binding/run-caches.js';
import type { Vault } from '../vault/files/vault.js';
import type { AskDeps } from './ask-run.js';
import { createMeetingToolsContext } from '../mcp/meeting-tools.js';
import { type FolderWatcher, watchMeetingFolders } from '../mcp/watch.js';

/**
 * A process that answers many questions (the daemon) watches the meeting folders as the MCP
 * server does (mcp/watch.ts): warm calls then read no note that did not change.
 */
export function watchForQuestions(vault: Vault, caches: RunCaches, log: Logger): Promise<FolderWatcher> {
  return watchMeetingFolders(vault, caches.watch, log);
}

/**
 * What a question needs, built from the configuration alone, writing nothing (docs/design.md
 * §11): unlike runtime.ts, no HTTP token is made and no state folder touched, so `ask` leaves
 * the vault, the config and HOME as they were. The window budget is §3's, the server asked for
 * its real window as a summary run asks it.
 */
export function createAskDeps(config: AppConfig, parts: { vault: Vault; log: Logger; caches: RunCaches; fetch?: typeof fetch }): AskDeps {
  const { settings } = config;
  const model = createModelClient(config);
  const remote = settings.ContextWindow.Compaction.Enabled
    ? createRemoteCompactor({ openai: createOpenAI(settings.Endpoint, config.apiKey), settings, log: parts.log })
    : undefined;
  const serverWindow = serverWindowSource(config, parts.log, parts.fetch ? { fetch: parts.fetch } : {});
  return {
    settings,
    log: parts.log,
    model,
    meetings: createMeetingToolsContext({ vault: parts.vault, settings, log: parts.log, caches: parts.caches }),
    context: (log) =>
      new WindowBudget({
        settings: settings.ContextWindow,
        api: settings.Endpoint.Api,
        model,
        remote,
        log,
        serverWindow: () => serverWindow.get(true, log).then((told) => told?.tokens),
      }),
  };
}

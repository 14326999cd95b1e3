import type { AppConfig } from '../../config.js';
import type { Logger } from '../../log.js';
import type { Vault } from '../../vault/vault.js';
import type { Asker } from './ask-route.js';

/**
 * The daemon's questions (docs/design.md §11), run in the daemon's own process beside the
 * summary runs. The ask code, the model client and the caches are loaded at the first
 * question, not at start: an idle daemon holds no run code (docs/design.md §8). They share one
 * meeting index and its caches, kept fresh by a watcher of the meeting folders.
 */
export function lazyAsker(config: AppConfig, vault: Vault, log: Logger): { ask: Asker; close(): void } {
  let made: Promise<{ ask: Asker; close(): Promise<void> }> | undefined;
  const make = async () => {
    const [{ askMeetings }, { createAskDeps, watchForQuestions }, { RunCaches }] = await Promise.all([
      import('../../ask/ask-run.js'),
      import('../../ask/ask-setup.js'),
      import('../../tools/run-caches.js'),
    ]);
    const caches = new RunCaches(vault);
    const watcher = await watchForQuestions(vault, caches, log);
    const deps = createAskDeps(config, { vault, log: log.child({ ask: true }), caches });
    return { ask: ((request) => askMeetings(deps, request)) satisfies Asker, close: () => watcher.close().finally(() => caches.close()) };
  };
  let closed = false;
  return {
    ask: async (request) => {
      // A first question that could not set up (a folder unreadable) leaves the next to try again.
      made ??= make().catch((err: unknown) => {
        made = undefined;
        throw err;
      });
      return (await made).ask(request);
    },
    close() {
      if (closed) return;
      closed = true;
      void made?.then((m) => m.close()).catch(() => undefined);
    },
  };
}

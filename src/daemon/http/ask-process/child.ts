import { askMeetings } from '../../../ask/ask-run.js';
import { createAskDeps } from '../../../ask/ask-setup.js';
import { isExpectedError } from '../../../errors.js';
import { createLogger, type Logger } from '../../../log.js';
import { RunCaches } from '../../../tools/binding/run-caches.js';
import { nodeFs } from '../../../vault/files/fs.js';
import { Vault } from '../../../vault/files/vault.js';
import type { FromAskProcess, ToAskProcess } from './messages.js';

/**
 * A question's process (docs/design.md §8, §11): the daemon forks one per question, as it
 * forks the run process for runs, so that the ask code, the agent loop, the model client and
 * the tools' caches never load into the daemon's own process. It answers the one question it
 * is sent, tells the daemon the text as it arrives and then the answer, and exits. `abort`
 * (the client went away) stops the question and its model request; it writes nothing.
 */

for (const signal of ['SIGINT', 'SIGTERM', 'SIGHUP'] as const) process.on(signal, () => undefined);
process.on('disconnect', () => process.exit(0));

function send(message: FromAskProcess, then?: () => void): void {
  if (!process.connected) return;
  process.send!(message, undefined, {}, () => then?.());
}

function finish(message: FromAskProcess): void {
  send(message, () => process.exit(0));
}

process.on('uncaughtException', (err) => {
  send({ type: 'failed', message: `the question's process failed: ${err.message}`, expected: false }, () => process.exit(1));
  setTimeout(() => process.exit(1), 1000).unref();
});

const stopped = new AbortController();

async function answer(message: Extract<ToAskProcess, { type: 'ask' }>): Promise<void> {
  const { config } = message;
  const log: Logger = createLogger({
    level: config.settings.Logging.Level,
    destination: { write: (line: string) => send({ type: 'log', line }) },
    secrets: [config.apiKey, config.settings.Http.Token],
  });
  const vault = new Vault(nodeFs, config.layout);
  const caches = new RunCaches(vault);
  try {
    const result = await askMeetings(createAskDeps(config, { vault, log: log.child({ ask: true }), caches }), {
      question: message.question,
      filters: message.filters,
      signal: stopped.signal,
      onText: (text) => send({ type: 'text', text }),
    });
    finish({ type: 'answer', answer: result });
  } catch (err) {
    finish({ type: 'failed', message: err instanceof Error ? err.message : String(err), expected: isExpectedError(err) });
  } finally {
    caches.close();
  }
}

process.on('message', (message: ToAskProcess) => {
  if (message.type === 'ask') void answer(message);
  else stopped.abort();
});

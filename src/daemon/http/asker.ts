import type { AskAnswer } from '../../ask/ask-run.js';
import type { AppConfig } from '../../config.js';
import { MeetingAssistantError } from '../../errors.js';
import type { Logger } from '../../log.js';
import type { Vault } from '../../vault/files/vault.js';
import { forkDaemonChild, relog, relogger } from '../runs/run-process/child-process.js';
import type { Asker } from './ask-route.js';
import type { FromAskProcess, ToAskProcess } from './ask-process/messages.js';

/**
 * The daemon's questions (docs/design.md §8, §11). The daemon's own process never loads the
 * model client, the agent or the tools' caches: each question is answered in a process of its
 * own (ask-process/child.ts), forked for it and ended with it, whose log lines join the
 * daemon's log. Each process builds its meeting index anew: the price of a daemon that stays
 * small between questions. Tests on memfs, whose runs stay in the daemon's process, ask in it too
 * (`askInThisProcess`: the ask code loaded at the first question).
 */

/** A question's own failure, or a fault, told by its process. */
export class QuestionError extends MeetingAssistantError {}

/** How long a stopped question's process may take to end before it is killed. */
const ABORT_KILL_MS = 3000;

export function askInProcesses(config: AppConfig, log: Logger): { ask: Asker; close(): void } {
  const children = new Set<{ kill(signal?: NodeJS.Signals): boolean }>();
  const relogs = relogger(log);
  return {
    ask: (request) =>
      new Promise<AskAnswer>((resolve, reject) => {
        const child = forkDaemonChild(new URL('./ask-process/child.js', import.meta.url));
        children.add(child);
        let settled = false;
        const settle = (done: () => void) => {
          if (settled) return;
          settled = true;
          request.signal?.removeEventListener('abort', stop);
          done();
        };
        // The person went away: the question and its model request stop; a process that does not end soon is killed.
        const stop = () => {
          child.send({ type: 'abort' } satisfies ToAskProcess, () => undefined);
          setTimeout(() => child.kill('SIGKILL'), ABORT_KILL_MS).unref();
          settle(() => reject(new QuestionError('the question was stopped', true)));
        };
        if (request.signal?.aborted) return stop();
        request.signal?.addEventListener('abort', stop, { once: true });
        child.on('message', (message: FromAskProcess) => {
          if (message.type === 'log') relog(relogs, message.line);
          else if (message.type === 'text') request.onText?.(message.text);
          else if (message.type === 'answer') settle(() => resolve(message.answer));
          else settle(() => reject(new QuestionError(message.message, message.expected)));
        });
        child.on('error', (err) => settle(() => reject(new QuestionError(`the question's process could not start: ${err.message}`, false))));
        child.on('exit', (code, signal) => {
          children.delete(child);
          settle(() => reject(new QuestionError(`the question's process ended without an answer (${signal ?? `exit code ${code}`})`, false)));
        });
        child.send({ type: 'ask', config, question: request.question, filters: request.filters } satisfies ToAskProcess);
      }),
    close() {
      for (const child of children) child.kill('SIGKILL');
      children.clear();
    },
  };
}

export function askInThisProcess(config: AppConfig, vault: Vault, log: Logger): { ask: Asker; close(): void } {
  let made: Promise<{ ask: Asker; close(): Promise<void> }> | undefined;
  const make = async () => {
    const [{ askMeetings }, { createAskDeps, watchForQuestions }, { RunCaches }] = await Promise.all([
      import('../../ask/ask-run.js'),
      import('../../ask/ask-setup.js'),
      import('../../tools/binding/run-caches.js'),
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

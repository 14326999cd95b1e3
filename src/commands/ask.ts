import pino from 'pino';
import { askMeetings } from '../ask/ask-run.js';
import { createAskDeps } from '../ask/ask-setup.js';
import { AskError } from '../ask/failure.js';
import { askFilters } from '../ask/filters.js';
import { sourceLine } from '../ask/sources.js';
import { createLoggerFromConfig, flushLogger } from '../log.js';
import { RunCaches } from '../tools/binding/run-caches.js';
import { Vault } from '../vault/files/vault.js';
import { answerPrinter, SOURCES_HEADER } from '../ask/terminal-text.js';
import { terminalSafe } from '../vault/format/terminal-text.js';
import { CliError, type CommandDeps, EXIT_FAILED, EXIT_OK, EXIT_USAGE, type GlobalOptions, loadCommandConfig, withDefaults } from './common.js';

export interface AskOptions extends GlobalOptions {
  project?: string[];
  from?: string;
  to?: string;
  json?: boolean;
}

/** Where the answer goes: stdout, written as it arrives when it is a terminal. */
export interface AskCommandDeps extends CommandDeps {
  stdout: { isTTY: boolean; write(text: string): void };
}

const processStdout: AskCommandDeps['stdout'] = {
  get isTTY() {
    return process.stdout.isTTY;
  },
  write: (text) => void process.stdout.write(text),
};

/**
 * `ask "<question>"` (docs/design.md §11): the answer from the meetings on stdout and nothing
 * else (the log goes to stderr, as `mcp`'s does), streamed on a terminal, the sources at the
 * end; `--json` the whole of it as one object. Exit 0 with an answer, 1 when the endpoint or
 * the model failed, 2 on bad arguments. Nothing is written anywhere: not even the HTTP token.
 */
export async function ask(question: string, opts: AskOptions, given: Partial<AskCommandDeps> = {}): Promise<number> {
  const deps = withDefaults<AskCommandDeps>(given, { stdout: processStdout });
  if (question.trim() === '') throw new CliError('the question is empty; ask it in quotes: meeting-assistant ask "What did we decide about the budget?"', EXIT_USAGE);
  let filters;
  try {
    filters = askFilters({ projects: opts.project ?? [], from: opts.from, to: opts.to });
  } catch (err) {
    throw new CliError(err instanceof Error ? err.message : String(err), EXIT_USAGE);
  }
  const config = await loadCommandConfig(opts, deps);
  const vault = new Vault(deps.fs, config.layout);
  const log = createLoggerFromConfig(config, { destination: pino.destination({ fd: 2, sync: true }) });
  const caches = new RunCaches(vault);
  const streaming = deps.stdout.isTTY && opts.json !== true;
  let streamed = false;
  // The answer and the titles are a model's and the notes' text: no terminal escapes, no forged sources block (terminal-text.ts).
  const answer = answerPrinter((text) => deps.stdout.write(text));
  try {
    const result = await askMeetings(createAskDeps(config, { vault, log, caches }), {
      question,
      filters,
      ...(streaming ? { onText: (text: string) => ((streamed = true), answer.push(text)) } : {}),
    });
    if (opts.json === true) {
      deps.stdout.write(`${JSON.stringify({ answer: result.answer, sources: result.sources, turns: result.turns }, null, 2)}\n`);
      return EXIT_OK;
    }
    if (!streamed) answer.push(result.answer);
    answer.end();
    const sources = result.sources.map((source) => terminalSafe(sourceLine(source)));
    deps.stdout.write(`\n${sources.length > 0 ? `\n${SOURCES_HEADER}\n${sources.join('\n')}\n` : ''}`);
    return EXIT_OK;
  } catch (err) {
    if (!(err instanceof AskError)) throw err;
    answer.end();
    if (streamed) deps.stdout.write('\n');
    deps.io.err(`meeting-assistant: ${err.message}`);
    return EXIT_FAILED;
  } finally {
    caches.close();
    await flushLogger(log);
  }
}

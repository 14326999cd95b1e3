import { prettyFormatter } from '../log-pretty.js';
import { currentLogFile, followLog, tailLines } from '../service/log-files.js';
import { launchdLogFile, SYSTEMD_UNIT_NAME } from '../service/paths.js';
import { CliError, type CommandDeps, EXIT_OK, type GlobalOptions, homeOf, type Io, loadCommandConfig, withDefaults } from './common.js';

export interface LogsOptions extends GlobalOptions {
  follow?: boolean;
}

export interface LogsDeps extends CommandDeps {
  platform: NodeJS.Platform;
  /** Colours only for a terminal. */
  isTTY: boolean;
  /** Ends `--follow`; SIGINT/SIGTERM when absent. */
  signal?: AbortSignal;
}

/** With `--follow`, how much of the current file is shown before new lines, like `tail -f`. */
const FOLLOW_BACKLOG = 50;

/**
 * `meeting-assistant logs [-f]`: pretty-print the log file (Logging.File, or launchd's
 * StandardOutPath on macOS), or say how to read the journal when the log goes to stdout.
 */
export async function logs(opts: LogsOptions, given: Partial<LogsDeps> = {}): Promise<number> {
  const deps = withDefaults<LogsDeps>(given, { platform: process.platform, isTTY: !!process.stdout.isTTY });
  const { io, platform } = deps;
  const home = homeOf(deps.env);
  const config = await loadCommandConfig(opts, deps, { vault: false });

  let file = config.logFile;
  if (!file && platform === 'darwin' && (await currentLogFile(launchdLogFile(home)))) file = launchdLogFile(home);
  if (!file) {
    printJournalHint(io, platform, home);
    return EXIT_OK;
  }

  const pretty = prettyFormatter({ colorize: deps.isTTY, details: true, time: 'SYS:standard' });
  // Lines that are not JSON (a crash's stack trace in launchd's file) are shown as they are.
  const show = (line: string) => {
    if (line.trim() === '') return;
    io.out(pretty(line).replace(/\n$/, ''));
  };

  const current = await currentLogFile(file);
  let start: { file: string; offset: number } | undefined;
  if (current) {
    const { lines, end } = await tailLines(current, opts.follow ? FOLLOW_BACKLOG : Infinity);
    for (const line of lines) show(line);
    start = { file: current, offset: end };
  } else {
    io.err(`No log file yet: ${file} (the daemon creates it at its first start).`);
    if (!opts.follow) return EXIT_OK;
  }
  if (!opts.follow) return EXIT_OK;

  const { signal, dispose } = stopSignal(deps.signal);
  try {
    await followLog({ file, start, onLine: show, signal });
  } catch (err) {
    throw new CliError(`cannot follow ${file}: ${(err as Error).message}`);
  } finally {
    dispose();
  }
  return EXIT_OK;
}

function printJournalHint(io: Io, platform: NodeJS.Platform, home: string): void {
  if (platform === 'darwin') {
    io.out('Logging.File is not set, so the log goes to stdout. Under launchd (install-service) it is in:');
    io.out(`  ${launchdLogFile(home)}    (not there yet)`);
    io.out('Read it with:');
    io.out(`  tail -f ${launchdLogFile(home)} | npx pino-pretty`);
  } else {
    io.out('Logging.File is not set, so the log goes to stdout. Under systemd (install-service) it is in the journal:');
    io.out(`  journalctl --user -u ${SYSTEMD_UNIT_NAME} -f -o cat | npx pino-pretty`);
    io.out(`  journalctl --user -u ${SYSTEMD_UNIT_NAME} --since today -o cat | npx pino-pretty`);
  }
  io.out('Or set MeetingAssistant.Logging.File to a path: then "meeting-assistant logs -f" reads the rotated files.');
}

/** The caller's signal, or one that SIGINT/SIGTERM abort (Ctrl-C ends `logs -f` with exit 0). */
function stopSignal(given: AbortSignal | undefined): { signal: AbortSignal; dispose(): void } {
  if (given) return { signal: given, dispose: () => undefined };
  const controller = new AbortController();
  const stop = () => controller.abort();
  process.once('SIGINT', stop);
  process.once('SIGTERM', stop);
  return {
    signal: controller.signal,
    dispose: () => {
      process.off('SIGINT', stop);
      process.off('SIGTERM', stop);
    },
  };
}

import { Command, CommanderError, Option } from 'commander';
import { CliError, type CommandDeps, EXIT_FAILED, EXIT_OK, EXIT_USAGE, type GlobalOptions, processDeps } from './commands/common.js';
import type { AskOptions } from './commands/ask.js';
import type { CalendarOptions } from './commands/calendar.js';
import type { ImportOptions } from './commands/import.js';
import type { LogsOptions } from './commands/logs.js';
import type { OpenOptions } from './commands/open.js';
import type { ServiceOptions } from './commands/service.js';
import type { SessionStartOptions } from './commands/session.js';
import { isExpectedError } from './errors.js';
import { packageVersion } from './version.js';

/**
 * The `meeting-assistant` command line (docs/design.md §6). Each command lives in its own
 * module under src/commands/, loaded only when that command runs, and gets `deps()`: the
 * process's streams, disk, environment, working folder and clock, read when it runs.
 */
export function buildProgram(setExit: (code: number) => void, deps: () => CommandDeps = processDeps): Command {
  const program = new Command('meeting-assistant')
    .description('Turns finished meeting transcripts in a Markdown vault into summary notes.')
    .version(packageVersion(), '-V, --version', 'print the version')
    .showHelpAfterError()
    .exitOverride();
  const act =
    <A extends unknown[]>(fn: (...args: A) => Promise<number>) =>
    async (...args: A) => {
      setExit(await fn(...args));
    };
  const declare: Declare = { program, act, deps };
  addRunCommands(declare);
  addSessionCommands(declare);
  addSetupCommands(declare);
  return program;
}

/** What the command groups are declared with: the program, the exit-code setter, the deps. */
interface Declare {
  program: Command;
  act<A extends unknown[]>(fn: (...args: A) => Promise<number>): (...args: A) => Promise<void>;
  deps: () => CommandDeps;
}

function withConfig(cmd: Command): Command {
  return cmd.option('--config <file>', 'config file (default ./config.json, else $XDG_CONFIG_HOME/meeting-assistant/config.json)');
}

/** run, summarize, retry, status, calendar, mcp: the daemon, one-off runs and the meetings' MCP server. */
function addRunCommands({ program, act, deps }: Declare): void {
  withConfig(program.command('run'))
    .description('run the daemon in the foreground (what the services start)')
    .action(act(async (opts: GlobalOptions) => (await import('./commands/run.js')).run(opts, deps())));

  withConfig(program.command('summarize'))
    .description('summarize one meeting now, then exit (0 done, 1 failed)')
    .argument('<meeting-note>', 'the meeting note: vault-relative (.md optional), relative to here, absolute, or a note name')
    .action(
      act(async (note: string, opts: GlobalOptions) => (await import('./commands/summarize.js')).summarize(note, opts, deps())),
    );

  withConfig(program.command('retry'))
    .description('retry one summary note (a failure report or a summary to regenerate), then exit')
    .argument('<summary-note>', "the summary note, or a meeting note for its summary (named as for summarize)")
    .action(act(async (note: string, opts: GlobalOptions) => (await import('./commands/summarize.js')).retry(note, opts, deps())));

  withConfig(program.command('import'))
    .description('import transcripts or recordings as meetings, then summarize them (docs/importing.md)')
    .argument('<file...>', 'transcript files (.vtt .srt .json .txt .md .docx) or recordings; copied, the originals stay')
    .option('--title <title>', 'the meeting title (default: from the file name)')
    .option('--projects <list>', 'comma-separated project names')
    .option('--start <iso>', 'the start time (default: from the file name, else its modification time)')
    .action(act(async (files: string[], opts: ImportOptions) => (await import('./commands/import.js')).importFiles(files, opts, deps())));

  withConfig(program.command('status'))
    .description("meetings and their states, newest first; the daemon's queue when it runs")
    .action(act(async (opts: GlobalOptions) => (await import('./commands/status.js')).status(opts, deps())));

  withConfig(program.command('calendar'))
    .description("the calendar's events (default: today's), the meeting note of each, and how each calendar was read (docs/calendar.md)")
    .option('--from <date>', 'the first local day, YYYY-MM-DD (default: today)')
    .option('--to <date>', 'the last local day, YYYY-MM-DD, included (default: the --from day)')
    .option('--json', 'print {"events": [...], "sources": [...]} (docs/design.md §12) instead of text')
    .action(act(async (opts: CalendarOptions) => (await import('./commands/calendar.js')).calendar(opts, deps())));

  withConfig(program.command('mcp'))
    .description('serve the meetings to MCP clients (Claude Desktop, LM Studio, …) on stdin/stdout; read-only')
    .action(act(async (opts: GlobalOptions) => (await import('./commands/mcp.js')).mcp(opts, deps())));

  withConfig(program.command('ask'))
    .description('answer a question from past meetings with the configured endpoint; read-only (docs/asking.md)')
    .argument('<question>', 'the question, in quotes')
    .option('--project <name>', 'only meetings of this project (repeat for more)', (value: string, list: string[] | undefined) => [...(list ?? []), value])
    .option('--from <date>', 'only meetings from this ISO date on (inclusive)')
    .option('--to <date>', 'only meetings up to this ISO date (inclusive)')
    .option('--json', 'print {"answer", "sources": [{"path", "title", "start_time"}], "turns"} instead of text')
    .addHelpText(
      'after',
      [
        '',
        'The answer goes to stdout (as it arrives on a terminal), ending with the notes it drew on,',
        'one a line: - [[<note>]] <title>, <date>. The log goes to stderr. Exit 0 answered,',
        '1 the endpoint or the model failed, 2 bad arguments or configuration.',
        '',
        'Examples:',
        '  meeting-assistant ask "What did we decide about the release date?"',
        '  meeting-assistant ask "Who owns the rollback runbook?" --project Beta --from 2026-11-01',
        '  meeting-assistant ask "Open questions from last week" --json',
      ].join('\n'),
    )
    .action(act(async (question: string, opts: AskOptions) => (await import('./commands/ask.js')).ask(question, opts, deps())));
}

/** session start | state | finish | stop: what recorders and transcribers call. */
function addSessionCommands({ program, act, deps }: Declare): void {
  const session = program.command('session').description('recorder and transcriber integration');
  withConfig(session.command('start'))
    .description('create the meeting, transcript and context notes of a new meeting')
    .option('--title <title>', 'meeting title (default: the calendar\'s event in progress)')
    .option('--projects <list>', 'comma-separated project names')
    .option('--agenda <text>', 'agenda')
    .option('--scheduled-end <iso>', 'scheduled end time (ISO 8601)')
    .action(
      act(async (opts: SessionStartOptions) =>
        (await import('./commands/session.js')).sessionStart(opts, deps()),
      ),
    );
  withConfig(session.command('state'))
    .description("set a meeting's context state")
    .argument('<meeting-note>', 'the meeting note')
    .argument('<state>', "collecting metadata | transcribing | speaker recognition (the daemon's own states are refused: see session finish)")
    .action(
      act(async (note: string, state: string, opts: GlobalOptions) =>
        (await import('./commands/session.js')).sessionState(note, state, opts, deps()),
      ),
    );
  withConfig(session.command('finish'))
    .description("the recorder's last call: set the transcript's state to Daemon.TriggerState (starts the summary) and end_time where missing")
    .argument('<meeting-note>', 'the meeting note')
    .action(
      act(async (note: string, opts: GlobalOptions) => (await import('./commands/session.js')).sessionFinish(note, opts, deps())),
    );
  withConfig(session.command('stop'))
    .description('write end_time to the meeting and context notes')
    .argument('<meeting-note>', 'the meeting note')
    .action(
      act(async (note: string, opts: GlobalOptions) => (await import('./commands/session.js')).sessionStop(note, opts, deps())),
    );
}

/** init, doctor, install-service, uninstall-service, logs, open: setting up and looking in. */
function addSetupCommands({ program, act, deps }: Declare): void {
  program
    .command('init')
    .argument('[folder]', 'the folder to write config.json and vault/ into', '.')
    .description('write a config and the example vault into a folder, to try it')
    .action(act(async (folder: string) => (await import('./commands/init.js')).init(folder, deps())));

  withConfig(program.command('doctor'))
    .description('check config, vault folders, endpoint, model and key; say how to fix what is wrong')
    .action(act(async (opts: GlobalOptions) => (await import('./commands/doctor.js')).doctor(opts, deps())));

  withConfig(program.command('install-service'))
    .description('install the systemd (Linux) or launchd (macOS) service for this install and config')
    .option('--user', 'install for the current user (the default and only supported mode)')
    .option('--dry-run', 'print the service file instead of writing it')
    .addOption(new Option('--platform <platform>', 'target platform').choices(['linux', 'darwin']).hideHelp())
    .action(
      act(async (opts: ServiceOptions) => (await import('./commands/service.js')).installService(opts, deps())),
    );

  withConfig(program.command('uninstall-service'))
    .description('stop and disable the service, then remove its files')
    .option('--user', 'the per-user service (the default)')
    .option('--dry-run', 'say what would be run and removed')
    .addOption(new Option('--platform <platform>', 'target platform').choices(['linux', 'darwin']).hideHelp())
    .action(
      act(async (opts: ServiceOptions) => (await import('./commands/service.js')).uninstallService(opts, deps())),
    );

  withConfig(program.command('logs'))
    .description('pretty-print the log file (Logging.File), or say how to read the journal')
    .option('-f, --follow', 'keep printing new lines')
    .action(act(async (opts: LogsOptions) => (await import('./commands/logs.js')).logs(opts, deps())));

  withConfig(program.command('open'))
    .description('open the status page in the default browser (signed in by the token), or print its address')
    .option('--print', 'print the address instead of opening a browser')
    .action(act(async (opts: OpenOptions) => (await import('./commands/open.js')).open(opts, deps())));
}

/** Entry point of bin/meeting-assistant.js; resolves to the exit code. */
export async function main(argv: string[], deps: () => CommandDeps = processDeps): Promise<number> {
  let code = EXIT_OK;
  const program = buildProgram((c) => {
    code = c;
  }, deps);
  const { io } = deps();
  try {
    await program.parseAsync(argv);
    return code;
  } catch (err) {
    if (err instanceof CommanderError) {
      // --help and --version end here with code 0; usage errors were already printed.
      return err.exitCode === 0 ? EXIT_OK : EXIT_USAGE;
    }
    if (err instanceof CliError) {
      io.err(`meeting-assistant: ${err.message}`);
      return err.exitCode;
    }
    if (isExpectedError(err)) {
      io.err(`meeting-assistant: ${err.message}`);
      return EXIT_FAILED;
    }
    io.err(`meeting-assistant: unexpected error: ${err instanceof Error ? (err.stack ?? err.message) : String(err)}`);
    return EXIT_FAILED;
  }
}

import { parseProjects, SessionError, setSessionState, startSession, stopSession } from '../sessions/sessions.js';
import { finishSession } from '../sessions/session-finish.js';
import type { AppConfig } from '../config.js';
import { calendarOfConfig } from '../calendar/calendar.js';
import type { CalendarLookup } from '../calendar/types.js';
import { silentLogger } from '../log.js';
import { meetingEventDeps } from '../meeting-event/match-meeting.js';
import { Vault } from '../vault/files/vault.js';
import { noteArgument } from './note-argument.js';
import { CliError, type CommandDeps, EXIT_FAILED, EXIT_OK, EXIT_USAGE, type GlobalOptions, loadCommandConfig, withDefaults } from './common.js';

/**
 * `session start|state|finish|stop` (docs/design.md §6): what a recorder or transcriber calls. The
 * notes are written directly; a running daemon sees them through its watcher.
 */

/** `session start`'s options (the command line is in src/cli.ts). */
export interface SessionStartOptions extends GlobalOptions {
  /** Without one, the calendar's event in progress gives it (docs/design.md §12). */
  title?: string;
  projects?: string;
  agenda?: string;
  scheduledEnd?: string;
}

async function openVault(opts: GlobalOptions, given: Partial<CommandDeps>): Promise<{ vault: Vault; deps: CommandDeps; config: AppConfig }> {
  const deps = withDefaults(given);
  const config = await loadCommandConfig(opts, deps);
  return { vault: new Vault(deps.fs, config.layout), deps, config };
}

/** A meeting note as the command line names it (docs/design.md §6), vault-relative. */
async function meetingArgument(vault: Vault, note: string, deps: CommandDeps): Promise<string> {
  return vault.rel(await noteArgument(vault, note, deps.cwd, ['meeting']));
}

function toCliError(err: unknown): never {
  if (err instanceof SessionError) throw new CliError(err.message, err.kind === 'usage' ? EXIT_USAGE : EXIT_FAILED);
  throw err;
}

/** What `session start` takes beyond the command's deps: the calendar of the configuration (§12), read once. */
export interface SessionStartDeps extends CommandDeps {
  calendar(config: AppConfig, deps: CommandDeps): Promise<(CalendarLookup & { stop(): Promise<void> }) | undefined>;
}

/** The configured calendars read now, as `calendar` reads them (a URL's kept copy when fresh); none when none is configured. */
async function readCalendar(config: AppConfig, deps: CommandDeps): Promise<(CalendarLookup & { stop(): Promise<void> }) | undefined> {
  if (config.settings.Calendar.Sources.length === 0) return undefined;
  const cal = calendarOfConfig(config, { fs: deps.fs, clock: deps.clock, logger: silentLogger });
  await cal.refresh();
  return cal;
}

export async function sessionStart(opts: SessionStartOptions, given: Partial<SessionStartDeps> = {}): Promise<number> {
  const { vault, deps, config } = await openVault(opts, given);
  // A title given needs no calendar for it, but the event still gives the people and the agenda.
  const lookup = await (given.calendar ?? readCalendar)(config, deps);
  const calendar = meetingEventDeps(lookup, config.settings.Calendar, deps.clock, (err) => deps.io.err(`calendar: ${(err as Error).message}`));
  const input = {
    ...(opts.title !== undefined && { title: opts.title }),
    projects: parseProjects(opts.projects),
    ...(opts.agenda !== undefined && { agenda: opts.agenda }),
    ...(opts.scheduledEnd !== undefined && { scheduledEnd: opts.scheduledEnd }),
  };
  let notes;
  try {
    notes = await startSession(vault, input, deps.clock, calendar).catch(toCliError);
  } finally {
    await lookup?.stop();
  }
  deps.io.out(`meeting: ${notes.meeting}`);
  deps.io.out(`transcript: ${notes.transcript}`);
  deps.io.out(`context: ${notes.context}`);
  return EXIT_OK;
}

export async function sessionState(note: string, state: string, opts: GlobalOptions, given: Partial<CommandDeps> = {}): Promise<number> {
  const { vault, deps } = await openVault(opts, given);
  const change = await setSessionState(vault, await meetingArgument(vault, note, deps), state).catch(toCliError);
  deps.io.out(`${change.context}: state ${change.state}`);
  return EXIT_OK;
}

/** `session finish`: end_time where missing, then the transcript's state (the summary's trigger). */
export async function sessionFinish(note: string, opts: GlobalOptions, given: Partial<CommandDeps> = {}): Promise<number> {
  const { vault, deps, config } = await openVault(opts, given);
  const done = await finishSession(vault, await meetingArgument(vault, note, deps), config.settings.Daemon.TriggerState, deps.clock).catch(toCliError);
  for (const written of done.wrote_end_time) deps.io.out(`${written}: end_time ${done.end_time}`);
  deps.io.out(`${done.transcript}: state ${done.state}`);
  return EXIT_OK;
}

export async function sessionStop(note: string, opts: GlobalOptions, given: Partial<CommandDeps> = {}): Promise<number> {
  const { vault, deps } = await openVault(opts, given);
  const result = await stopSession(vault, await meetingArgument(vault, note, deps), deps.clock).catch(toCliError);
  deps.io.out(`${result.meeting}: end_time ${result.end_time}`);
  if (result.context) deps.io.out(`${result.context}: end_time ${result.end_time}`);
  return EXIT_OK;
}

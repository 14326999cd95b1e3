import { calendarOfConfig } from '../calendar/calendar.js';
import type { FetchLike } from '../calendar/fetch-source.js';
import { joinHost } from '../calendar/join-url.js';
import { calendarJson, type CalendarJson, eventsStarting, localDay, today } from '../calendar/listing.js';
import { calendarSources } from '../calendar/sources.js';
import { localDateTime } from '../clock.js';
import { silentLogger } from '../log.js';
import { Vault } from '../vault/files/vault.js';
import { EventNotes } from '../meeting-event/event-notes.js';
import { CliError, type CommandDeps, EXIT_FAILED, EXIT_OK, EXIT_USAGE, type GlobalOptions, type Io, loadCommandConfig, withDefaults } from './common.js';

export interface CalendarOptions extends GlobalOptions {
  from?: string;
  to?: string;
  json?: boolean;
}

export interface CalendarCommandDeps extends CommandDeps {
  /** The network, replaceable in tests. */
  fetch: FetchLike | undefined;
}

function dayArgument(name: string, value: string): { from: Date; to: Date } {
  const day = localDay(value);
  if (!day) throw new CliError(`--${name} ${JSON.stringify(value)} is not a date: write it as YYYY-MM-DD.`, EXIT_USAGE);
  return day;
}

/**
 * `meeting-assistant calendar [--from D] [--to D] [--json]` (docs/design.md §12): the events
 * that start on those local days, with the meeting note each belongs to, then how each source
 * was read. Reads the sources itself (a URL's kept copy when fresher than RefreshMinutes), with
 * or without a daemon. Exit 1 naming a source that could not be read, 2 on bad arguments.
 */
export async function calendar(opts: CalendarOptions, given: Partial<CalendarCommandDeps> = {}): Promise<number> {
  const deps = withDefaults<CalendarCommandDeps>(given, { fetch: undefined });
  const now = deps.clock();
  const from = opts.from !== undefined ? dayArgument('from', opts.from).from : today(now).from;
  const to = opts.to !== undefined ? dayArgument('to', opts.to).to : opts.from !== undefined ? dayArgument('from', opts.from).to : today(now).to;
  if (to < from) throw new CliError('--to is before --from.', EXIT_USAGE);
  const config = await loadCommandConfig(opts, deps);
  const settings = config.settings.Calendar;
  const vault = new Vault(deps.fs, config.layout);
  const cal = calendarOfConfig(config, { fs: deps.fs, clock: deps.clock, logger: silentLogger, ...(deps.fetch ? { fetch: deps.fetch } : {}) });
  let report: CalendarJson;
  try {
    await cal.refresh();
    const events = await eventsStarting(cal, from, to);
    report = calendarJson(events, cal.sources(), await new EventNotes(vault).meetingOf(events));
  } finally {
    await cal.stop();
  }
  if (opts.json) deps.io.out(JSON.stringify(report, null, 2));
  else printReport(deps.io, report, new Map(calendarSources(settings, vault.root).map((s) => [s.name, s.label])));
  const failed = report.sources.filter((s) => !s.ok);
  if (settings.Sources.length === 0 && !opts.json) deps.io.err('No calendar is configured (Calendar.Sources): see docs/calendar.md.');
  for (const s of failed) deps.io.err(`meeting-assistant: the calendar "${s.name}" could not be read: ${s.error ?? 'unknown'}.`);
  return failed.length > 0 ? EXIT_FAILED : EXIT_OK;
}

function time(iso: string): string {
  return localDateTime(iso) ?? iso;
}

function printReport(io: Io, report: CalendarJson, labels: ReadonlyMap<string, string>): void {
  if (report.events.length === 0) io.out('No events.');
  for (const e of report.events) {
    const start = time(e.start);
    const end = time(e.end);
    const endShown = end.slice(0, 10) === start.slice(0, 10) ? end.slice(11) : end;
    const parts = [`${start}-${endShown}  ${e.title || '(no title)'}`];
    if (e.organizer) parts.push(`organizer ${e.organizer.name}`);
    parts.push(`${e.attendees.length} invited`);
    const host = joinHost(e.joinUrl);
    if (host) parts.push(host);
    parts.push(e.meeting ? `note: ${e.meeting}` : 'no meeting note');
    io.out(parts.join(' · '));
  }
  io.out('');
  io.out('Calendars:');
  for (const s of report.sources) {
    const label = labels.get(s.name) ?? s.name;
    const read = s.readAt ? `read ${time(s.readAt)}` : 'never read';
    io.out(s.ok ? `  ${label}: ${read}, ${s.events} events` : `  ${label}: NOT READ (${s.error ?? 'unknown'}); ${s.readAt ? `its copy of ${time(s.readAt)} is used` : 'no copy kept'}`);
  }
}

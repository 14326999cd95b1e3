import type { ServerResponse } from 'node:http';
import { type Calendar, calendarOfConfig } from '../calendar/calendar.js';
import { calendarJson, eventsStarting, localDay, today } from '../calendar/listing.js';
import type { CalendarLookup } from '../calendar/types.js';
import type { Clock } from '../clock.js';
import type { AppConfig } from '../config.js';
import type { Logger } from '../log.js';
import type { Vault } from '../vault/files/vault.js';
import { EventNotes } from '../meeting-event/event-notes.js';
import { ApiError, type Route } from './http/server.js';
import type { MeetingEventDeps } from '../meeting-event/match-meeting.js';
import { calendarMatch, type EventMatcher, jobMatcher } from './runs/event-match.js';
import type { VaultFiles } from '../vault/format/links.js';
import { CalendarChanges } from './intake/calendar-changes.js';
import { NotesAhead } from './intake/notes-ahead.js';

export type { CalendarLookup };

/**
 * The daemon's calendar (docs/design.md §12), started with it and stopped with it: its kept
 * copies read at once, its sources kept fresh. The HTTP API, the status page, the importer and
 * the sessions are given this one lookup; GET /api/calendar reads it.
 */
function startDaemonCalendar(config: AppConfig, vault: Vault, log: Logger, clock: Clock): Calendar {
  const calendar = calendarOfConfig(config, { fs: vault.fs, clock, logger: log.child({ part: 'calendar' }) });
  if (config.settings.Calendar.Sources.length > 0) calendar.start();
  return calendar;
}

/** The daemon's calendar and what is made of it (docs/design.md §12), for startClaimed to pass round. */
export interface DaemonCalendars {
  /** The calendar read from Calendar.Sources (started when it has any), stopped with the daemon. */
  calendar: Calendar;
  /** What meetings are matched in: a test's own lookup, else the calendar when Calendar.Sources has any. */
  matched: CalendarLookup | undefined;
  /** The lookup the API, the status page and Daemon.calendar read. */
  lookup: CalendarLookup;
  /** The matching of §12 at an import and a session start; undefined without a calendar. */
  matching: MeetingEventDeps | undefined;
  /** The job runner's match of a finished transcript's meeting, when there is a calendar. */
  runner: { matchEvent?: EventMatcher };
}

export function daemonCalendars(config: AppConfig, o: { vault: Vault; log: Logger; clock: Clock; files: VaultFiles }, given?: CalendarLookup): DaemonCalendars {
  const calendar = startDaemonCalendar(config, o.vault, o.log, o.clock);
  const matched = given ?? (config.settings.Calendar.Sources.length > 0 ? calendar : undefined);
  const matching = calendarMatch(matched, config.settings.Calendar, o.clock, o.log);
  return { calendar, matched, lookup: matched ?? calendar, matching, runner: jobMatcher(matching, { vault: o.vault, log: o.log, files: o.files }) };
}

/**
 * The notes made ahead of the next events (§12), by the active machine only; and the calendar
 * files in the vault, read again as soon as the watcher sees them change, then the notes-ahead
 * look (intake/calendar-changes.ts). Each undefined when there is nothing for it.
 */
export async function notesAheadOf(
  config: AppConfig,
  cal: DaemonCalendars,
  o: { vault: Vault; log: Logger; clock: Clock; isActive: () => boolean },
): Promise<{ ahead: NotesAhead | undefined; files: CalendarChanges | undefined }> {
  const settings = config.settings.Calendar;
  const ahead = cal.matched && new NotesAhead({ vault: o.vault, calendar: cal.matched, settings, clock: o.clock, log: o.log.child({ part: 'notes-ahead' }), isActive: o.isActive });
  if (settings.Sources.length === 0) return { ahead, files: undefined };
  const files = await CalendarChanges.of({
    vault: o.vault,
    settings,
    readAgain: () => cal.calendar.readAgain(),
    ...(ahead && { lookAgain: () => ahead.lookAgain() }),
    log: o.log.child({ part: 'calendar' }),
  });
  return { ahead, files };
}

/**
 * `GET /api/calendar?from=YYYY-MM-DD&to=YYYY-MM-DD` (token; docs/design.md §7, §12): what
 * `calendar --json` prints, from the daemon's calendar (its kept expansions, never a fetch).
 */

function send(res: ServerResponse, body: unknown): void {
  const text = JSON.stringify(body);
  res.writeHead(200, { 'content-type': 'application/json; charset=utf-8', 'content-length': Buffer.byteLength(text), 'cache-control': 'no-store' });
  res.end(text);
}

function dayParam(url: URL, name: string): { from: Date; to: Date } | undefined {
  const value = url.searchParams.get(name);
  if (value === null || value === '') return undefined;
  const day = localDay(value);
  if (!day) throw new ApiError(400, `"${name}" is not a date: write it as YYYY-MM-DD`);
  return day;
}

export function calendarRoutes(o: { calendar: CalendarLookup; vault: Vault; clock: Clock }): Route[] {
  // One for the daemon's life: the notes' heads are kept between requests.
  const notes = new EventNotes(o.vault);
  return [
    {
      method: 'GET',
      path: '/api/calendar',
      auth: true,
      handle: async (_req, res, url) => {
        const fromDay = dayParam(url, 'from');
        const toDay = dayParam(url, 'to');
        const from = (fromDay ?? today(o.clock())).from;
        const to = (toDay ?? fromDay ?? today(o.clock())).to;
        if (to < from) throw new ApiError(400, '"to" is before "from"');
        const events = await eventsStarting(o.calendar, from, to);
        send(res, calendarJson(events, o.calendar.sources(), await notes.meetingOf(events)));
      },
    },
  ];
}

import type { Clock } from '../clock.js';
import type { CalendarEvent, CalendarLookup, CalendarSourceState } from './types.js';

/**
 * The calendar as `calendar --json`, GET /api/calendar and the status page show it
 * (docs/design.md §12): local days, and the JSON shape the contract names.
 */

export interface CalendarEventJson {
  title: string;
  start: string;
  end: string;
  uid: string;
  eventStart: string;
  organizer: { name: string; email: string } | null;
  attendees: { name: string; email: string; status: string }[];
  location: string;
  joinUrl: string;
  /** The meeting note the event belongs to (vault-relative), null when none. */
  meeting: string | null;
}

export interface CalendarJson {
  events: CalendarEventJson[];
  sources: CalendarSourceState[];
}

/** Which meeting note an event belongs to (by its `event`/`event_start` keys); given by the notes' side. */
export type MeetingOfEvent = (event: CalendarEvent) => string | null;

export function calendarJson(events: readonly CalendarEvent[], sources: readonly CalendarSourceState[], meetingOf: MeetingOfEvent = () => null): CalendarJson {
  return {
    events: events.map((e) => ({
      title: e.title,
      start: e.start.toISOString(),
      end: e.end.toISOString(),
      uid: e.uid,
      eventStart: e.eventStart.toISOString(),
      organizer: e.organizer ? { name: e.organizer.name, email: e.organizer.email } : null,
      attendees: e.attendees.map((a) => ({ name: a.name, email: a.email, status: a.status })),
      location: e.location,
      joinUrl: e.joinUrl,
      meeting: meetingOf(e),
    })),
    sources: sources.map((s) => ({ ...s })),
  };
}

/** `YYYY-MM-DD` as a local day: its first and last millisecond; undefined for anything else. */
export function localDay(text: string): { from: Date; to: Date } | undefined {
  const m = /^(\d{4})-(\d{2})-(\d{2})$/.exec(text.trim());
  if (!m) return undefined;
  const [y, mo, d] = [Number(m[1]), Number(m[2]) - 1, Number(m[3])];
  const from = new Date(y, mo, d);
  if (from.getFullYear() !== y || from.getMonth() !== mo || from.getDate() !== d) return undefined;
  return { from, to: new Date(y, mo, d + 1, 0, 0, 0, -1) };
}

/** The local day of `now`. */
export function today(now: Date): { from: Date; to: Date } {
  return { from: new Date(now.getFullYear(), now.getMonth(), now.getDate()), to: new Date(now.getFullYear(), now.getMonth(), now.getDate() + 1, 0, 0, 0, -1) };
}

/** Events that START between `from` and `to` (§12: "the events that start between the two dates"). */
export async function eventsStarting(lookup: CalendarLookup, from: Date, to: Date): Promise<CalendarEvent[]> {
  const events = await lookup.eventsBetween(from, to);
  return events.filter((e) => e.start.getTime() >= from.getTime() && e.start.getTime() <= to.getTime());
}

/** Today's events and the sources' states: what the status page shows (§12). */
export async function todaysCalendar(lookup: CalendarLookup, clock: Clock): Promise<{ events: CalendarEvent[]; sources: CalendarSourceState[] }> {
  const { from, to } = today(clock());
  return { events: await eventsStarting(lookup, from, to), sources: lookup.sources() };
}

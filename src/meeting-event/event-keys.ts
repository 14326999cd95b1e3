import type { CalendarEvent } from '../calendar/types.js';
import { localIsoTime } from '../vault/format/note-names.js';
import { inertExternalText } from '../vault/format/inert.js';
import { agendaText } from './agenda-text.js';

/**
 * The keys an event gives a meeting's notes (docs/design.md §12, "What a match writes"), and the
 * rule that they go only where a key is missing or empty: what a person or a recorder wrote stays.
 */

/**
 * An event's words are whoever sent the invitation's, and a note the daemon creates is read by
 * Templater's "trigger on new file creation", frontmatter included: a title, a name or a place
 * is written inert as the agenda is (`<%` as `<\%`; docs/design.md §12).
 */
function inertText(text: string | undefined): string {
  return inertExternalText(text?.trim() ?? '');
}

/**
 * The invited people's names: the organizer first, then the attendees in the calendar's order
 * (those who declined left out; rooms and resources the reading left out already), then the
 * names already there (the speakers an import found, `Speaker 2` among them) not among them.
 */
export function attendeeNames(event: CalendarEvent, already: readonly string[] = []): string[] {
  const out: string[] = [];
  const seen = new Set<string>();
  const add = (name: string | undefined) => {
    const trimmed = name?.trim() ?? '';
    const key = trimmed.toLowerCase();
    if (trimmed === '' || seen.has(key)) return;
    seen.add(key);
    out.push(trimmed);
  };
  if (event.organizer && event.organizer.status !== 'declined') add(inertText(event.organizer.name));
  for (const person of event.attendees) if (person.status !== 'declined') add(inertText(person.name));
  for (const name of already) add(name);
  return out;
}

/** The event's title as a meeting's notes and file names take it (inert). */
export function eventTitle(event: CalendarEvent): string {
  return inertText(event.title);
}

/** The meeting note's keys from the event, `projects` and `attendees` apart (they depend on the note). */
export function meetingKeysOf(event: CalendarEvent): Record<string, string> {
  return {
    title: eventTitle(event),
    organizer: inertText(event.organizer?.name),
    event: event.uid,
    event_start: localIsoTime(event.eventStart),
    location: inertText(event.location),
    join_url: event.joinUrl,
  };
}

/** The context note's keys from the event. */
export function contextKeysOf(event: CalendarEvent): Record<string, string> {
  return { agenda: agendaText(event.description), scheduled_end: localIsoTime(event.end) };
}

export function isEmptyValue(value: unknown): boolean {
  if (value === undefined || value === null) return true;
  if (typeof value === 'string') return value.trim() === '';
  if (Array.isArray(value)) return value.every(isEmptyValue);
  return false;
}

/**
 * The changes that fill `data`'s missing or empty keys from `keys`; an empty value from the event
 * writes nothing (an event without a location leaves the key as it was). `replace` names keys
 * that may be written over (a title the import took from a file name).
 */
export function fillEmpty(data: Record<string, unknown>, keys: Record<string, unknown>, replace: ReadonlySet<string> = new Set()): Record<string, unknown> {
  const changes: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(keys)) {
    if (isEmptyValue(value)) continue;
    if (isEmptyValue(data[key]) || (replace.has(key) && data[key] !== value)) changes[key] = value;
  }
  return changes;
}

/** The event's own keys for a new meeting note, those it has (title, attendees and projects are placed apart). */
export function newNoteEventKeys(keys: Record<string, unknown>): Record<string, unknown> {
  const { title: _title, attendees: _attendees, projects: _projects, ...rest } = keys;
  return Object.fromEntries(Object.entries(rest).filter(([, value]) => !isEmptyValue(value)));
}

import { eventForMeeting, type MeetingSpan } from '../calendar/match/event-for-meeting.js';
import type { CalendarEvent, CalendarLookup } from '../calendar/types.js';
import type { Clock } from '../clock.js';
import { parseNote, updateFrontmatter } from '../vault/format/frontmatter.js';
import { UNCHANGED } from '../vault/files/update.js';
import type { Vault } from '../vault/files/vault.js';
import { nameList } from '../vault/notes/meeting.js';
import { EARLY_START_MS } from '../calendar/match/event-for-meeting.js';
import { attendeeNames, contextKeysOf, fillEmpty, isEmptyValue, meetingKeysOf } from './event-keys.js';
import { projectsForEvent } from './series-projects.js';

/**
 * A meeting's event found and written into its notes (docs/design.md §12): at an import and at
 * `session start` into the notes being made, when a transcript finishes into the notes as they
 * are. A calendar that cannot be read gives no event, said to `onError`: it never fails or
 * delays the meeting it was asked about.
 */

export interface MeetingEventDeps {
  calendar: CalendarLookup;
  /** `Calendar.Projects`: project name → expression tried on an event's title and description. */
  projects: Readonly<Record<string, string>>;
  clock: Clock;
  /** Told when the calendar could not be read (the meeting goes on without an event). */
  onError?: (err: unknown) => void;
}

/** The meeting's event (calendar/event-for-meeting.ts), undefined when none fits or the calendar fails. */
export async function findMeetingEvent(deps: MeetingEventDeps, span: MeetingSpan): Promise<CalendarEvent | undefined> {
  const now = deps.clock();
  const to = new Date(Math.max((span.end ?? now).getTime(), span.start.getTime() + EARLY_START_MS));
  try {
    return eventForMeeting(await deps.calendar.eventsBetween(span.start, to), span, now);
  } catch (err) {
    deps.onError?.(err);
    return undefined;
  }
}

/** The keys a new meeting's notes take from its event (import, `session start`): the note does not exist yet. */
export async function newMeetingKeys(
  vault: Vault,
  deps: Pick<MeetingEventDeps, 'projects'>,
  event: CalendarEvent,
  meeting: { start: Date; attendees: readonly string[]; projects: readonly string[] },
): Promise<{ meeting: Record<string, unknown>; context: Record<string, string> }> {
  const projects = meeting.projects.length > 0 ? [...meeting.projects] : await projectsForEvent(vault, event, { before: meeting.start, patterns: deps.projects });
  return {
    meeting: { ...meetingKeysOf(event), attendees: attendeeNames(event, meeting.attendees), projects },
    context: contextKeysOf(event),
  };
}

export interface EventWrite {
  meetingPath: string;
  /** The context note, when it exists. */
  contextPath?: string;
  /** Whether the meeting note's `title` may be written over (the import took it from a file name). */
  replaceTitle?: (data: Record<string, unknown>) => boolean;
}

/** What was written: the keys changed in each note (empty when the meeting had its event already). */
export interface EventWritten {
  meeting: Record<string, unknown>;
  context: Record<string, unknown>;
}

/**
 * Writes the event into an existing meeting's notes: only into keys missing or empty, decided on
 * each note as it is at the write (a person's edit a moment before is kept). A meeting whose note
 * names another event already is left as it is.
 */
export async function writeEventToNotes(vault: Vault, deps: Pick<MeetingEventDeps, 'projects'>, event: CalendarEvent, notes: EventWrite): Promise<EventWritten> {
  const written: EventWritten = { meeting: {}, context: {} };
  const before = parseNote(await vault.read(notes.meetingPath), vault.rel(notes.meetingPath)).data;
  if (!isEmptyValue(before.event) && String(before.event).trim() !== event.uid) return written;
  const start = new Date(Date.parse(String(before.start_time ?? '')) || event.start.getTime());
  // The series is looked up before the write (it reads other notes); the write still checks the key is empty.
  const projects = isEmptyValue(before.projects)
    ? await projectsForEvent(vault, event, { before: start, patterns: deps.projects, except: notes.meetingPath })
    : [];
  await vault.update(notes.meetingPath, (current) => {
    if (current === undefined) return UNCHANGED;
    const data = parseNote(current, vault.rel(notes.meetingPath)).data;
    if (!isEmptyValue(data.event) && String(data.event).trim() !== event.uid) return UNCHANGED;
    const keys = { ...meetingKeysOf(event), projects };
    const changes = fillEmpty(data, keys, new Set(notes.replaceTitle?.(data) ? ['title'] : []));
    const attendees = mergedAttendees(event, data.attendees);
    if (attendees) changes.attendees = attendees;
    written.meeting = changes;
    return Object.keys(changes).length === 0 ? UNCHANGED : updateFrontmatter(current, changes, vault.rel(notes.meetingPath));
  });
  if (notes.contextPath) {
    const contextPath = notes.contextPath;
    await vault.update(contextPath, (current) => {
      if (current === undefined) return UNCHANGED;
      const data = parseNote(current, vault.rel(contextPath)).data;
      const changes = fillEmpty(data, contextKeysOf(event));
      // The context note repeats the meeting's title: a file name's title replaced there is replaced here too.
      if (typeof written.meeting.title === 'string' && String(data.title ?? '').trim() === String(before.title ?? '').trim()) changes.title = written.meeting.title;
      written.context = changes;
      return Object.keys(changes).length === 0 ? UNCHANGED : updateFrontmatter(current, changes, vault.rel(contextPath));
    });
  }
  return written;
}

/**
 * The invited people first, then the names already there that are not among them; a name
 * already written keeps the form it was written in (`[[Alice]]` stays a link). Undefined when
 * that is the list as it stands.
 */
function mergedAttendees(event: CalendarEvent, value: unknown): unknown[] | undefined {
  const raw: unknown[] = isEmptyValue(value) ? [] : Array.isArray(value) ? value : [value];
  const named = raw.map((item) => ({ item, key: (nameList(item)[0] ?? '').toLowerCase() }));
  const invited = attendeeNames(event);
  const invitedKeys = new Set(invited.map((name) => name.toLowerCase()));
  const merged = [
    ...invited.map((name) => named.find((entry) => entry.key === name.toLowerCase())?.item ?? name),
    ...named.filter((entry) => !invitedKeys.has(entry.key)).map((entry) => entry.item),
  ];
  const same = merged.length === raw.length && merged.every((item, i) => item === raw[i]);
  return same ? undefined : merged;
}

/** What the matching needs, from the calendar and `Calendar.Projects`; undefined without a calendar. */
export function meetingEventDeps(
  calendar: CalendarLookup | undefined,
  settings: { Projects: Readonly<Record<string, string>> },
  clock: Clock,
  onError?: (err: unknown) => void,
): MeetingEventDeps | undefined {
  return calendar ? { calendar, projects: settings.Projects, clock, ...(onError ? { onError } : {}) } : undefined;
}

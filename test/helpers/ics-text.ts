/**
 * iCalendar text for the tests of the real daemon's calendar (docs/design.md §12): events as a
 * calendar program writes them, times in UTC, the organizer Carol.
 */

export const MIN = 60_000;

/** `20261207T090000Z`. */
export const icsUtc = (d: Date): string => d.toISOString().replace(/[-:]/g, '').replace(/\.\d{3}/, '');

/** Minutes from now, on the minute (the notes' names carry minutes). */
export const minutesFromNow = (minutes: number): Date => new Date(Math.floor(Date.now() / MIN) * MIN + minutes * MIN);

export const BOB_ACCEPTED = 'ATTENDEE;CN=Bob Builder;PARTSTAT=ACCEPTED:mailto:bob@example.com';

export interface IcsEventFields {
  uid: string;
  title: string;
  start: Date;
  end: Date;
  rrule?: string;
  description?: string;
  /** More lines of the VEVENT (attendees, RECURRENCE-ID, STATUS, EXDATE). */
  lines?: string[];
}

export function icsEvent(fields: IcsEventFields): string {
  return [
    'BEGIN:VEVENT',
    `UID:${fields.uid}`,
    `DTSTAMP:${icsUtc(new Date())}`,
    `DTSTART:${icsUtc(fields.start)}`,
    `DTEND:${icsUtc(fields.end)}`,
    ...(fields.rrule ? [`RRULE:${fields.rrule}`] : []),
    `SUMMARY:${fields.title}`,
    ...(fields.description ? [`DESCRIPTION:${fields.description}`] : []),
    'ORGANIZER;CN=Carol Chief:mailto:carol@example.com',
    ...(fields.lines ?? []),
    'END:VEVENT',
  ].join('\r\n');
}

export const icsCalendar = (...events: string[]): string => ['BEGIN:VCALENDAR', 'VERSION:2.0', 'PRODID:-//test//calendar//EN', ...events, 'END:VCALENDAR', ''].join('\r\n');

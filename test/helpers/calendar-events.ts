import type { CalendarEvent, CalendarLookup, CalendarSourceState } from '../../src/calendar/types.js';

/** One event with the fields a test does not care about filled in. */
export function calendarEvent(fields: Omit<Partial<CalendarEvent>, 'start' | 'end'> & { start: Date | string; end: Date | string }): CalendarEvent {
  const start = new Date(fields.start);
  return {
    uid: 'uid-1',
    title: 'Event',
    eventStart: start,
    recurring: false,
    description: '',
    location: '',
    organizer: null,
    attendees: [],
    joinUrl: '',
    source: 'Work',
    ...fields,
    start,
    end: new Date(fields.end),
  };
}

/** A CalendarLookup over fixed events (a fake for the unit tests; the reading is src/calendar's). */
export function fakeCalendar(events: CalendarEvent[], sources: CalendarSourceState[] = [{ name: 'Work', ok: true, readAt: null, events: events.length, error: null }]): CalendarLookup & { asked: Array<[Date, Date]> } {
  const asked: Array<[Date, Date]> = [];
  return {
    asked,
    eventsBetween(from, to) {
      asked.push([from, to]);
      return Promise.resolve(events.filter((e) => e.end > from && e.start < to).sort((a, b) => a.start.getTime() - b.start.getTime()));
    },
    sources: () => sources,
  };
}

/** A CalendarLookup whose reading fails (a broken source must never fail the caller). */
export function failingCalendar(): CalendarLookup {
  return {
    eventsBetween: () => Promise.reject(new Error('calendar unreadable')),
    sources: () => [{ name: 'Work', ok: false, readAt: null, events: 0, error: 'unreadable' }],
  };
}

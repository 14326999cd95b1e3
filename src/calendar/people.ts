import type ICAL from 'ical.js';
import type { CalendarPerson } from './types.js';

/**
 * The people of an event (docs/design.md §12): the name is the CN, else the address before `@`;
 * rooms and resources (CUTYPE=ROOM/RESOURCE) are no people.
 */

type Property = InstanceType<typeof ICAL.Property>;

/** A 3,000-attendee event keeps them all, but a CN or address longer than this is cut. */
const MAX_FIELD = 200;

function param(prop: Property, name: string): string {
  const value = prop.getParameter(name);
  return (Array.isArray(value) ? value[0] : value)?.toString() ?? '';
}

export function personOf(prop: Property): CalendarPerson {
  const raw = String(prop.getFirstValue() ?? '');
  const email = raw.replace(/^mailto:/i, '').trim().toLowerCase().slice(0, MAX_FIELD);
  const cn = param(prop, 'cn').trim().slice(0, MAX_FIELD);
  const name = cn || (email.includes('@') ? email.slice(0, email.indexOf('@')) : email);
  return { name, email: email.includes('@') ? email : '', status: param(prop, 'partstat').toLowerCase() };
}

export function isRoomOrResource(prop: Property): boolean {
  const cutype = param(prop, 'cutype').toUpperCase();
  return cutype === 'ROOM' || cutype === 'RESOURCE';
}

/** The invited people, in the calendar's order, without rooms and resources. */
export function attendeesOf(props: readonly Property[]): CalendarPerson[] {
  return props.filter((p) => !isRoomOrResource(p)).map(personOf);
}

/** Whether one of `me` (lower-case addresses) declined. */
export function declinedByMe(attendees: readonly CalendarPerson[], me: ReadonlySet<string>): boolean {
  return me.size > 0 && attendees.some((a) => a.status === 'declined' && me.has(a.email));
}

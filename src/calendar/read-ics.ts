import { createHash } from 'node:crypto';
import ICAL from 'ical.js';
import { fastForwardStart } from './fast-forward.js';
import { findJoinUrl } from './join-url.js';
import { attendeesOf, declinedByMe, isRoomOrResource, personOf } from './people.js';
import { type CalendarEvent, type CalendarPerson, narrowest, type Span } from './types.js';
import { terminalSafe } from '../vault/format/terminal-text.js';
import { ianaZoneOf, isIanaZone, type WallTime, wallToInstant } from './zones.js';

/**
 * One calendar file read and expanded around the times asked for (docs/design.md §12), by
 * ical.js (parsing, RRULE/RDATE/EXDATE expansion); what this module adds is the zones (zones.ts),
 * the exceptions matched by instant (a RECURRENCE-ID written in another zone than the series'
 * still finds its slot), and what is never a meeting (all-day, cancelled, declined).
 * Pure: runs in the reading worker (read-worker.ts) or in place.
 */

type Component = InstanceType<typeof ICAL.Component>;
type Time = InstanceType<typeof ICAL.Time>;
type Timezone = InstanceType<typeof ICAL.Timezone>;

export interface ReadOptions {
  /** The source's `Name`, copied into each event. */
  source: string;
  from: number;
  to: number;
  /** Floating times' zone when the file names none (X-WR-TIMEZONE): Calendar.TimeZone or the system's. */
  defaultZone: string;
  /** Calendar.Me, lower case. */
  me: readonly string[];
  /**
   * The instant a series with more slots in [from, to] than are followed is followed around
   * instead of from `from` (the kept window passes now: today is whole, whatever the hour).
   */
  focus?: number;
}

export interface ReadResult {
  events: CalendarEvent[];
  /** How many events (VEVENTs, a series counted once) the file holds. */
  count: number;
  /** VEVENTs passed over because they could not be read (the rest of the file still is). */
  unreadable: number;
  /** Where a series had more slots than are followed: the span in which every series is whole. */
  complete?: Span;
}

/** A rule without end that started long ago is followed at most this many slots (docs/design.md §12's bounded time). */
const MAX_SLOTS_PER_SERIES = 20_000;
/** A series cut short is followed from this long before the focus: the local day of now began less than 25 h ago. */
const FOCUS_BEFORE_MS = 25 * 3_600_000;
/** Instances one read lists at most (a few minutely series over the days asked would be millions). */
export const MAX_INSTANCES = 100_000;
/** A 5 MB description is kept to this many characters: the agenda is cut far shorter (§12). */
export const MAX_DESCRIPTION_CHARS = 100_000;

interface Zoning {
  custom: Map<string, Timezone>;
  defaultZone: string;
}

function wallOf(t: Time): WallTime {
  return { year: t.year, month: t.month, day: t.day, hour: t.hour, minute: t.minute, second: t.second };
}

/** The instant of `t` written with `tzid` (undefined: floating, or UTC when `t` says Z). */
function instantOf(t: Time, tzid: string | undefined, utc: boolean, zoning: Zoning): number {
  const wall = wallOf(t);
  if (utc) return Date.UTC(wall.year, wall.month - 1, wall.day, wall.hour, wall.minute, wall.second);
  if (tzid) {
    const iana = ianaZoneOf(tzid);
    if (iana) return wallToInstant(wall, iana);
    const custom = zoning.custom.get(tzid.replace(/^"|"$/g, ''));
    if (custom) {
      const asUtc = Date.UTC(wall.year, wall.month - 1, wall.day, wall.hour, wall.minute, wall.second);
      return asUtc - custom.utcOffset(t) * 1000;
    }
  }
  return wallToInstant(wall, zoning.defaultZone);
}

interface TimeProp {
  time: Time;
  tzid: string | undefined;
  utc: boolean;
}

function timeProp(c: Component, name: string): TimeProp | undefined {
  const prop = c.getFirstProperty(name);
  const time = prop?.getFirstValue();
  if (!prop || !(time instanceof ICAL.Time)) return undefined;
  const tzid = prop.getParameter('tzid');
  return { time, tzid: typeof tzid === 'string' ? tzid : undefined, utc: time.zone === ICAL.Timezone.utcTimezone };
}

function text(c: Component, name: string): string {
  const value = c.getFirstPropertyValue(name);
  return value === null || value === undefined ? '' : String(value);
}

/**
 * A UID as the notes carry it (`event:`, docs/design.md §12). Real UIDs are letters, digits and a
 * few signs; one holding anything else (markup a note would run: Templater's `<%`, Dataview's
 * `` `= ``) or longer than 512 is named by its hash instead, the same at every read.
 */
function noteSafeUid(uid: string): string {
  return uid === '' || /^[A-Za-z0-9@._:+\-/=]{1,512}$/.test(uid) ? uid : `uid-${createHash('sha256').update(uid).digest('hex').slice(0, 32)}`;
}

/** What one VEVENT says, apart from when. */
function details(c: Component, source: string): Omit<CalendarEvent, 'start' | 'end' | 'eventStart' | 'recurring'> {
  const description = shown(text(c, 'description') || text(c, 'x-alt-desc'), true).slice(0, MAX_DESCRIPTION_CHARS);
  const location = shown(text(c, 'location')).slice(0, 2_000);
  const organizerProp = c.getFirstProperty('organizer');
  const xProps = ['x-microsoft-skypeteamsmeetingurl', 'x-microsoft-onlinemeetingconflink', 'x-google-conference', 'conference', 'url'];
  const person = (p: CalendarPerson): CalendarPerson => ({ ...p, name: shown(p.name) });
  return {
    uid: noteSafeUid(text(c, 'uid')),
    title: shown(text(c, 'summary')).slice(0, 1_000),
    description,
    location,
    organizer: organizerProp && !isRoomOrResource(organizerProp) ? person(personOf(organizerProp)) : null,
    attendees: attendeesOf(c.getAllProperties('attendee')).map(person),
    joinUrl: findJoinUrl([...xProps.flatMap((p) => c.getAllProperties(p).map((v) => String(v.getFirstValue() ?? ''))), location, description]),
    source,
  };
}

/**
 * A calendar's text as it may be shown: anyone can put an event in a calendar (an invitation),
 * and its title reaches a terminal (`calendar`, `status`), notes and the model. Control
 * characters and escape sequences whole (one that retitles or clears a terminal), DEL, C1
 * controls and the bidirectional overrides that reorder what is shown go
 * (vault/format/terminal-text.ts); a one-line field's line ends and tabs become spaces.
 */
function shown(value: string, lines = false): string {
  const cleaned = terminalSafe(value.replace(/\r\n?/g, '\n'));
  return lines ? cleaned : cleaned.replace(/[\n\t]+/g, ' ');
}

function cancelled(c: Component): boolean {
  return text(c, 'status').toUpperCase() === 'CANCELLED';
}

/**
 * Outlook and Exchange mark an all-day event, and some of their exports write one with times,
 * midnight to midnight in the organizer's zone: still all-day, still never a meeting (§12).
 */
function markedAllDay(c: Component): boolean {
  return text(c, 'x-microsoft-cdo-alldayevent').toUpperCase() === 'TRUE' || text(c, 'x-microsoft-msncalendar-alldayevent').toUpperCase() === 'TRUE';
}

/** The span of a VEVENT as instants; undefined for an all-day event (never a meeting). */
function spanOf(c: Component, zoning: Zoning): { start: number; end: number; startProp: TimeProp } | undefined {
  const startProp = timeProp(c, 'dtstart');
  if (!startProp || startProp.time.isDate || markedAllDay(c)) return undefined;
  const start = instantOf(startProp.time, startProp.tzid, startProp.utc, zoning);
  const endProp = timeProp(c, 'dtend');
  let end = start;
  if (endProp && !endProp.time.isDate) end = instantOf(endProp.time, endProp.tzid, endProp.utc, zoning);
  else {
    const duration = c.getFirstPropertyValue('duration');
    if (duration instanceof ICAL.Duration) end = start + duration.toSeconds() * 1000;
  }
  return { start, end: Math.max(start, end), startProp };
}

function sequence(c: Component): number {
  const n = Number(c.getFirstPropertyValue('sequence'));
  return Number.isFinite(n) ? n : 0;
}

interface Grouped {
  masters: Map<string, Component>;
  exceptions: Map<string, Component[]>;
  count: number;
}

function group(vevents: readonly Component[]): Grouped {
  const masters = new Map<string, Component>();
  const exceptions = new Map<string, Component[]>();
  for (const [i, c] of vevents.entries()) {
    // An event without a UID (Exchange 2010 publishes some) is an event of its own, never another's exception.
    const uid = text(c, 'uid') || `\u0000${i}`;
    if (c.hasProperty('recurrence-id')) {
      const list = exceptions.get(uid) ?? [];
      list.push(c);
      exceptions.set(uid, list);
      continue;
    }
    // The same UID twice: the later SEQUENCE is the event as it stands now.
    const before = masters.get(uid);
    if (!before || sequence(c) >= sequence(before)) masters.set(uid, c);
  }
  return { masters, exceptions, count: masters.size + [...exceptions.keys()].filter((u) => !masters.has(u)).length };
}

function overlaps(start: number, end: number, o: ReadOptions): boolean {
  return start <= o.to && end >= o.from;
}

/**
 * What an event says is read once and shared by all its instances: a minutely series with 3,000
 * attendees is one attendee list, not one per instance (structured cloning to the daemon keeps
 * the sharing).
 */
const detailsOf = new WeakMap<Component, ReturnType<typeof details>>();

function instance(c: Component, o: ReadOptions, start: number, end: number, eventStart: number, recurring: boolean): CalendarEvent {
  let shared = detailsOf.get(c);
  if (!shared) detailsOf.set(c, (shared = details(c, o.source)));
  return { ...shared, start: new Date(start), end: new Date(end), eventStart: new Date(eventStart), recurring };
}

function keep(c: Component, me: ReadonlySet<string>): boolean {
  return !cancelled(c) && !declinedByMe(attendeesOf(c.getAllProperties('attendee')), me);
}

/**
 * A series' slots in [from, to], its exceptions in place of the slots they replace. A series
 * with more slots than are followed (a minutely rule over weeks) is followed again from just
 * before the focus, and says which span it covers whole.
 */
function expandSeries(master: Component, exceptions: readonly Component[], o: ReadOptions, zoning: Zoning, me: ReadonlySet<string>): { events: CalendarEvent[]; complete?: Span } {
  const first = expandSeriesFrom(master, exceptions, o, zoning, me);
  if (first.cutAt === undefined) return { events: first.events };
  const refocused = o.focus === undefined ? o.from : Math.max(o.from, o.focus - FOCUS_BEFORE_MS);
  if (refocused === o.from) return { events: first.events, complete: { from: o.from, to: first.cutAt } };
  const again = expandSeriesFrom(master, exceptions, { ...o, from: refocused }, zoning, me);
  return { events: again.events, complete: { from: refocused, to: again.cutAt ?? o.to } };
}

/** One pass over a series; `cutAt`: the last slot followed when the series had more in the span. */
function expandSeriesFrom(master: Component, exceptions: readonly Component[], o: ReadOptions, zoning: Zoning, me: ReadonlySet<string>): { events: CalendarEvent[]; cutAt?: number } {
  const out: CalendarEvent[] = [];
  const span = spanOf(master, zoning);
  const recurring = master.hasProperty('rrule') || master.hasProperty('rdate') || exceptions.length > 0;
  if (!span || cancelled(master)) return { events: out };
  const byslot = new Map<number, Component>();
  for (const ex of exceptions) {
    const rid = timeProp(ex, 'recurrence-id');
    if (rid) byslot.set(instantOf(rid.time, rid.tzid ?? span.startProp.tzid, rid.utc, zoning), ex);
  }
  const exdates = new Set<number>();
  for (const prop of master.getAllProperties('exdate')) {
    const tzid = prop.getParameter('tzid');
    for (const v of prop.getValues()) {
      if (v instanceof ICAL.Time && !v.isDate) {
        exdates.add(instantOf(v, typeof tzid === 'string' ? tzid : span.startProp.tzid, v.zone === ICAL.Timezone.utcTimezone, zoning));
      }
    }
  }
  const duration = span.end - span.start;
  const keepMaster = keep(master, me);
  const emit = (slot: number): void => {
    if (exdates.has(slot)) return;
    const ex = byslot.get(slot);
    if (ex) {
      byslot.delete(slot);
      const exSpan = spanOf(ex, zoning);
      if (exSpan && keep(ex, me) && overlaps(exSpan.start, exSpan.end, o)) out.push(instance(ex, o, exSpan.start, exSpan.end, slot, true));
      return;
    }
    if (keepMaster && overlaps(slot, slot + duration, o)) out.push(instance(master, o, slot, slot + duration, slot, recurring));
  };
  let cutAt: number | undefined;
  if (!master.hasProperty('rrule') && !master.hasProperty('rdate')) emit(span.start);
  else {
    const { tzid, utc, time } = span.startProp;
    // Exceptions given (none: they are matched here by instant), else ical.js looks through every
    // VEVENT of the file for each series: quadratic, 20 ms a series in a 5,000-event export.
    const iterator = new ICAL.Event(withoutExdates(master), { exceptions: [] }).iterator(fastForwardStart(master, time, span.start, duration, o.from));
    let last: number | undefined;
    let ended = false;
    for (let n = 0; n < MAX_SLOTS_PER_SERIES; n++) {
      const next = iterator.next();
      if (!next) {
        ended = true;
        break;
      }
      const slot = instantOf(next, tzid, utc || next.zone === ICAL.Timezone.utcTimezone, zoning);
      if (slot > o.to) {
        ended = true;
        break;
      }
      emit(slot);
      last = slot;
    }
    if (!ended) cutAt = last;
  }
  // An exception moved into the range from a slot outside it (or beyond the slots followed).
  for (const [slot, ex] of byslot) {
    if (exdates.has(slot)) continue;
    const exSpan = spanOf(ex, zoning);
    if (exSpan && keep(ex, me) && overlaps(exSpan.start, exSpan.end, o)) out.push(instance(ex, o, exSpan.start, exSpan.end, slot, true));
  }
  return { events: out, cutAt };
}

/**
 * The series for ical.js to follow, without its EXDATEs: ical.js compares them by wall time,
 * blind to a zone that differs from DTSTART's; they are compared here by instant instead.
 */
function withoutExdates(master: Component): Component {
  if (!master.hasProperty('exdate')) return master;
  // A deep copy: toJSON() hands out the component's own arrays, which the removal would change under it.
  const copy = new ICAL.Component(structuredClone(master.toJSON()));
  copy.removeAllProperties('exdate');
  return copy;
}

function zoningOf(cal: Component, o: ReadOptions): Zoning {
  const custom = new Map<string, Timezone>();
  for (const vtz of cal.getAllSubcomponents('vtimezone')) {
    const tzid = text(vtz, 'tzid');
    try {
      // Only a zone Intl does not know by its name is read from its VTIMEZONE (zones.ts).
      if (tzid && !ianaZoneOf(tzid)) custom.set(tzid, new ICAL.Timezone({ component: vtz, tzid }));
    } catch {
      // A broken VTIMEZONE: its times are read as floating.
    }
  }
  const wr = text(cal, 'x-wr-timezone');
  const wrZone = wr ? ianaZoneOf(wr) : undefined;
  return { custom, defaultZone: wrZone ?? (isIanaZone(o.defaultZone) ? o.defaultZone : 'UTC') };
}

function parseCalendars(ics: string): { calendars: Component[]; unreadable: number } {
  try {
    const parsed = ICAL.parse(ics) as unknown;
    const roots = (Array.isArray(parsed) && typeof parsed[0] === 'string' ? [parsed] : (parsed as unknown[])) as unknown[][];
    return { calendars: roots.map((r) => new ICAL.Component(r)), unreadable: 0 };
  } catch {
    return parseEventByEvent(ics);
  }
}

/**
 * A file ical.js refuses whole (one malformed line): each VEVENT is read alone, with the
 * file's head and time zones, so one broken event does not lose the calendar.
 */
function parseEventByEvent(ics: string): { calendars: Component[]; unreadable: number } {
  // Unfolded first, and joined again with CRLF: a file's folds may use another line end than ours.
  const lines = ics.replace(/\r?\n[ \t]/g, '').split(/\r?\n/);
  const head: string[] = [];
  const zones: string[] = [];
  const events: string[][] = [];
  let current: string[] | undefined;
  let inZone = false;
  for (const line of lines) {
    const upper = line.trim().toUpperCase();
    if (upper === 'BEGIN:VEVENT') current = [line];
    else if (current) {
      current.push(line);
      if (upper === 'END:VEVENT') {
        events.push(current);
        current = undefined;
      }
    } else if (upper === 'BEGIN:VTIMEZONE' || inZone) {
      inZone = upper !== 'END:VTIMEZONE';
      zones.push(line);
    } else if (upper !== 'END:VCALENDAR' && !upper.startsWith('BEGIN:V') && !upper.startsWith('END:V')) head.push(line);
  }
  const calendars: Component[] = [];
  let unreadable = 0;
  let zoneText = zones.join('\r\n');
  try {
    ICAL.parse(`BEGIN:VCALENDAR\r\n${zoneText}\r\nEND:VCALENDAR`);
  } catch {
    zoneText = '';
  }
  const prefix = ['BEGIN:VCALENDAR', ...head.filter((l) => /^(VERSION|PRODID|X-WR-TIMEZONE|CALSCALE)/i.test(l))].join('\r\n');
  for (const event of events) {
    try {
      calendars.push(new ICAL.Component(ICAL.parse(`${prefix}\r\n${zoneText}\r\n${event.join('\r\n')}\r\nEND:VCALENDAR`)));
    } catch {
      unreadable++;
    }
  }
  if (calendars.length === 0 && events.length === 0) throw new Error('not an iCalendar file');
  return { calendars, unreadable };
}

/** Reads one `.ics` text: the events that overlap [from, to], sorted by start. Throws only for a text that is no calendar. */
export function readIcs(ics: string, o: ReadOptions): ReadResult {
  const { calendars, unreadable } = parseCalendars(ics);
  const me = new Set(o.me.map((m) => m.toLowerCase().replace(/^mailto:/, '')));
  let count = 0;
  let bad = unreadable;
  let complete: Span | undefined;
  const events: CalendarEvent[] = [];
  // A file read event by event is many calendars with the same head: they are grouped together.
  const vevents: { c: Component; zoning: Zoning }[] = [];
  for (const cal of calendars) {
    if (cal.name !== 'vcalendar') continue;
    const zoning = zoningOf(cal, o);
    for (const c of cal.getAllSubcomponents('vevent')) vevents.push({ c, zoning });
  }
  if (calendars.length > 0 && !calendars.some((c) => c.name === 'vcalendar')) throw new Error('not an iCalendar file');
  const zoningOfEvent = new Map(vevents.map((v) => [v.c, v.zoning]));
  const grouped = group(vevents.map((v) => v.c));
  count = grouped.count;
  for (const [uid, master] of grouped.masters) {
    try {
      if (events.length >= MAX_INSTANCES) {
        bad++;
        continue;
      }
      const series = expandSeries(master, grouped.exceptions.get(uid) ?? [], o, zoningOfEvent.get(master)!, me);
      for (const e of series.events) events.push(e);
      if (series.complete) complete = narrowest(complete, series.complete);
    } catch {
      bad++;
    }
  }
  // Exceptions without their series (an invitation to one instance): each an event of its own.
  for (const [uid, list] of grouped.exceptions) {
    if (grouped.masters.has(uid)) continue;
    for (const ex of list) {
      try {
        const zoning = zoningOfEvent.get(ex)!;
        const span = spanOf(ex, zoning);
        const rid = timeProp(ex, 'recurrence-id');
        if (!span || !rid || !keep(ex, me) || !overlaps(span.start, span.end, o)) continue;
        events.push(instance(ex, o, span.start, span.end, instantOf(rid.time, rid.tzid ?? span.startProp.tzid, rid.utc, zoning), true));
      } catch {
        bad++;
      }
    }
  }
  events.sort((a, b) => a.start.getTime() - b.start.getTime() || a.title.localeCompare(b.title));
  return complete ? { events, count, unreadable: bad, complete } : { events, count, unreadable: bad };
}

/**
 * The calendar as the rest of the daemon sees it (docs/design.md §12): events already read,
 * expanded and filtered. This folder knows no notes; what a match writes lives with the notes.
 */

/** One person on an event: `name` is the CN, else the address before `@`. */
export interface CalendarPerson {
  name: string;
  /** Lower-case address without `mailto:`; '' when the calendar gives none. */
  email: string;
  /** The attendee's PARTSTAT in lower case (`accepted`, `tentative`, `needs-action`, …); '' when none. */
  status: string;
}

/**
 * One instance of an event: a recurring series is expanded into one of these per slot asked for.
 * All-day events, cancelled instances and events the user declined (`Calendar.Me`) never appear.
 */
export interface CalendarEvent {
  uid: string;
  title: string;
  start: Date;
  end: Date;
  /** The instance's recurrence id (its original slot in the series), else its start. */
  eventStart: Date;
  /** Whether the event belongs to a recurring series. */
  recurring: boolean;
  /** The description as the calendar holds it (may be HTML); the notes reduce it. */
  description: string;
  location: string;
  organizer: CalendarPerson | null;
  /** Invited people, not rooms or resources (CUTYPE=ROOM/RESOURCE), in the calendar's order. */
  attendees: CalendarPerson[];
  /** A Teams, Zoom, Meet or Webex link found in the event; '' when none. */
  joinUrl: string;
  /** The `Name` of the source it came from. */
  source: string;
}

/** How one source was last read, as `calendar`, the API, the status page and `doctor` say it. */
export interface CalendarSourceState {
  name: string;
  ok: boolean;
  /** When it was last read successfully (ISO 8601 UTC); null when never. */
  readAt: string | null;
  events: number;
  /** Why the last read failed (never the address); null when it did not. */
  error: string | null;
}

/** The lookup every user of the calendar is given (passed in, so tests use a fake). */
export interface CalendarLookup {
  /**
   * Events that overlap [from, to], sorted by start. Never throws for a failing source. Waits
   * (bounded) for the first read of a source that has nothing kept, unless `waitForFirstRead`
   * is false: a page shown every second answers with what there is.
   */
  eventsBetween(from: Date, to: Date, options?: { waitForFirstRead?: boolean }): Promise<CalendarEvent[]>;
  /** Each configured source's state. */
  sources(): CalendarSourceState[];
}

/** A span of time in milliseconds since the epoch, both ends included. */
export interface Span {
  from: number;
  to: number;
}

/** The span both cover; the first undefined: the second. */
export function narrowest(a: Span | undefined, b: Span): Span {
  return a ? { from: Math.max(a.from, b.from), to: Math.min(a.to, b.to) } : b;
}

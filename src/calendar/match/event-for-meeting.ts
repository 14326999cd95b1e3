import type { CalendarEvent } from '../types.js';

/**
 * Which event is a meeting's (docs/design.md §12): a pure rule over events already read, so the
 * import, `session start` and the daemon's runs decide it alike and the rule is tested alone.
 */

export interface MeetingSpan {
  start: Date;
  /** The meeting's end (its `end_time`, else its transcript's last time); undefined while it is recorded. */
  end?: Date;
}

/** How long after its start a meeting without an end counts as only just started. */
export const JUST_STARTED_MS = 10 * 60_000;
/** An event in progress may start this long after the meeting (people join early). */
export const EARLY_START_MS = 10 * 60_000;

/**
 * The meeting's event: the one whose span overlaps the meeting's most, when the overlap is at
 * least half of the shorter of the two; for a meeting that has only just started (no end, less
 * than ten minutes ago), the event in progress first. Undefined when none fits.
 */
export function eventForMeeting(events: readonly CalendarEvent[], meeting: MeetingSpan, now: Date): CalendarEvent | undefined {
  const open = meeting.end === undefined;
  const start = meeting.start.getTime();
  const end = Math.max(start, (meeting.end ?? now).getTime());
  if (open && now.getTime() - start < JUST_STARTED_MS) {
    const current = eventInProgress(events, meeting.start, now);
    if (current) return current;
  }
  return mostOverlapping(events, start, end);
}

/**
 * The event in progress for a meeting that starts at `meetingStart`: started at most ten minutes
 * after it, not yet ended at `now`; of two (one ending as the next begins, a short meeting in a
 * long block), the later-starting one.
 */
export function eventInProgress(events: readonly CalendarEvent[], meetingStart: Date, now: Date): CalendarEvent | undefined {
  const latestStart = meetingStart.getTime() + EARLY_START_MS;
  let best: CalendarEvent | undefined;
  for (const event of events) {
    if (event.start.getTime() > latestStart || event.end.getTime() <= now.getTime()) continue;
    if (!best || event.start.getTime() > best.start.getTime()) best = event;
  }
  return best;
}

function mostOverlapping(events: readonly CalendarEvent[], start: number, end: number): CalendarEvent | undefined {
  let best: { event: CalendarEvent; overlap: number; distance: number } | undefined;
  for (const event of events) {
    const eventStart = event.start.getTime();
    const eventEnd = event.end.getTime();
    const overlap = Math.min(end, eventEnd) - Math.max(start, eventStart);
    // A meeting of no length overlaps nothing: it is matched by the rule for one just started.
    if (overlap <= 0 || overlap < Math.min(end - start, eventEnd - eventStart) / 2) continue;
    const distance = Math.abs(eventStart - start);
    // Equal overlaps (a short meeting inside two events): the one that began nearer the meeting's start.
    if (!best || overlap > best.overlap || (overlap === best.overlap && distance < best.distance)) best = { event, overlap, distance };
  }
  return best?.event;
}

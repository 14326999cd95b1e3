import ICAL from 'ical.js';

/**
 * Where to begin following a series so that a rule without end that began years ago costs
 * the span asked for, not its whole past (docs/design.md §12: bounded time). ical.js follows a
 * rule from its DTSTART only, some 40 µs a slot; a daily rule since 2000 is 9,000 slots.
 *
 * The start moves forward by whole periods (INTERVAL × FREQ), which keeps every later slot
 * where it was: the rule's periods stay aligned, its BY-parts pick the same times. The moved
 * start is itself always returned by ical.js, rule or not, so it is placed at least a period
 * before `from` minus the event's length: whatever it yields there ends before the span asked.
 * Not for a COUNT (it counts from the first slot), a 29th-31st of a month (no such day in
 * every month) or several RRULEs.
 */

type Component = InstanceType<typeof ICAL.Component>;
type Time = InstanceType<typeof ICAL.Time>;

const DAY = 86_400_000;
const PERIOD_MS: Record<string, number> = {
  SECONDLY: 1000,
  MINUTELY: 60_000,
  HOURLY: 3_600_000,
  DAILY: DAY,
  WEEKLY: 7 * DAY,
  MONTHLY: 31 * DAY,
  YEARLY: 366 * DAY,
};
/** Periods kept between the moved start and the span asked: room for DST and month lengths. */
const MARGIN_PERIODS = 2;

export function fastForwardStart(master: Component, start: Time, startMs: number, durationMs: number, fromMs: number): Time | undefined {
  const rules = master.getAllProperties('rrule');
  if (rules.length !== 1) return undefined;
  const rule = rules[0]!.getFirstValue() as InstanceType<typeof ICAL.Recur>;
  if (!rule || rule.count || !rule.freq) return undefined;
  const interval = Math.max(1, rule.interval || 1);
  const period = PERIOD_MS[rule.freq];
  if (!period) return undefined;
  // Monthly and yearly periods are counted long (31 and 366 days): fewer moved, never too many.
  const periods = Math.floor((fromMs - durationMs - startMs) / (period * interval)) - MARGIN_PERIODS;
  if (periods <= 0) return undefined;
  const n = periods * interval;
  const moved = start.clone();
  switch (rule.freq) {
    case 'MONTHLY':
    case 'YEARLY': {
      if (start.day > 28) return undefined;
      const months = rule.freq === 'MONTHLY' ? n : n * 12;
      const total = start.year * 12 + (start.month - 1) + months;
      // A new Time, not the clone's setters: ical.js caches what it derived from the old date.
      return new ICAL.Time(
        { year: Math.floor(total / 12), month: (total % 12) + 1, day: start.day, hour: start.hour, minute: start.minute, second: start.second, isDate: false },
        start.zone,
      );
    }
    case 'WEEKLY':
      moved.adjust(n * 7, 0, 0, 0);
      return moved;
    case 'DAILY':
      moved.adjust(n, 0, 0, 0);
      return moved;
    case 'HOURLY':
      moved.adjust(0, n, 0, 0);
      return moved;
    case 'MINUTELY':
      moved.adjust(0, 0, n, 0);
      return moved;
    default:
      moved.adjust(0, 0, 0, n);
      return moved;
  }
}

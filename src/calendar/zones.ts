import { WINDOWS_ZONES } from './windows-zones.js';

/**
 * Time zones of a calendar (docs/design.md §12): a TZID may be an IANA name, a Windows name
 * (`W. Europe Standard Time`, `(UTC+01:00) Amsterdam, …`), a path ending in an IANA name
 * (`/mozilla.org/20050126_1/Europe/Berlin`), or only the name of the file's own VTIMEZONE.
 * Wall times are turned into instants with Intl, so no process-wide TZ is touched.
 */

/** A wall-clock time as the calendar writes it (month 1-12). */
export interface WallTime {
  year: number;
  month: number;
  day: number;
  hour: number;
  minute: number;
  second: number;
}

const formatters = new Map<string, Intl.DateTimeFormat | null>();

function formatter(zone: string): Intl.DateTimeFormat | null {
  let f = formatters.get(zone);
  if (f === undefined) {
    try {
      f = new Intl.DateTimeFormat('en-US', {
        timeZone: zone,
        hourCycle: 'h23',
        year: 'numeric',
        month: 'numeric',
        day: 'numeric',
        hour: 'numeric',
        minute: 'numeric',
        second: 'numeric',
      });
    } catch {
      f = null;
    }
    formatters.set(zone, f);
  }
  return f;
}

/** Whether `zone` is an IANA name this Node knows. */
export function isIanaZone(zone: string): boolean {
  return zone !== '' && formatter(zone) !== null;
}

/** The IANA zone a TZID names, or undefined when it names none (a custom VTIMEZONE may still). */
export function ianaZoneOf(tzid: string): string | undefined {
  const name = tzid.trim().replace(/^"|"$/g, '');
  if (isIanaZone(name)) return name;
  const windows = WINDOWS_ZONES[name];
  if (windows) return windows;
  // Mozilla's and others' prefixed names: the last two or three segments are the IANA name.
  const parts = name.split('/').filter(Boolean);
  for (let take = Math.min(3, parts.length); take >= 2; take--) {
    const tail = parts.slice(-take).join('/');
    if (isIanaZone(tail)) return tail;
  }
  return undefined;
}

/**
 * Offsets already asked, by zone and quarter hour: Intl's formatToParts is most of the cost of
 * reading a calendar (5,000 events, ~100,000 instants), and every real zone changes its offset
 * only at a whole quarter hour. Bounded: emptied when it grows large.
 */
const offsets = new Map<string, number>();
const QUARTER_HOUR = 900_000;
const MAX_OFFSETS = 200_000;

/** The zone's offset from UTC at `ms`, in milliseconds. */
function offsetAt(ms: number, zone: string): number {
  const key = `${zone} ${Math.floor(ms / QUARTER_HOUR)}`;
  let offset = offsets.get(key);
  if (offset === undefined) {
    offset = offsetOf(Math.floor(ms / QUARTER_HOUR) * QUARTER_HOUR, zone);
    if (offsets.size >= MAX_OFFSETS) offsets.clear();
    offsets.set(key, offset);
  }
  return offset;
}

function offsetOf(ms: number, zone: string): number {
  const f = formatter(zone);
  if (!f) return 0;
  const p: Record<string, number> = {};
  for (const part of f.formatToParts(new Date(ms))) if (part.type !== 'literal') p[part.type] = Number(part.value);
  const asUtc = Date.UTC(p.year!, p.month! - 1, p.day!, p.hour! % 24, p.minute!, p.second!);
  return asUtc - Math.floor(ms / 1000) * 1000;
}

/** The instant of a wall time in an IANA zone (a time skipped at a DST change moves forward). */
export function wallToInstant(wall: WallTime, zone: string): number {
  const asUtc = Date.UTC(wall.year, wall.month - 1, wall.day, wall.hour, wall.minute, wall.second);
  const first = asUtc - offsetAt(asUtc, zone);
  const second = asUtc - offsetAt(first, zone);
  return second === first ? first : Math.max(first, second);
}

/** The system's zone: floating times' zone when neither the calendar nor Calendar.TimeZone names one. */
export function systemZone(): string {
  return Intl.DateTimeFormat().resolvedOptions().timeZone;
}

import { ToolError } from '../tools/errors.js';

/**
 * The filters the MCP tools share (docs/design.md §10): date ranges over `start_time`, names
 * compared without regard to case, newest first.
 *
 * A date bound (`2026-11-30`) compares with the calendar date the meeting's `start_time` is
 * written in (its own offset), so `from` and `to` both `2026-11-30` mean the meetings of that
 * day wherever they were held; a date and time bound compares instants.
 */

const DATE_ONLY = /^\d{4}-\d{2}-\d{2}$/;

export type Bound = { date: string } | { ms: number };

/** A `from`/`to` argument; a value that is no ISO date is a tool error. */
export function parseBound(value: string | undefined, name: string): Bound | undefined {
  if (value === undefined || value.trim() === '') return undefined;
  const text = value.trim();
  if (DATE_ONLY.test(text) && isCalendarDate(text)) return { date: text };
  const ms = /^\d{4}-\d{2}-\d{2}T/.test(text) && isCalendarDate(text.slice(0, 10)) ? Date.parse(text) : NaN;
  if (Number.isNaN(ms)) {
    throw new ToolError(`${name} must be an ISO date (2026-11-30) or date and time (2026-11-30T09:00:00+01:00), not ${JSON.stringify(value)}.`);
  }
  return { ms };
}

/** `Date.parse` rolls 2026-02-31 over to March 3rd: a day the month does not have is no date. */
function isCalendarDate(date: string): boolean {
  const ms = Date.parse(`${date}T00:00:00Z`);
  return !Number.isNaN(ms) && new Date(ms).toISOString().slice(0, 10) === date;
}

export interface DateRange {
  from?: Bound | undefined;
  to?: Bound | undefined;
}

/** Both bounds; a `from` after the `to` (of the same kind) is a tool error, not a silent empty answer. */
export function parseRange(args: { from?: string | undefined; to?: string | undefined }): DateRange {
  const from = parseBound(args.from, 'from');
  const to = parseBound(args.to, 'to');
  const reversed = from && to && ('date' in from && 'date' in to ? from.date > to.date : 'ms' in from && 'ms' in to && from.ms > to.ms);
  if (reversed) throw new ToolError(`from (${args.from!.trim()}) is after to (${args.to!.trim()}); swap them.`);
  return { from, to };
}

/** The calendar date a `start_time` is written in (`2026-11-30T09:00:00+01:00` → 2026-11-30). */
function writtenDate(startTime: string): string | undefined {
  const m = /^(\d{4}-\d{2}-\d{2})/.exec(startTime);
  return m?.[1];
}

function within(bound: Bound, startTime: string, startMs: number, side: 'from' | 'to'): boolean {
  if ('date' in bound) {
    const date = writtenDate(startTime);
    if (date === undefined) return false;
    return side === 'from' ? date >= bound.date : date <= bound.date;
  }
  if (Number.isNaN(startMs)) return false;
  return side === 'from' ? startMs >= bound.ms : startMs <= bound.ms;
}

/** Whether a meeting's start lies in the range; one without a usable start_time lies in none but the open range. */
export function inRange(range: DateRange, startTime: string | undefined, startMs: number): boolean {
  if (!range.from && !range.to) return true;
  if (startTime === undefined) return false;
  return (!range.from || within(range.from, startTime, startMs, 'from')) && (!range.to || within(range.to, startTime, startMs, 'to'));
}

/** Names as people type them: case and surrounding spaces do not matter; a first name finds `Alice Example`. */
export function sameName(wanted: string, name: string): boolean {
  const a = wanted.trim().toLowerCase();
  const b = name.trim().toLowerCase();
  return a === b || b.split(/\s+/).includes(a);
}

export function hasName(names: readonly string[], wanted: string | undefined): boolean {
  return wanted === undefined || wanted.trim() === '' || names.some((n) => sameName(wanted, n));
}

/** Project names are folder names: compared without regard to case. */
export function hasProject(projects: readonly string[], wanted: string | undefined): boolean {
  if (wanted === undefined || wanted.trim() === '') return true;
  const key = wanted.trim().toLowerCase();
  return projects.some((p) => p.toLowerCase() === key);
}

/** Newest start first; missing dates last; ties by path. */
export function newestFirst(a: { startMs: number; rel: string }, b: { startMs: number; rel: string }): number {
  const am = Number.isNaN(a.startMs) ? -Infinity : a.startMs;
  const bm = Number.isNaN(b.startMs) ? -Infinity : b.startMs;
  if (am !== bm) return am === -Infinity ? 1 : bm === -Infinity ? -1 : bm - am;
  return a.rel < b.rel ? -1 : a.rel > b.rel ? 1 : 0;
}

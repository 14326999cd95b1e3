/**
 * docs/design.md §2: the daemon sets `end_time` in the context note when it is missing. A
 * meeting note without one gets the time the transcript ends: `start_time` plus the last
 * `[hh:mm:ss]` stamp of the transcript, written the way `start_time` is written (its offset,
 * its separator, with or without seconds). Only without a usable stamp is it the run's time,
 * never earlier than `start_time`.
 */

const ISO = /^(\d{4})-(\d{2})-(\d{2})([T ])(\d{2}):(\d{2})(?::(\d{2})(\.\d+)?)?\s*(Z|[+-]\d{2}(?::?\d{2})?)?$/i;
/** `[01:02:03]`, `[02:03]`, `[1:02:03.500]` at the start of a line. */
const STAMP = /^\s*\[(\d{1,3}):(\d{2})(?::(\d{2}))?(?:[.,]\d+)?\]/;

/** The largest stamp of the transcript's speech lines, in seconds from the start; undefined when none. */
export function lastStampSeconds(text: string): number | undefined {
  let last: number | undefined;
  for (const line of text.split('\n')) {
    const m = STAMP.exec(line);
    if (!m) continue;
    const [a, b, c] = [Number(m[1]), Number(m[2]), m[3] === undefined ? undefined : Number(m[3])];
    const seconds = c === undefined ? a * 60 + b : a * 3600 + b * 60 + c;
    last = Math.max(last ?? 0, seconds);
  }
  return last;
}

function offsetMinutes(zone: string | undefined, at: Date): number {
  if (zone === undefined) return -at.getTimezoneOffset();
  if (zone.toUpperCase() === 'Z') return 0;
  const m = /^([+-])(\d{2}):?(\d{2})?$/.exec(zone)!;
  return (m[1] === '-' ? -1 : 1) * (Number(m[2]) * 60 + Number(m[3] ?? 0));
}

const pad = (n: number) => String(n).padStart(2, '0');

/** `date` written as `template` is (a parsed `start_time`): its offset, separator and precision. */
function formatLike(template: RegExpExecArray, date: Date): string {
  const zone = template[9];
  const shifted = new Date(date.getTime() + offsetMinutes(zone, date) * 60_000);
  const day = `${shifted.getUTCFullYear()}-${pad(shifted.getUTCMonth() + 1)}-${pad(shifted.getUTCDate())}`;
  const seconds = template[7] !== undefined ? `:${pad(shifted.getUTCSeconds())}${template[8] ? `.${'0'.repeat(template[8].length - 1)}` : ''}` : '';
  return `${day}${template[4]}${pad(shifted.getUTCHours())}:${pad(shifted.getUTCMinutes())}${seconds}${zone ?? ''}`;
}

/** The context note's `end_time` for a meeting note without one (see above). */
export function endTimeOf(startTime: string | undefined, transcript: string | undefined, runTime: Date): string {
  const parsed = startTime === undefined ? null : ISO.exec(startTime.trim());
  if (!parsed) return runTime.toISOString().replace(/\.\d+Z$/, 'Z');
  const startMs = Date.parse(`${parsed[1]}-${parsed[2]}-${parsed[3]}T${parsed[5]}:${parsed[6]}:${parsed[7] ?? '00'}${parsed[8] ?? ''}${parsed[9] ? normalZone(parsed[9]) : ''}`);
  if (Number.isNaN(startMs)) return runTime.toISOString().replace(/\.\d+Z$/, 'Z');
  const stamp = transcript === undefined ? undefined : lastStampSeconds(transcript);
  const end = stamp !== undefined ? startMs + stamp * 1000 : Math.max(startMs, runTime.getTime());
  return formatLike(parsed, new Date(end));
}

function normalZone(zone: string): string {
  if (zone.toUpperCase() === 'Z') return 'Z';
  const m = /^([+-])(\d{2}):?(\d{2})?$/.exec(zone)!;
  return `${m[1]}${m[2]}:${m[3] ?? '00'}`;
}

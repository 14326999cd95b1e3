/**
 * Where the time comes from. Passed in (never read from `new Date()` in place) so tests can
 * fix it and a run's timestamps all come from one source.
 */
export type Clock = () => Date;

export const systemClock: Clock = () => new Date();

const pad = (n: number) => String(n).padStart(2, '0');

/**
 * A moment as a person reads it on this machine: local time, `YYYY-MM-DD HH:mm` (with
 * `:ss` when asked). Undefined for text that is no date, which callers show as written.
 */
export function localDateTime(value: string | Date, options: { seconds?: boolean } = {}): string | undefined {
  const d = typeof value === 'string' ? new Date(value) : value;
  if (Number.isNaN(d.getTime())) return undefined;
  const time = `${pad(d.getHours())}:${pad(d.getMinutes())}${options.seconds ? `:${pad(d.getSeconds())}` : ''}`;
  return `${d.getFullYear()}-${pad(d.getMonth() + 1)}-${pad(d.getDate())} ${time}`;
}

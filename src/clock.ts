/**
 * Where the time comes from. Passed in (never read from `new Date()` in place) so tests can
 * fix it and a run's timestamps all come from one source.
 */
export type Clock = () => Date;

export const systemClock: Clock = () => new Date();

/** `2026-12-02 10:04:05`: the machine's local time to the second, as people read it in a log or a terminal. */
export function localClockTime(date: Date): string {
  const pad = (n: number) => String(n).padStart(2, '0');
  return `${date.getFullYear()}-${pad(date.getMonth() + 1)}-${pad(date.getDate())} ${pad(date.getHours())}:${pad(date.getMinutes())}:${pad(date.getSeconds())}`;
}

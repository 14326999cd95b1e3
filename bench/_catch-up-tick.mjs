// When an idle window of the idle bench may start: clear of the daemon's five-minute catch-up
// tick (Daemon.ReconcileSchedule's default, `*/5 * * * *`, local time; every zone's offset is a
// multiple of 15 minutes, so the ticks fall on multiples of five minutes of UTC too), on both
// sides. A tick just before the window counts as much as one inside it: the scan's own CPU
// (some 1.5 s on 16,000 notes) and V8's heap shrink after the burst (seen 8-18 s after one)
// would land in the window.

export const TICK_MS = 5 * 60_000;
/** How long after a tick its work is over, the heap shrink included. */
export const AFTERMATH_MS = 20_000;

/** Milliseconds to wait at `now` before a window of `windowMs` (plus a margin) is clear of every tick. */
export function idleWindowDelayMs(now, windowMs, { tickMs = TICK_MS, aftermathMs = AFTERMATH_MS, marginMs = 3000 } = {}) {
  const previous = Math.floor(now / tickMs) * tickMs;
  const next = previous + tickMs;
  if (now - previous < aftermathMs) return previous + aftermathMs - now;
  if (next - now < windowMs + marginMs) return next + aftermathMs - now;
  return 0;
}

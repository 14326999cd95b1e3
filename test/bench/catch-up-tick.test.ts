import { describe, expect, it } from 'vitest';
import { AFTERMATH_MS, idleWindowDelayMs, TICK_MS } from '../../bench/_catch-up-tick.mjs';

/**
 * bench/idle.mjs measures idle CPU "between catch-up scans": its windows must keep clear of the
 * daemon's five-minute tick on both sides. One that started a second after a tick (one that fell
 * in the settle before it) had the scan and V8's heap shrink after it inside.
 */
const WINDOW = 10_000;
const tick = 1_764_000_000_000 - (1_764_000_000_000 % TICK_MS);

/** Does a window of WINDOW starting at `start` meet a tick's work (the tick up to AFTERMATH_MS after)? */
function meetsTick(start: number): boolean {
  for (let t = Math.floor(start / TICK_MS) * TICK_MS - TICK_MS; t <= start + WINDOW; t += TICK_MS) {
    if (t < start + WINDOW && t + AFTERMATH_MS > start) return true;
  }
  return false;
}

describe('the idle bench’s windows and the catch-up tick', () => {
  it('wait out a tick that fell just before the window (during the settle), not only one ahead', () => {
    for (const since of [0, 1000, 5000, 12_000, 15_000, 19_999]) {
      const now = tick + since;
      expect(idleWindowDelayMs(now, WINDOW), `${since} ms after a tick`).toBe(AFTERMATH_MS - since);
    }
  });

  it('start no window that meets a tick or its aftermath, wherever it is asked, and wait no longer than needed', () => {
    for (let now = tick - TICK_MS; now < tick + TICK_MS; now += 250) {
      const delay = idleWindowDelayMs(now, WINDOW);
      expect(delay).toBeGreaterThanOrEqual(0);
      expect(meetsTick(now + delay), `asked at ${now - tick} ms from a tick`).toBe(false);
      if (!meetsTick(now) && now + WINDOW + 3000 <= Math.ceil((now + 1) / TICK_MS) * TICK_MS) expect(delay).toBe(0);
    }
  });
});

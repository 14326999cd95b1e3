import cron from 'node-cron';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { type CronFields, nextMatch, plainFields, scheduleCatchUp, type ScheduleTimers } from '../../../src/daemon/intake/schedule.js';
import { silentLogger } from '../../../src/log.js';

/** The first minute after `after` that matches, found by looking at every minute (5-field expressions). */
function bruteForce(fields: CronFields, after: Date): Date {
  // Whole minutes by the clock's count (setSeconds would read the repeated hour of a DST change as its first).
  const t = new Date(Math.floor(after.getTime() / 60_000) * 60_000);
  for (let i = 0; i < 2 * 366 * 24 * 60; i++) {
    t.setTime(t.getTime() + 60_000);
    const ok =
      fields.minute.includes(t.getMinutes()) &&
      fields.hour.includes(t.getHours()) &&
      fields.dayOfMonth.includes(t.getDate()) &&
      fields.month.includes(t.getMonth() + 1) &&
      fields.dayOfWeek.includes(t.getDay());
    if (ok) return t;
  }
  throw new Error('no match in two years');
}

describe('the next catch-up tick, from the local clock', () => {
  const starts = [new Date(2026, 11, 1, 10, 2, 30), new Date(2026, 1, 28, 23, 59, 59), new Date(2027, 11, 31, 23, 55, 0), new Date(2026, 2, 29, 1, 30, 0)];
  const expressions = ['*/5 * * * *', '0 9 * * mon-fri', '30 2 * * *', '0 0 1 1 *', '0 0 13 * 5', '15,45 8-17/3 * 2,8 *', '0 0 * * 7', '@hourly', '@daily'];

  it.each(expressions)('%s: the same minute as looking at every minute', (expression) => {
    const fields = plainFields(expression)!;
    expect(fields).toBeDefined();
    for (const start of starts) expect(nextMatch(fields, start)?.getTime(), `${expression} after ${start.toString()}`).toBe(bruteForce(fields, start).getTime());
  });

  it('six fields: to the second, never the same second again', () => {
    const fields = plainFields('*/10 * * * * *')!;
    expect(nextMatch(fields, new Date(2026, 11, 1, 10, 0, 5, 400))).toEqual(new Date(2026, 11, 1, 10, 0, 10));
    expect(nextMatch(fields, new Date(2026, 11, 1, 10, 0, 10))).toEqual(new Date(2026, 11, 1, 10, 0, 20));
  });

  it('Sunday is 0 or 7, Friday the 13th needs both days (as node-cron matches them)', () => {
    expect(plainFields('0 0 * * 7')!.dayOfWeek).toEqual([0]);
    const friday13 = nextMatch(plainFields('0 0 13 * 5')!, new Date(2026, 11, 1))!;
    expect([friday13.getDate(), friday13.getDay()]).toEqual([13, 5]);
  });

  it.each([
    ['Europe/Berlin', Date.UTC(2026, 9, 25, 1, 16), -60],
    ['America/New_York', Date.UTC(2026, 10, 1, 6, 16), 300],
  ])('%s: in the hour the autumn change repeats, the next tick is after now, not an hour back', (zone, afterMs, offset) => {
    const old = process.env.TZ;
    process.env.TZ = zone;
    try {
      // The zone must really be in force: a worker thread ignores process.env.TZ, and in UTC this test would prove nothing.
      expect(new Date(afterMs).getTimezoneOffset(), `${zone} in force`).toBe(offset);
      const after = new Date(afterMs);
      for (const expression of ['*/5 * * * *', '30 * * * *', '@hourly']) {
        const fields = plainFields(expression)!;
        expect(nextMatch(fields, after)?.getTime(), expression).toBe(bruteForce(fields, after).getTime());
      }
      // The schedule arms a wait ahead instead of ticking at once, again and again, until the stack overflows.
      const clock = manualTimers(afterMs);
      const schedule = scheduleCatchUp('*/5 * * * *', async () => undefined, silentLogger, clock.timers);
      expect(clock.delays()).toEqual([4 * 60_000]);
      schedule.stop();
    } finally {
      if (old === undefined) delete process.env.TZ;
      else process.env.TZ = old;
    }
  });

  it("node-cron's day tokens are left to node-cron's scheduler", () => {
    for (const expression of ['0 0 L * *', '0 0 15W * *', '0 0 * * 1#2']) {
      expect(plainFields(expression)).toBeUndefined();
      const schedule = scheduleCatchUp(expression, async () => undefined, silentLogger);
      expect(() => schedule.stop()).not.toThrow();
    }
  });
});

function manualTimers(start: number) {
  let now = start;
  const pending = new Map<number, { fn: () => void; at: number }>();
  let id = 0;
  const timers: ScheduleTimers = {
    now: () => now,
    setTimeout: (fn, ms) => (pending.set(++id, { fn, at: now + ms }), id),
    clearTimeout: (handle) => void pending.delete(handle as number),
  };
  return {
    timers,
    delays: () => [...pending.values()].map((p) => p.at - now),
    /** Moves the clock to `to` and fires what is due by then (a late or early timer: `to` says). */
    fire(to: number) {
      now = to;
      const due = [...pending.entries()];
      pending.clear();
      for (const [, p] of due) p.fn();
    },
  };
}

describe('the catch-up schedule', () => {
  afterEach(() => vi.restoreAllMocks());

  it('ticks on the expression, waits again when a timer fires early, skips a tick while one runs, and stops', async () => {
    const start = new Date(2026, 11, 1, 10, 2, 30).getTime();
    const clock = manualTimers(start);
    let ticks = 0;
    let release!: () => void;
    const task = async (): Promise<void> => {
      ticks++;
      await new Promise<void>((r) => (release = r));
    };
    const schedule = scheduleCatchUp('*/5 * * * *', task, silentLogger, clock.timers);
    expect(clock.delays()).toEqual([150_000]);
    // Early by a second: no tick, the rest is waited for.
    clock.fire(new Date(2026, 11, 1, 10, 4, 59).getTime());
    expect(ticks).toBe(0);
    expect(clock.delays()).toEqual([1_000]);
    clock.fire(new Date(2026, 11, 1, 10, 5, 0).getTime());
    expect(ticks).toBe(1);
    expect(clock.delays()).toEqual([300_000]);
    // The scan still runs at the next tick: skipped.
    clock.fire(new Date(2026, 11, 1, 10, 10, 0).getTime());
    expect(ticks).toBe(1);
    release();
    await new Promise((r) => setImmediate(r));
    // A laptop asleep for an hour: one tick on waking, the next from then.
    clock.fire(new Date(2026, 11, 1, 11, 12, 0).getTime());
    expect(ticks).toBe(2);
    expect(clock.delays()).toEqual([180_000]);
    release();
    schedule.stop();
    expect(clock.delays()).toEqual([]);
  });

  it('a far tick: the clock is looked at every hour, so a laptop that slept past it ticks on waking, not days later', () => {
    const clock = manualTimers(new Date(2026, 11, 2, 12, 0, 0).getTime());
    let ticks = 0;
    const schedule = scheduleCatchUp('0 0 1 1 *', async () => void ticks++, silentLogger, clock.timers);
    // Thirty days ahead: past setTimeout's 2^31 ms, and a timer stands still while the machine sleeps.
    expect(clock.delays()).toEqual([3_600_000]);
    clock.fire(new Date(2026, 11, 2, 13, 0, 0).getTime());
    expect([ticks, clock.delays()]).toEqual([0, [3_600_000]]);
    // The next hour of the timer's time ends after six weeks of sleep: the tick is now.
    clock.fire(new Date(2027, 0, 12, 8, 0, 0).getTime());
    expect(ticks).toBe(1);
    expect(clock.delays()).toEqual([3_600_000]);
    schedule.stop();
  });

  it('a failing scan is logged and the schedule goes on', async () => {
    const clock = manualTimers(new Date(2026, 11, 1, 10, 4, 0).getTime());
    const errors: unknown[] = [];
    const log = { ...silentLogger, error: (obj: unknown) => void errors.push(obj) } as unknown as typeof silentLogger;
    const schedule = scheduleCatchUp('*/5 * * * *', async () => Promise.reject(new Error('disk gone')), log, clock.timers);
    clock.fire(new Date(2026, 11, 1, 10, 5, 0).getTime());
    await vi.waitFor(() => expect(errors).toHaveLength(1));
    expect(clock.delays()).toEqual([300_000]);
    schedule.stop();
  });

  it('formats no date: the idle daemon maps no ICU data for its schedule', () => {
    const formats = vi.spyOn(Intl, 'DateTimeFormat');
    // node-cron keeps the formatter it made for an earlier schedule (the day tokens' test):
    // not calling Intl again would not show that its scheduler was left alone.
    const cronScheduler = vi.spyOn(cron, 'schedule');
    const schedule = scheduleCatchUp('*/5 * * * *', async () => undefined, silentLogger);
    schedule.stop();
    expect(formats).not.toHaveBeenCalled();
    expect(cronScheduler).not.toHaveBeenCalled();
  });
});

import cron from 'node-cron';
import type { Logger } from '../../log.js';

/**
 * When catch-up runs: `Daemon.ReconcileSchedule`, a node-cron expression (docs/design.md §2).
 * node-cron reads the expression (what it accepts is the contract) but its scheduler finds
 * the next tick with `Intl.DateTimeFormat`, which maps some 8 MB of ICU data into a daemon that
 * otherwise never formats a date: measured on the idle daemon (BENCHMARKS.md, "Caches with
 * owners"). An expression of plain values is timed here from the local clock; one with node-cron's
 * day tokens (`L`, `15W`, `1#2`) goes to node-cron's own scheduler.
 */

/** The values each field allows, as node-cron reads the expression (`cron.parse`). */
export interface CronFields {
  second: number[];
  minute: number[];
  hour: number[];
  dayOfMonth: number[];
  month: number[];
  dayOfWeek: number[];
}

/** The expression's fields when every one is plain values; undefined when one has a day token. */
export function plainFields(expression: string): CronFields | undefined {
  const parsed = cron.parse(expression) as unknown as Record<keyof CronFields, (number | string)[]>;
  const keys: (keyof CronFields)[] = ['second', 'minute', 'hour', 'dayOfMonth', 'month', 'dayOfWeek'];
  if (!keys.every((k) => parsed[k].every((v) => typeof v === 'number'))) return undefined;
  const fields = Object.fromEntries(keys.map((k) => [k, parsed[k] as number[]])) as unknown as CronFields;
  // Sunday is 0 or 7 in cron; Date says 0.
  fields.dayOfWeek = fields.dayOfWeek.map((d) => d % 7);
  return fields;
}

/** How far ahead a tick is looked for: an expression that never matches in five years never does. */
const HORIZON_MS = 5 * 366 * 24 * 3600 * 1000;

/**
 * The first local time strictly after `after`, to the second, that every field allows (day of
 * month and day of week both, as node-cron matches them); undefined within five years. Whole
 * months, days, hours and minutes that cannot match are stepped over, so a yearly expression
 * takes a few hundred steps, not millions.
 */
export function nextMatch(fields: CronFields, after: Date): Date | undefined {
  const allowed = {
    second: new Set(fields.second),
    minute: new Set(fields.minute),
    hour: new Set(fields.hour),
    dayOfMonth: new Set(fields.dayOfMonth),
    month: new Set(fields.month),
    dayOfWeek: new Set(fields.dayOfWeek),
  };
  let t = new Date(Math.floor(after.getTime() / 1000) * 1000 + 1000);
  const end = after.getTime() + HORIZON_MS;
  while (t.getTime() <= end) {
    const [y, mo, d, h, mi] = [t.getFullYear(), t.getMonth(), t.getDate(), t.getHours(), t.getMinutes()];
    if (!allowed.month.has(mo + 1)) t = new Date(y, mo + 1, 1);
    else if (!allowed.dayOfMonth.has(d) || !allowed.dayOfWeek.has(t.getDay())) t = new Date(y, mo, d + 1);
    else if (!allowed.hour.has(h)) t = new Date(y, mo, d, h + 1);
    // The next minute by the clock's count, not new Date(…, mi + 1): in the hour a DST change
    // repeats, that names the first of the two and would step back an hour (a tick in the past).
    else if (!allowed.minute.has(mi)) t = new Date(t.getTime() + (60 - t.getSeconds()) * 1000);
    else if (!allowed.second.has(t.getSeconds())) t = new Date(t.getTime() + 1000);
    else return t;
  }
  return undefined;
}

export interface Schedule {
  stop(): void;
}

export interface ScheduleTimers {
  now(): number;
  setTimeout(fn: () => void, ms: number): unknown;
  clearTimeout(handle: unknown): void;
}

const realTimers: ScheduleTimers = {
  now: () => Date.now(),
  setTimeout: (fn, ms) => setTimeout(fn, ms),
  clearTimeout: (handle) => clearTimeout(handle as NodeJS.Timeout),
};

/**
 * The longest wait before the clock is looked at again. A timer counts time the machine is
 * awake: one wait of days would fire days late on a laptop that slept meanwhile (and setTimeout
 * takes no delay past 2^31 ms anyway). An hour bounds how late a tick missed in sleep runs.
 */
const MAX_DELAY_MS = 60 * 60 * 1000;

/** Run `task` on `Daemon.ReconcileSchedule`; a tick while the previous one still runs is skipped. */
export function scheduleCatchUp(expression: string, task: () => Promise<void>, log: Logger, timers: ScheduleTimers = realTimers): Schedule {
  let running = false;
  const tick = async () => {
    if (running) return;
    running = true;
    try {
      await task();
    } catch (err) {
      log.error({ err }, 'catch-up scan failed');
    } finally {
      running = false;
    }
  };
  const fields = plainFields(expression);
  return fields ? localSchedule(fields, tick, log, timers) : cronSchedule(expression, tick, log);
}

function localSchedule(fields: CronFields, tick: () => Promise<void>, log: Logger, timers: ScheduleTimers): Schedule {
  let handle: unknown;
  let stopped = false;
  const arm = (after: number) => {
    const next = nextMatch(fields, new Date(after));
    if (!next) {
      log.warn('Daemon.ReconcileSchedule matches no time in the next five years: catch-up runs only at start');
      return;
    }
    const wait = () => {
      if (stopped) return;
      const left = next.getTime() - timers.now();
      // Timers fire early or late by a little, and a clock set back makes the tick farther away.
      if (left > 0) {
        handle = timers.setTimeout(wait, Math.min(left, MAX_DELAY_MS));
        return;
      }
      void tick();
      // A laptop waking from sleep missed ticks: one now, then the next one from now.
      arm(Math.max(next.getTime(), timers.now()));
    };
    wait();
  };
  arm(timers.now());
  return {
    stop() {
      stopped = true;
      timers.clearTimeout(handle);
    },
  };
}

function cronSchedule(expression: string, tick: () => Promise<void>, log: Logger): Schedule {
  const job = cron.schedule(expression, tick, {
    name: 'meeting-assistant-catch-up',
    noOverlap: true,
    // A laptop waking from sleep misses ticks; the next one catches up anyway.
    suppressMissedWarning: true,
    logger: {
      info: (message) => log.debug({ cron: true }, message),
      warn: (message) => log.debug({ cron: true }, message),
      error: (message, err) => log.warn({ err: err ?? message }, 'catch-up schedule error'),
      debug: (message) => log.trace({ cron: true }, String(message)),
    },
  });
  return {
    stop() {
      void job.stop();
      void job.destroy();
    },
  };
}

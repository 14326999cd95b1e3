import path from 'node:path';
import type { AppConfig, Settings } from '../config.js';
import type { Clock } from '../clock.js';
import { addLogSecret, type Logger } from '../log.js';
import type { Fs } from '../vault/files/fs.js';
import { STATE_FOLDER } from '../vault/files/state.js';
import type { Expand, SourceEvents } from './expand.js';
import { type FetchLike, fetchCalendar } from './fetch-source.js';
import { type KeptCopy, readKeptCopy, writeKeptCopy } from './kept-copy.js';
import { expandInThread } from './read-worker.js';
import { pathSignature, readCalendarPath } from './read-files.js';
import { type CalendarSource, calendarSources } from './sources.js';
import { type CalendarEvent, type CalendarLookup, type CalendarSourceState, narrowest, type Span } from './types.js';
import { isIanaZone, systemZone } from './zones.js';

/**
 * The calendars of a vault (docs/design.md §12): sources read (URLs fetched every
 * RefreshMinutes, files and folders when they change), their last good copies kept under
 * `.meeting-assistant/calendar/`, and the events of the days around now kept expanded so a
 * meeting's lookup costs no parsing. A source that fails is reported and its last good copy
 * used; nothing here throws at a caller or waits for the network on its behalf.
 */

export interface CalendarDeps {
  settings: Settings['Calendar'];
  vaultRoot: string;
  /** `<vault>/.meeting-assistant`: the kept copies go to its `calendar/` folder. */
  stateDir: string;
  fs: Fs;
  clock: Clock;
  logger: Logger;
  fetch?: FetchLike;
  /** Agent.MaxFileBytes: no calendar larger is read. */
  maxBytes?: number;
  /** Where texts are parsed and expanded: a thread of their own unless a test says otherwise. */
  expand?: Expand;
  /** How long a lookup waits for the first read of a source that has no kept copy; default FIRST_READ_WAIT_MS. */
  firstReadWaitMs?: number;
}

export interface Calendar extends CalendarLookup {
  /** Reads what is kept, then the sources, and keeps them fresh until stop(). */
  start(): void;
  stop(): Promise<void>;
  /** Reads every source that is due now (a URL whose copy is older than RefreshMinutes, a changed file). */
  refresh(): Promise<void>;
  /**
   * A calendar file changed: a refresh that begins after this call, after the one running (which
   * may have read the file before the change); calls meanwhile share it. No URL is fetched early.
   */
  readAgain(): Promise<void>;
}

const DAY_MS = 86_400_000;
/**
 * The span kept expanded: the meetings being matched are near now (docs/design.md §12); two
 * weeks back so that a recording imported days late is matched without a read of its own.
 */
const KEPT_BEFORE_MS = 14 * DAY_MS;
const KEPT_AFTER_MS = 8 * DAY_MS;
/** Files and folders are looked at this often for a change. */
const CHANGE_CHECK_MS = 30_000;
const DEFAULT_MAX_BYTES = 20 * 1024 * 1024;
/**
 * How long a lookup waits, once, for the first read of sources that have no kept copy yet (a
 * daemon's very first start): a URL's fetch limit (30 s) and its expansion. Without the wait, a
 * meeting matched meanwhile would silently get no event (docs/design.md §12).
 */
export const FIRST_READ_WAIT_MS = 35_000;
/** How long stop() waits for a read in flight (a fetch is aborted; a file on a hung mount is not). */
const STOP_WAIT_MS = 2_000;

interface SourceSlot {
  source: CalendarSource;
  state: CalendarSourceState;
  texts: string[] | undefined;
  kept: KeptCopy | undefined;
  /** When the last read was tried (ms), succeeded or not. */
  triedAt: number | undefined;
  signature: string | undefined;
}

export function createCalendar(deps: CalendarDeps): Calendar {
  const { settings, fs, clock, logger } = deps;
  const expand = deps.expand ?? expandInThread;
  const fetchImpl: FetchLike = deps.fetch ?? ((url, init) => fetch(url, init));
  const maxBytes = deps.maxBytes ?? DEFAULT_MAX_BYTES;
  const refreshMs = settings.RefreshMinutes * 60_000;
  const defaultZone = isIanaZone(settings.TimeZone) ? settings.TimeZone : systemZone();
  const slots: SourceSlot[] = calendarSources(settings, deps.vaultRoot).map((source) => ({
    source,
    state: { name: source.name, ok: false, readAt: null, events: 0, error: 'not read yet' },
    texts: undefined,
    kept: undefined,
    triedAt: undefined,
    signature: undefined,
  }));
  // Defence in depth: should an address ever reach a log line, the logger masks it (§12: a secret).
  for (const { source } of slots) if (source.kind === 'url') addLogSecret(logger, source.url);

  /** The span expanded (from, to) and the part of it every series is whole in (a lookup's answer). */
  let window: { from: number; to: number; whole: Span; events: CalendarEvent[] } | undefined;
  let loaded: Promise<void> | undefined;
  /** The first read of every source, whatever its outcome; then that wait, bounded, shared by all lookups. */
  let firstRead: Promise<void> | undefined;
  let firstReadWaited: Promise<void> | undefined;
  let running: Promise<void> | undefined;
  let timer: NodeJS.Timeout | undefined;
  let stopped = false;
  const stopping = new AbortController();

  const request = (from: number, to: number, focus?: number) => ({
    sources: slots.filter((s) => s.texts).map((s) => ({ name: s.source.name, texts: s.texts! })),
    from,
    to,
    defaultZone,
    me: settings.Me,
    focus,
  });

  function report(slot: SourceSlot, error: string | null): void {
    const before = slot.state.error;
    slot.state.ok = error === null;
    slot.state.error = error;
    if (error !== null && error !== before) {
      logger.warn({ calendar: slot.source.label, error, lastGoodCopy: slot.state.readAt }, 'a calendar could not be read; its last good copy is used');
    } else if (error === null && before !== null) {
      logger.info({ calendar: slot.source.label }, before === 'not read yet' ? 'a calendar is read' : 'a calendar is read again');
    }
  }

  async function loadKept(): Promise<void> {
    for (const slot of slots) {
      const kept = await readKeptCopy(fs, deps.stateDir, slot.source.keptAs).catch(() => undefined);
      if (!kept) continue;
      slot.kept = kept;
      slot.texts = kept.texts;
      slot.state.readAt = kept.readAt;
      slot.state.ok = true;
      slot.state.error = null;
    }
    await rebuildWindow();
  }

  async function readSlot(slot: SourceSlot, now: number): Promise<boolean> {
    const { source } = slot;
    if (source.kind === 'url') {
      const age = slot.kept ? now - Date.parse(slot.kept.readAt) : Infinity;
      const sinceTry = slot.triedAt === undefined ? Infinity : now - slot.triedAt;
      if (age < refreshMs || sinceTry < refreshMs) return false;
      slot.triedAt = now;
      try {
        const outcome = await fetchCalendar(fetchImpl, source.url, slot.kept?.validators ?? {}, { maxBytes, signal: stopping.signal });
        // A sign-in page or an error page answered with 200 is no calendar: the last good copy stays.
        if (outcome.changed && !looksLikeCalendar(outcome.text)) throw new Error('not an iCalendar file');
        const readAt = new Date(clock().getTime()).toISOString();
        const texts = outcome.changed ? [outcome.text] : (slot.texts ?? []);
        const validators = outcome.changed ? outcome.validators : (slot.kept?.validators ?? {});
        slot.kept = { texts, validators, readAt };
        slot.texts = texts;
        slot.state.readAt = readAt;
        await writeKeptCopy(fs, deps.stateDir, source.keptAs, slot.kept).catch((err: unknown) =>
          logger.warn({ calendar: source.label, code: (err as { code?: string }).code }, 'the copy of a calendar could not be kept'),
        );
        report(slot, null);
        return outcome.changed;
      } catch (err) {
        // A fetch ended by stop() says nothing about the calendar.
        if (!stopped) report(slot, (err as Error).message);
        return false;
      }
    }
    const signature = await pathSignature(fs, source.path);
    const stale = slot.triedAt === undefined || now - slot.triedAt >= refreshMs;
    if (signature === slot.signature && !stale) return false;
    slot.triedAt = now;
    slot.signature = signature;
    try {
      const texts = await readCalendarPath(fs, source.path, maxBytes);
      if (texts.length > 0 && !texts.some(looksLikeCalendar)) throw new Error(texts.length === 1 ? 'not an iCalendar file' : 'none of its files is an iCalendar file');
      const readAt = clock().toISOString();
      // Read again unchanged (the re-read every RefreshMinutes, a restart after the kept copy):
      // nothing to expand again, no kept copy to write again.
      if (slot.texts !== undefined && sameTexts(slot.texts, texts)) {
        slot.state.readAt = readAt;
        report(slot, null);
        return false;
      }
      slot.kept = { texts, validators: {}, readAt };
      slot.texts = texts;
      slot.state.readAt = readAt;
      await writeKeptCopy(fs, deps.stateDir, source.keptAs, slot.kept).catch(() => undefined);
      report(slot, null);
      return true;
    } catch (err) {
      report(slot, (err as Error).message);
      return false;
    }
  }

  async function rebuildWindow(): Promise<void> {
    const now = clock().getTime();
    const from = now - KEPT_BEFORE_MS;
    const to = now + KEPT_AFTER_MS;
    try {
      const results = await expand(request(from, to, now));
      apply(results);
      // A series with more slots than are followed (a minutely rule) is whole around now only;
      // a lookup beyond is expanded for itself.
      const whole = results.reduce<Span>((span, r) => (r.complete ? narrowest(span, r.complete) : span), { from, to });
      window = { from, to, whole, events: results.flatMap((r) => r.events).sort(byStart) };
    } catch (err) {
      logger.warn({ error: (err as Error).message }, 'the calendars could not be expanded');
    }
  }

  function apply(results: SourceEvents[]): void {
    for (const r of results) {
      const slot = slots.find((s) => s.source.name === r.name);
      if (!slot) continue;
      slot.state.events = r.count;
      if (r.error) report(slot, r.error);
    }
  }

  async function refreshOnce(): Promise<void> {
    const now = clock().getTime();
    let changed = false;
    for (const slot of slots) if (!stopped && (await readSlot(slot, now))) changed = true;
    const windowOld = !window || now - KEPT_BEFORE_MS - window.from > DAY_MS / 2;
    if (!stopped && (changed || windowOld)) await rebuildWindow();
  }

  function refresh(): Promise<void> {
    loaded ??= loadKept();
    running ??= loaded.then(refreshOnce).finally(() => (running = undefined));
    firstRead ??= running.catch(() => undefined);
    return running;
  }

  let again: Promise<void> | undefined;
  function readAgain(): Promise<void> {
    again ??= (running ?? Promise.resolve())
      .catch(() => undefined)
      .then(() => {
        again = undefined;
        return stopped ? undefined : refresh();
      });
    return again;
  }

  return {
    start() {
      if (timer || stopped) return;
      void refresh();
      timer = setInterval(() => void refresh(), Math.min(CHANGE_CHECK_MS, refreshMs));
      timer.unref();
    },
    async stop() {
      stopped = true;
      if (timer) clearInterval(timer);
      timer = undefined;
      stopping.abort();
      if (running) await bounded(running.catch(() => undefined), STOP_WAIT_MS);
    },
    refresh,
    readAgain,
    async eventsBetween(from, to, options = {}) {
      // The kept copies, never the network: a lookup does not wait for a fetch (§12), except for
      // the first read of a source that has no kept copy at all, and that once and bounded.
      loaded ??= loadKept();
      await loaded;
      if (options.waitForFirstRead !== false && !stopped && slots.some((s) => s.texts === undefined)) {
        firstReadWaited ??= bounded(firstRead ?? refresh().catch(() => undefined), deps.firstReadWaitMs ?? FIRST_READ_WAIT_MS);
        await firstReadWaited;
      }
      const f = from.getTime();
      const t = to.getTime();
      if (window && f >= window.whole.from && t <= window.whole.to) return window.events.filter((e) => e.start.getTime() <= t && e.end.getTime() >= f);
      try {
        return (await expand(request(f, t))).flatMap((r) => r.events).sort(byStart);
      } catch (err) {
        logger.warn({ error: (err as Error).message }, 'the calendars could not be expanded');
        return [];
      }
    },
    sources: () => slots.map((s) => ({ ...s.state })),
  };
}

/** `work`, or `ms` milliseconds, whichever ends first; the timer holds no process open. */
function bounded(work: Promise<void>, ms: number): Promise<void> {
  let timer: NodeJS.Timeout | undefined;
  const waited = new Promise<void>((resolve) => {
    timer = setTimeout(resolve, ms);
    timer.unref();
  });
  return Promise.race([work, waited]).finally(() => clearTimeout(timer));
}

function sameTexts(a: readonly string[], b: readonly string[]): boolean {
  return a.length === b.length && a.every((text, i) => text === b[i]);
}

function looksLikeCalendar(text: string): boolean {
  return /BEGIN:VCALENDAR/i.test(text.slice(0, 65_536));
}

function byStart(a: CalendarEvent, b: CalendarEvent): number {
  return a.start.getTime() - b.start.getTime();
}

/**
 * The calendar of a configuration (docs/design.md §12), as the daemon, `calendar` and `session
 * start` read it: the vault's sources, their kept copies under `.meeting-assistant/calendar/`,
 * nothing larger than Agent.MaxFileBytes.
 */
export function calendarOfConfig(config: AppConfig, o: Pick<CalendarDeps, 'fs' | 'clock' | 'logger' | 'fetch'>): Calendar {
  const root = config.layout.root;
  return createCalendar({
    settings: config.settings.Calendar,
    vaultRoot: root,
    stateDir: path.join(root, STATE_FOLDER),
    maxBytes: config.settings.Agent.MaxFileBytes,
    ...o,
  });
}

import { describe, expect, it } from 'vitest';
import { type CalendarDeps, createCalendar } from '../../src/calendar/calendar.js';
import { expandNow, packResults } from '../../src/calendar/expand.js';
import type { FetchLike } from '../../src/calendar/fetch-source.js';
import { localDay, todaysCalendar } from '../../src/calendar/listing.js';
import { expandInThread } from '../../src/calendar/read-worker.js';
import type { Settings } from '../../src/config.js';
import type { Fs } from '../../src/vault/files/fs.js';
import { capturedLogger } from '../helpers/captured-log.js';
import { memoryFs, testConfig } from '../helpers/memfs.js';

/** docs/design.md §12: the sources read, fetched, kept, and looked up. */

const NOW = new Date('2026-03-02T08:00:00Z');
const SECRET_URL = 'https://calendar.example.org/ical/private-4f9a1c2e77/basic.ics?token=s3cr3tT0ken';

const stamp = (d: Date) => d.toISOString().replace(/[-:]/g, '').replace(/\.\d{3}/, '');

function ics(...events: string[][]): string {
  return ['BEGIN:VCALENDAR', 'VERSION:2.0', ...events.flat(), 'END:VCALENDAR'].join('\r\n');
}

function event(uid: string, title: string, start: string, end: string, ...more: string[]): string[] {
  return ['BEGIN:VEVENT', `UID:${uid}`, `SUMMARY:${title}`, `DTSTART:${start}`, `DTEND:${end}`, ...more, 'END:VEVENT'];
}

function settings(sources: Settings['Calendar']['Sources'], more: Partial<Settings['Calendar']> = {}): Settings['Calendar'] {
  return { ...testConfig().settings.Calendar, Sources: sources, TimeZone: 'Europe/Berlin', ...more };
}

function setup(fs: Fs, cal: Settings['Calendar'], more: Partial<CalendarDeps> = {}) {
  const { log, lines } = capturedLogger();
  let now = NOW.getTime();
  const calendar = createCalendar({
    settings: cal,
    vaultRoot: '/vault',
    stateDir: '/vault/.meeting-assistant',
    fs,
    clock: () => new Date(now),
    logger: log,
    expand: async (r) => expandNow(r),
    ...more,
  });
  return { calendar, lines, advance: (ms: number) => (now += ms) };
}

const day = (d: string) => [new Date(`${d}T00:00:00Z`), new Date(`${d}T23:59:59Z`)] as const;

describe('createCalendar', () => {
  it('reads an .ics file of the vault and a vdirsyncer folder, and says how each was read', async () => {
    const fs = memoryFs({
      'Calendars/work.ics': ics(event('a', 'Planning', '20260302T090000Z', '20260302T100000Z')),
      'Calendars/caldav/one.ics': ics(event('b', 'Review', '20260302T130000Z', '20260302T140000Z')),
      'Calendars/caldav/two.ics': ics(event('c', 'Retro', '20260302T150000Z', '20260302T160000Z')),
      'Calendars/caldav/notes.txt': 'not a calendar',
    });
    const { calendar } = setup(fs, settings([{ Name: 'Work', Path: 'Calendars/work.ics' }, { Name: 'Team', Path: '/vault/Calendars/caldav' }]));
    await calendar.refresh();
    const events = await calendar.eventsBetween(...day('2026-03-02'));
    expect(events.map((e) => [e.title, e.source])).toEqual([
      ['Planning', 'Work'],
      ['Review', 'Team'],
      ['Retro', 'Team'],
    ]);
    expect(calendar.sources()).toEqual([
      { name: 'Work', ok: true, readAt: NOW.toISOString(), events: 1, error: null },
      { name: 'Team', ok: true, readAt: NOW.toISOString(), events: 2, error: null },
    ]);
  });

  it('reads a file again when it changes, and reports one that disappears while keeping its events', async () => {
    const fs = memoryFs({ 'work.ics': ics(event('a', 'Planning', '20260302T090000Z', '20260302T100000Z')) });
    const { calendar, lines, advance } = setup(fs, settings([{ Name: 'Work', Path: 'work.ics' }]));
    await calendar.refresh();
    await fs.writeFile('/vault/work.ics', ics(event('a', 'Planning (moved)', '20260302T110000Z', '20260302T120000Z')));
    advance(1000);
    await calendar.refresh();
    expect((await calendar.eventsBetween(...day('2026-03-02'))).map((e) => e.title)).toEqual(['Planning (moved)']);
    await fs.unlink('/vault/work.ics');
    await calendar.refresh();
    expect((await calendar.eventsBetween(...day('2026-03-02'))).map((e) => e.title)).toEqual(['Planning (moved)']);
    expect(calendar.sources()[0]).toMatchObject({ ok: false, error: 'the file or folder does not exist', readAt: new Date(NOW.getTime() + 1000).toISOString() });
    expect(lines.some((l) => l.level === 'warn' && l.calendar === 'Work')).toBe(true);
  });

  it('a file read again unchanged (the re-read every RefreshMinutes) is not expanded again, nor its kept copy written again', async () => {
    const fs = memoryFs({ 'work.ics': ics(event('a', 'Planning', '20260302T090000Z', '20260302T100000Z')) });
    let expands = 0;
    const { calendar, advance } = setup(fs, settings([{ Name: 'Work', Path: 'work.ics' }]), { expand: async (r) => (expands++, expandNow(r)) });
    await calendar.refresh();
    const kept = (await fs.readdir('/vault/.meeting-assistant/calendar', { withFileTypes: true }))[0]!.name;
    const keptText = String(await fs.readFile(`/vault/.meeting-assistant/calendar/${kept}`));
    const before = expands;
    advance(16 * 60_000);
    await calendar.refresh();
    expect(expands).toBe(before);
    expect(String(await fs.readFile(`/vault/.meeting-assistant/calendar/${kept}`))).toBe(keptText);
    expect(calendar.sources()[0]).toMatchObject({ ok: true, readAt: new Date(NOW.getTime() + 16 * 60_000).toISOString() });
  });

  it('readAgain after a change reads the file once more after the refresh in flight, which had read it before the change', async () => {
    const fs = memoryFs({ 'Calendars/work.ics': ics(event('a', 'Planning', '20260302T090000Z', '20260302T100000Z')) });
    let release: () => void = () => undefined;
    let entered: () => void = () => undefined;
    const read = new Promise<void>((resolve) => (entered = resolve));
    let gated = true;
    const { calendar } = setup(fs, settings([{ Name: 'Work', Path: 'Calendars/work.ics' }]), {
      expand: async (r) => {
        // The first expansion of the file's text waits: the file changes meanwhile.
        if (gated && r.sources.length > 0) {
          gated = false;
          entered();
          await new Promise<void>((resolve) => (release = resolve));
        }
        return expandNow(r);
      },
    });
    const inFlight = calendar.refresh();
    await read;
    await fs.writeFile('/vault/Calendars/work.ics', ics(event('a', 'Planning (moved)', '20260302T110000Z', '20260302T120000Z')));
    const joined = calendar.refresh();
    const again = calendar.readAgain();
    expect(calendar.readAgain()).toBe(again);
    release();
    await Promise.all([inFlight, joined]);
    // What the refresh in flight read is the file before the change.
    expect((await calendar.eventsBetween(...day('2026-03-02'))).map((e) => e.title)).toEqual(['Planning']);
    await again;
    expect((await calendar.eventsBetween(...day('2026-03-02'))).map((e) => e.title)).toEqual(['Planning (moved)']);
  });

  it('fetches a URL with its validators, keeps the copy, and a daemon started offline still knows the day', async () => {
    const fs = memoryFs();
    const requests: Record<string, string>[] = [];
    const body = ics(event('a', 'Planning', '20260302T090000Z', '20260302T100000Z'));
    const online: FetchLike = async (_url, init) => {
      requests.push(init.headers);
      if (init.headers['if-none-match'] === '"v1"') return new Response(null, { status: 304 });
      return new Response(body, { status: 200, headers: { etag: '"v1"', 'last-modified': 'Mon, 02 Mar 2026 07:00:00 GMT' } });
    };
    const cal = settings([{ Name: 'Google', Url: SECRET_URL.replace('https:', 'webcal:') }], { RefreshMinutes: 15 });
    const first = setup(fs, cal, { fetch: online });
    await first.calendar.refresh();
    first.advance(16 * 60_000);
    await first.calendar.refresh();
    expect(requests).toEqual([
      { accept: expect.any(String) },
      { accept: expect.any(String), 'if-none-match': '"v1"', 'if-modified-since': 'Mon, 02 Mar 2026 07:00:00 GMT' },
    ]);
    expect((await first.calendar.eventsBetween(...day('2026-03-02'))).map((e) => e.title)).toEqual(['Planning']);

    const offline: FetchLike = async () => {
      throw Object.assign(new TypeError('fetch failed'), { cause: Object.assign(new Error(`getaddrinfo ENOTFOUND calendar.example.org ${SECRET_URL}`), { code: 'ENOTFOUND' }) });
    };
    const second = setup(fs, cal, { fetch: offline });
    second.advance(60 * 60_000);
    await second.calendar.refresh();
    expect((await second.calendar.eventsBetween(...day('2026-03-02'))).map((e) => e.title)).toEqual(['Planning']);
    expect(second.calendar.sources()[0]).toMatchObject({ name: 'Google', ok: false, error: 'the host was not found (offline?)', events: 1 });
    const said = JSON.stringify([second.lines, second.calendar.sources(), first.lines]);
    expect(said).toContain('Google (calendar.example.org)');
    expect(said).not.toContain('private-4f9a1c2e77');
    expect(said).not.toContain('s3cr3tT0ken');
  });

  it('refuses a calendar larger than Agent.MaxFileBytes, and a non-calendar answer, keeping the last good copy', async () => {
    const fs = memoryFs();
    const answers = [
      new Response(ics(event('a', 'Planning', '20260302T090000Z', '20260302T100000Z')), { status: 200 }),
      new Response('x'.repeat(5000), { status: 200 }),
      new Response('<html>Sign in</html>', { status: 200 }),
    ];
    const { calendar, advance } = setup(fs, settings([{ Name: 'Outlook', Url: SECRET_URL }], { RefreshMinutes: 1 }), {
      fetch: async () => answers.shift()!,
      maxBytes: 4000,
    });
    await calendar.refresh();
    advance(61_000);
    await calendar.refresh();
    expect(calendar.sources()[0]).toMatchObject({ ok: false, error: 'larger than 4000 bytes (Agent.MaxFileBytes)' });
    advance(61_000);
    await calendar.refresh();
    expect(calendar.sources()[0]).toMatchObject({ ok: false, error: 'not an iCalendar file' });
    // The page that is no calendar is not kept over the last good copy.
    expect((await calendar.eventsBetween(...day('2026-03-02'))).map((e) => e.title)).toEqual(['Planning']);
  });

  it('answers from the kept copy while a fetch hangs: a lookup never waits for the network', async () => {
    const fs = memoryFs();
    const cal = settings([{ Name: 'Google', Url: SECRET_URL }], { RefreshMinutes: 15 });
    const first = setup(fs, cal, { fetch: async () => new Response(ics(event('a', 'Planning', '20260302T090000Z', '20260302T100000Z')), { status: 200 }) });
    await first.calendar.refresh();
    let release: (r: Response) => void = () => undefined;
    const hanging = setup(fs, cal, { fetch: () => new Promise<Response>((resolve) => (release = resolve)) });
    hanging.advance(20 * 60_000);
    hanging.calendar.start();
    const pending = hanging.calendar.refresh();
    expect((await hanging.calendar.eventsBetween(...day('2026-03-02'))).map((e) => e.title)).toEqual(['Planning']);
    release(new Response(null, { status: 304 }));
    await pending;
    await hanging.calendar.stop();
    expect(hanging.calendar.sources()[0]).toMatchObject({ ok: true, error: null });
  });

  it('on a very first start (no kept copy), a lookup waits for the first read instead of answering no event', async () => {
    const fs = memoryFs();
    let release: (r: Response) => void = () => undefined;
    let asked: () => void = () => undefined;
    const fetched = new Promise<void>((resolve) => (asked = resolve));
    const { calendar } = setup(fs, settings([{ Name: 'Google', Url: SECRET_URL }]), {
      fetch: () => {
        asked();
        return new Promise<Response>((resolve) => (release = resolve));
      },
    });
    calendar.start();
    const lookup = calendar.eventsBetween(...day('2026-03-02'));
    await fetched;
    release(new Response(ics(event('a', 'Planning', '20260302T090000Z', '20260302T100000Z')), { status: 200 }));
    expect((await lookup).map((e) => e.title)).toEqual(['Planning']);
    await calendar.stop();
  });

  it('a first read that never ends holds lookups up for the bound only, and a failed first read not at all', async () => {
    const never: FetchLike = () => new Promise<Response>(() => undefined);
    const hanging = setup(memoryFs(), settings([{ Name: 'Google', Url: SECRET_URL }]), { fetch: never, firstReadWaitMs: 50 });
    hanging.calendar.start();
    expect(await hanging.calendar.eventsBetween(...day('2026-03-02'))).toEqual([]);
    expect(await hanging.calendar.eventsBetween(...day('2026-03-02'))).toEqual([]);
    // A first read that fails (no kept copy either) leaves the lookups answering at once, with no event.
    const refused: FetchLike = async () => {
      throw Object.assign(new TypeError('fetch failed'), { cause: { code: 'ECONNREFUSED' } });
    };
    const failing = setup(memoryFs(), settings([{ Name: 'Google', Url: SECRET_URL }]), { fetch: refused, firstReadWaitMs: 600_000 });
    failing.calendar.start();
    expect(await failing.calendar.eventsBetween(...day('2026-03-02'))).toEqual([]);
    expect(failing.calendar.sources()[0]).toMatchObject({ ok: false, error: 'the connection was refused' });
    await failing.calendar.stop();
  });

  it('stop() does not wait for the network: a fetch in flight is ended, the next sources are not read, nothing reported', async () => {
    const signals: AbortSignal[] = [];
    const hanging: FetchLike = (_url, init) => {
      signals.push(init.signal);
      return new Promise<Response>((_resolve, reject) => init.signal.addEventListener('abort', () => reject(init.signal.reason)));
    };
    const cal = settings([
      { Name: 'Google', Url: SECRET_URL },
      { Name: 'Outlook', Url: SECRET_URL.replace('calendar.example.org', 'outlook.example.org') },
    ]);
    const { calendar, lines } = setup(memoryFs(), cal, { fetch: hanging });
    calendar.start();
    await expect.poll(() => signals.length).toBe(1);
    await calendar.stop();
    expect(signals[0]!.aborted).toBe(true);
    expect(signals).toHaveLength(1);
    expect(lines.filter((l) => /could not be read/.test(JSON.stringify(l)))).toEqual([]);
    // A read that ignores the signal (a file on a hung mount) holds stop() for a bound only.
    const deaf = setup(memoryFs(), settings([{ Name: 'Google', Url: SECRET_URL }]), { fetch: () => new Promise<Response>(() => undefined) });
    deaf.calendar.start();
    await deaf.calendar.stop();
  });

  it('todaysCalendar gives the events that start on the local day and the sources (for the status page)', async () => {
    const fs = memoryFs({
      'work.ics': ics(
        event('y', 'Late yesterday', stamp(new Date(2026, 2, 1, 23, 30)), stamp(new Date(2026, 2, 2, 0, 30))),
        event('t', 'Today', stamp(new Date(2026, 2, 2, 10)), stamp(new Date(2026, 2, 2, 11))),
        event('n', 'Tomorrow', stamp(new Date(2026, 2, 3, 0, 0)), stamp(new Date(2026, 2, 3, 1))),
      ),
    });
    const { calendar } = setup(fs, settings([{ Name: 'Work', Path: 'work.ics' }]));
    await calendar.refresh();
    const got = await todaysCalendar(calendar, () => new Date(2026, 2, 2, 8));
    expect(got.events.map((e) => e.title)).toEqual(['Today']);
    expect(got.sources).toEqual([expect.objectContaining({ name: 'Work', ok: true })]);
    expect(localDay('2026-02-29')).toBeUndefined();
    expect(localDay('2026-03-02')).toEqual({ from: new Date(2026, 2, 2), to: new Date(2026, 2, 3, 0, 0, 0, -1) });
  });

  it('a minutely rule without end: today and next week are whole at three past midnight, from the kept window; ten days back is expanded for itself', async () => {
    // 22 days kept are 31,680 minutes, more than a series is followed (20,000 slots): the series
    // is followed around now, so the day does not depend on the hour the window was built.
    const fs = memoryFs({ 'work.ics': ics(event('m', 'Every minute', '20010101T000000Z', '20010101T000100Z', 'RRULE:FREQ=MINUTELY')) });
    const expands: number[] = [];
    const { calendar } = setup(fs, settings([{ Name: 'Work', Path: 'work.ics' }]), {
      clock: () => new Date(2026, 2, 2, 0, 3),
      expand: async (r) => (expands.push(r.to - r.from), expandNow(r)),
    });
    await calendar.refresh();
    const built = expands.length;
    const today = await todaysCalendar(calendar, () => new Date(2026, 2, 2, 0, 3));
    expect(today.events).toHaveLength(1440);
    expect(today.events[0]!.start).toEqual(new Date(2026, 2, 2, 0, 0));
    expect(expands).toHaveLength(built);
    const inSevenDays = await calendar.eventsBetween(new Date(2026, 2, 9, 12), new Date(2026, 2, 9, 12, 59, 59));
    expect(inSevenDays).toHaveLength(61);
    expect(expands).toHaveLength(built);
    // Ten days back is kept, but the series was not followed there: read for itself, still whole.
    const tenDaysBack = await calendar.eventsBetween(new Date(2026, 1, 20, 12), new Date(2026, 1, 20, 12, 59, 59));
    expect(tenDaysBack).toHaveLength(61);
    expect(expands).toHaveLength(built + 1);
    await calendar.stop();
  });

  it("a series' long description crosses from the reading thread once, not once per instance, and arrives whole", async () => {
    const description = 'Agenda point. '.repeat(5_000);
    const text = ics(event('m', 'Every minute', '20010101T000000Z', '20010101T000100Z', 'RRULE:FREQ=MINUTELY', `DESCRIPTION:${description}`));
    const request = { sources: [{ name: 'Work', texts: [text] }], from: Date.parse('2026-03-02T00:00:00Z'), to: Date.parse('2026-03-02T23:59:59Z'), defaultZone: 'UTC', me: [] };
    const packed = packResults(expandNow(request));
    expect(packed.results[0]!.events).toHaveLength(1_441);
    // Description, title and location: three texts for 1,441 events.
    expect(packed.texts).toHaveLength(3);
    const threaded = await expandInThread(request);
    expect(threaded).toEqual(expandNow(request));
    expect(threaded[0]!.events[700]!.description.length).toBeGreaterThan(60_000);
  });

  it('expands in a thread of its own, and answers spans far from now', async () => {
    const fs = memoryFs({ 'work.ics': ics(event('w', 'Weekly', '20200106T090000Z', '20200106T100000Z', 'RRULE:FREQ=WEEKLY')) });
    const { calendar } = setup(fs, settings([{ Name: 'Work', Path: 'work.ics' }]), { expand: (r) => expandInThread(r) });
    await calendar.refresh();
    expect((await calendar.eventsBetween(new Date('2026-03-01T00:00:00Z'), new Date('2026-03-10T00:00:00Z'))).map((e) => e.start.toISOString())).toEqual([
      '2026-03-02T09:00:00.000Z',
      '2026-03-09T09:00:00.000Z',
    ]);
    expect((await calendar.eventsBetween(...day('2021-01-04'))).map((e) => e.start.toISOString())).toEqual(['2021-01-04T09:00:00.000Z']);
    await calendar.stop();
  });
});

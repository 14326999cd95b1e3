import { describe, expect, it } from 'vitest';
import { renderMain } from '../../../src/daemon/http/status-page.js';
import { buildStatusView } from '../../../src/daemon/http/status-view.js';
import { TodayEvents } from '../../../src/meeting-event/today-events.js';
import { RunBoard } from '../../../src/daemon/runs/run-board.js';
import { RunHistory } from '../../../src/daemon/runs/run-history.js';
import { silentLogger } from '../../../src/log.js';
import { EventNotes } from '../../../src/meeting-event/event-notes.js';
import { renderFrontmatter } from '../../../src/vault/format/frontmatter.js';
import { localIsoTime } from '../../../src/vault/format/note-names.js';
import { calendarEvent, fakeCalendar } from '../../helpers/calendar-events.js';
import { createCalendar } from '../../../src/calendar/calendar.js';
import { expandNow } from '../../../src/calendar/expand.js';
import { testConfig } from '../../helpers/memfs.js';
import { memoryVault } from '../../helpers/memfs.js';

/** Today's events on the status page (docs/design.md §12): links to their notes, text only. */

const NOW = new Date(2026, 11, 2, 8, 0);
const slot = (h: number, day = 2) => new Date(2026, 11, day, h, 0);
const STANDUP = calendarEvent({ uid: 'standup', title: 'Standup', start: slot(9), end: slot(10), eventStart: slot(9), recurring: true });
const HOSTILE = calendarEvent({ uid: 'x', title: '<img src=x onerror=alert(1)> & <b>Review</b>', start: slot(14), end: slot(15) });
const TOMORROW = calendarEvent({ uid: 'tomorrow', title: 'Tomorrow', start: slot(9, 3), end: slot(10, 3) });

function page(vault: ReturnType<typeof memoryVault>) {
  return buildStatusView({
    version: '9.9.9',
    startedAt: NOW,
    vaultRoot: '/vault',
    board: new RunBoard(new RunHistory(vault, silentLogger)),
    pending: () => [],
    stopping: () => false,
    endpoint: { url: 'http://127.0.0.1:1/v1', model: 'm', api: 'chat-completions' },
    endpointWindow: () => 1000,
    clock: () => NOW,
  });
}

describe('today’s events on the status page', () => {
  it('lists today’s events only, each with its meeting note when it has one, the calendar’s text escaped', async () => {
    const vault = memoryVault({
      // Last week's instance of the series, and today's: only today's slot is this event's note.
      'Meetings/2026-11-25 0900 Standup.md': renderFrontmatter({ title: 'Standup', event: 'standup', event_start: localIsoTime(new Date(2026, 10, 25, 9, 0)) }),
      'Meetings/2026-12-02 0900 Standup.md': renderFrontmatter({ title: 'Standup', event: 'standup', event_start: localIsoTime(slot(9)) }),
    });
    const calendar = fakeCalendar([STANDUP, HOSTILE, TOMORROW], [{ name: 'Team', ok: false, readAt: null, events: 0, error: 'HTTP 404 from calendar.example.com' }]);
    const view = { ...page(vault), calendar: await new TodayEvents({ calendar, vault, clock: () => NOW }).day() };
    expect(view.calendar?.events).toEqual([
      { title: 'Standup', start: STANDUP.start.toISOString(), end: STANDUP.end.toISOString(), meeting: 'Meetings/2026-12-02 0900 Standup.md' },
      { title: HOSTILE.title, start: HOSTILE.start.toISOString(), end: HOSTILE.end.toISOString() },
    ]);
    const html = renderMain(view, 'csrf');
    expect(html).toContain('<section id="calendar">');
    expect(html).toContain('Meetings/2026-12-02 0900 Standup.md');
    expect(html).not.toContain('<img');
    expect(html).not.toContain('<b>Review');
    expect(html).toContain('&#60;img src=x onerror=alert(1)&#62;');
    expect(html).toContain('Team: HTTP 404 from calendar.example.com');
    expect(html).toContain('no meeting note yet');
  });

  it('asks the calendar once per refresh interval, not at each page load', async () => {
    const vault = memoryVault();
    const calendar = fakeCalendar([STANDUP]);
    let now = NOW;
    const today = new TodayEvents({ calendar, vault, clock: () => now, ttlMs: 30_000 });
    await today.day();
    await today.day();
    expect(calendar.asked).toHaveLength(1);
    now = new Date(NOW.getTime() + 31_000);
    await today.day();
    expect(calendar.asked).toHaveLength(2);
  });

  it('without a calendar the page has no such section', () => {
    const vault = memoryVault();
    expect(renderMain(page(vault), 'csrf')).not.toContain('id="calendar"');
  });

  it('EventNotes: a non-recurring event’s note by its UID alone', async () => {
    const vault = memoryVault({ 'Meetings/r.md': renderFrontmatter({ event: 'x' }) });
    const found = await new EventNotes(vault).notesOf([HOSTILE]);
    expect(found.get(HOSTILE)).toBe('/vault/Meetings/r.md');
  });

  it('the page never waits for a calendar’s first read (which a meeting’s lookup waits for): it shows the calendar not read yet', async () => {
    const vault = memoryVault();
    const calendar = createCalendar({
      settings: { ...testConfig().settings.Calendar, Sources: [{ Name: 'Google', Url: 'https://calendar.example.org/private-abc/basic.ics' }] },
      vaultRoot: '/vault',
      stateDir: '/vault/.meeting-assistant',
      fs: vault.fs,
      clock: () => NOW,
      logger: silentLogger,
      expand: async (r) => expandNow(r),
      fetch: () => new Promise<Response>(() => undefined),
      firstReadWaitMs: 600_000,
    });
    calendar.start();
    const day = await new TodayEvents({ calendar, vault, clock: () => NOW }).day();
    expect(day).toEqual({ events: [], failing: [{ name: 'Google', error: 'not read yet' }] });
  });
});

import { describe, expect, it } from 'vitest';
import type { FetchLike } from '../../src/calendar/fetch-source.js';
import { calendar } from '../../src/commands/calendar.js';
import { localDateTime } from '../../src/clock.js';
import { CliError } from '../../src/commands/common.js';
import { memoryFs } from '../helpers/memfs.js';
import { memoryIo } from '../helpers/memory-io.js';

/** `meeting-assistant calendar` (docs/design.md §12): the events, their notes, the sources. */

const SECRET_URL = 'https://outlook.example.com/owa/calendar/8c1f0e5d/reachcalendar.ics?sig=QmFzZTY0U2VjcmV0';
const utc = (d: Date) => d.toISOString().replace(/[-:]/g, '').replace(/\.\d{3}/, '');
// Local times, so that the local days the command counts in hold them whatever the machine's zone.
const at = (day: number, hour: number) => new Date(2026, 2, day, hour, 0, 0);

function ics(...events: string[][]): string {
  return ['BEGIN:VCALENDAR', 'VERSION:2.0', ...events.flat(), 'END:VCALENDAR'].join('\r\n');
}

const planning = [
  'BEGIN:VEVENT',
  'UID:plan-1',
  'SUMMARY:Planning',
  `DTSTART:${utc(at(2, 10))}`,
  `DTEND:${utc(at(2, 11))}`,
  'RRULE:FREQ=DAILY;COUNT=3',
  'ORGANIZER;CN=Ann Lee:mailto:ann@example.org',
  'ATTENDEE;CN=Ann Lee;PARTSTAT=ACCEPTED:mailto:ann@example.org',
  'ATTENDEE;PARTSTAT=NEEDS-ACTION:mailto:bob@example.org',
  'DESCRIPTION:Join https://teams.microsoft.com/l/meetup-join/abc',
  'END:VEVENT',
];

function vault(extra: Record<string, string> = {}, sources: unknown[] = [{ Name: 'Work', Path: 'work.ics' }]) {
  return memoryFs({
    '/work/config.json': JSON.stringify({ MeetingAssistant: { VaultPath: '/vault', Http: { Enabled: false }, Calendar: { Sources: sources } } }),
    'work.ics': ics(planning),
    'Meetings/2026-03-03 Planning.md': `---\ntitle: Planning\nevent: plan-1\nevent_start: ${at(3, 10).toISOString()}\n---\n`,
    ...extra,
  });
}

const run = (opts: Parameters<typeof calendar>[0], fs = vault(), fetch?: FetchLike) => {
  const io = memoryIo();
  return { io, code: calendar(opts, { io, fs, env: {}, cwd: '/work', clock: () => at(3, 8), fetch }) };
};

describe('calendar', () => {
  it("prints today's events in local time with their organizer, people, join host and meeting note, then the sources", async () => {
    const { io, code } = run({});
    expect(await code).toBe(0);
    const start = localDateTime(at(3, 10))!;
    expect(io.outLines[0]).toBe(`${start}-11:00  Planning · organizer Ann Lee · 2 invited · teams.microsoft.com · note: Meetings/2026-03-03 Planning.md`);
    expect(io.outLines.slice(1)).toEqual(['', 'Calendars:', `  Work: read ${localDateTime(at(3, 8))}, 1 events`]);
  });

  it('--json prints the §12 shape for the days asked, both included', async () => {
    const { io, code } = run({ from: '2026-03-02', to: '2026-03-03', json: true });
    expect(await code).toBe(0);
    const json = JSON.parse(io.outLines.join('\n')) as { events: Record<string, unknown>[]; sources: unknown[] };
    expect(json.events).toHaveLength(2);
    expect(json.events[1]).toEqual({
      title: 'Planning',
      start: at(3, 10).toISOString(),
      end: at(3, 11).toISOString(),
      uid: 'plan-1',
      eventStart: at(3, 10).toISOString(),
      organizer: { name: 'Ann Lee', email: 'ann@example.org' },
      attendees: [
        { name: 'Ann Lee', email: 'ann@example.org', status: 'accepted' },
        { name: 'bob', email: 'bob@example.org', status: 'needs-action' },
      ],
      location: '',
      joinUrl: 'https://teams.microsoft.com/l/meetup-join/abc',
      meeting: 'Meetings/2026-03-03 Planning.md',
    });
    expect(json.events[0]!.meeting).toBeNull();
    expect(json.sources).toEqual([{ name: 'Work', ok: true, readAt: at(3, 8).toISOString(), events: 1, error: null }]);
  });

  it("links a single event's note after the event moved, and no note to a series' other instances", async () => {
    const review = ['BEGIN:VEVENT', 'UID:review-1', 'SUMMARY:Review', `DTSTART:${utc(at(3, 15))}`, `DTEND:${utc(at(3, 16))}`, 'END:VEVENT'];
    const fs = vault({
      'work.ics': ics(planning, review),
      // Made when the review was still at 14:00; the event has moved to 15:00 since.
      'Meetings/2026-03-03 Review.md': `---\ntitle: Review\nevent: review-1\nevent_start: ${at(3, 14).toISOString()}\n---\n`,
      // A note naming the series without its slot belongs to no one instance.
      'Meetings/2026-03-02 Planning.md': '---\ntitle: Planning\nevent: plan-1\n---\n',
    });
    const { io, code } = run({ from: '2026-03-02', to: '2026-03-04', json: true }, fs);
    expect(await code).toBe(0);
    const json = JSON.parse(io.outLines.join('\n')) as { events: { title: string; start: string; meeting: string | null }[] };
    expect(json.events.map((e) => [e.title, e.start, e.meeting])).toEqual([
      ['Planning', at(2, 10).toISOString(), null],
      ['Planning', at(3, 10).toISOString(), 'Meetings/2026-03-03 Planning.md'],
      ['Review', at(3, 15).toISOString(), 'Meetings/2026-03-03 Review.md'],
      ['Planning', at(4, 10).toISOString(), null],
    ]);
  });

  it.each([
    [{ from: '2026-3-2' }, /--from "2026-3-2" is not a date/],
    [{ to: '2026-02-30' }, /--to "2026-02-30" is not a date/],
    [{ from: '2026-03-04', to: '2026-03-02' }, /--to is before --from/],
  ])('exits 2 on bad dates: %o', async (opts, message) => {
    const { code } = run(opts);
    await expect(code).rejects.toThrow(message);
    await expect(code).rejects.toMatchObject({ exitCode: 2 } satisfies Partial<CliError>);
  });

  it('exits 1 naming a calendar that cannot be read, and never prints its address', async () => {
    const offline: FetchLike = async () => {
      throw Object.assign(new TypeError(`fetch failed ${SECRET_URL}`), { cause: { code: 'ECONNREFUSED', message: SECRET_URL } });
    };
    for (const json of [false, true]) {
      const { io, code } = run({ json }, vault({}, [{ Name: 'Work', Path: 'work.ics' }, { Name: 'Outlook', Url: SECRET_URL }]), offline);
      expect(await code).toBe(1);
      expect(io.errLines).toEqual(['meeting-assistant: the calendar "Outlook" could not be read: the connection was refused.']);
      if (!json) expect(io.outLines).toContain('  Outlook (outlook.example.com): NOT READ (the connection was refused); no copy kept');
      expect(io.text()).not.toMatch(/8c1f0e5d|QmFzZTY0U2VjcmV0|reachcalendar/);
    }
  });

  it('reads a URL once a copy is older than RefreshMinutes, and its fresh kept copy without the network', async () => {
    const fs = vault({}, [{ Name: 'Google', Url: SECRET_URL }]);
    let fetches = 0;
    const online: FetchLike = async () => (fetches++, new Response(ics(planning), { status: 200 }));
    expect(await run({}, fs, online).code).toBe(0);
    const { io, code } = run({}, fs, async () => Promise.reject(new Error('no network in this test')));
    expect(await code).toBe(0);
    expect(fetches).toBe(1);
    expect(io.outLines[0]).toContain('Planning');
  });
});

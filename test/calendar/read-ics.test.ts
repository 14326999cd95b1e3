import { describe, expect, it } from 'vitest';
import { MAX_INSTANCES, type ReadOptions, readIcs } from '../../src/calendar/read-ics.js';

/** docs/design.md §12 "Reading": one calendar file read and expanded around the times asked for. */

function ics(...lines: string[]): string {
  return ['BEGIN:VCALENDAR', 'VERSION:2.0', 'PRODID:-//test//EN', ...lines, 'END:VCALENDAR'].join('\r\n');
}

function event(...lines: string[]): string[] {
  return ['BEGIN:VEVENT', ...lines, 'END:VEVENT'];
}

const opts = (from: string, to: string, more: Partial<ReadOptions> = {}): ReadOptions => ({
  source: 'Work',
  from: Date.parse(from),
  to: Date.parse(to),
  defaultZone: 'Europe/Berlin',
  me: [],
  ...more,
});

const starts = (text: string, o: ReadOptions) => readIcs(text, o).events.map((e) => `${e.title}@${e.start.toISOString()}`);

describe('readIcs', () => {
  it('expands a weekly rule only over the span asked, with EXDATE, a moved and a cancelled instance', () => {
    const text = ics(
      ...event('UID:standup', 'SUMMARY:Standup', 'DTSTART;TZID=Europe/Berlin:20260105T090000', 'DTEND;TZID=Europe/Berlin:20260105T091500', 'RRULE:FREQ=WEEKLY;BYDAY=MO', 'EXDATE;TZID=Europe/Berlin:20260112T090000'),
      ...event('UID:standup', 'RECURRENCE-ID;TZID=Europe/Berlin:20260119T090000', 'SUMMARY:Standup (moved)', 'DTSTART;TZID=Europe/Berlin:20260120T140000', 'DTEND;TZID=Europe/Berlin:20260120T141500'),
      // The same slot written in UTC still finds it (09:00 Berlin = 08:00Z).
      ...event('UID:standup', 'RECURRENCE-ID:20260126T080000Z', 'STATUS:CANCELLED', 'SUMMARY:Standup', 'DTSTART;TZID=Europe/Berlin:20260126T090000', 'DTEND;TZID=Europe/Berlin:20260126T091500'),
    );
    const result = readIcs(text, opts('2026-01-01T00:00:00Z', '2026-02-03T00:00:00Z'));
    expect(result.events.map((e) => [e.title, e.start.toISOString(), e.eventStart.toISOString(), e.recurring])).toEqual([
      ['Standup', '2026-01-05T08:00:00.000Z', '2026-01-05T08:00:00.000Z', true],
      ['Standup (moved)', '2026-01-20T13:00:00.000Z', '2026-01-19T08:00:00.000Z', true],
      ['Standup', '2026-02-02T08:00:00.000Z', '2026-02-02T08:00:00.000Z', true],
    ]);
    expect(result.count).toBe(1);
  });

  it('follows a rule without end only up to the span asked, even years after it began', () => {
    const text = ics(...event('UID:d', 'SUMMARY:Daily', 'DTSTART:20000101T100000Z', 'DTEND:20000101T103000Z', 'RRULE:FREQ=DAILY'));
    expect(starts(text, opts('2026-03-10T00:00:00Z', '2026-03-11T23:00:00Z'))).toEqual(['Daily@2026-03-10T10:00:00.000Z', 'Daily@2026-03-11T10:00:00.000Z']);
  });

  it.each([
    ['weekly on two days, every other week', 'FREQ=WEEKLY;INTERVAL=2;BYDAY=MO,WE;WKST=SU'],
    ['the second Tuesday of the month', 'FREQ=MONTHLY;BYDAY=2TU'],
    ['the last weekday of the month', 'FREQ=MONTHLY;BYDAY=MO,TU,WE,TH,FR;BYSETPOS=-1'],
    ['yearly', 'FREQ=YEARLY'],
    ['every third day until a date', 'FREQ=DAILY;INTERVAL=3;UNTIL=20260420T000000Z'],
    ['hourly in office hours', 'FREQ=HOURLY;INTERVAL=5;BYHOUR=9,10,11,12,13,14,15,16', '20251013T093000'],
  ])('a series begun long ago gives the same slots read from its start or from the span: %s', (_name, rule, start = '20180313T093000') => {
    const text = ics(...event('UID:r', 'SUMMARY:R', `DTSTART;TZID=Europe/Berlin:${start}`, 'DTEND;TZID=Europe/Berlin:20180313T100000', `RRULE:${rule}`));
    const span = opts('2026-03-01T00:00:00Z', '2026-04-30T00:00:00Z');
    const whole = starts(text, { ...span, from: Date.parse('2018-01-01T00:00:00Z') }).filter((s) => s.slice(2) >= '2026-03-01');
    expect(starts(text, span)).toEqual(whole);
    expect(whole.length).toBeGreaterThan(0);
  });

  it('shares one attendee list among the instances of a minutely series of 3,000 people, and lists at most MAX_INSTANCES', () => {
    const people = Array.from({ length: 3000 }, (_, i) => `ATTENDEE;CN=P${i}:mailto:p${i}@example.org`);
    const text = ics(...event('UID:m', 'SUMMARY:Minutely', 'DTSTART:20010101T000000Z', 'DTEND:20010101T000100Z', 'RRULE:FREQ=MINUTELY', ...people));
    const result = readIcs(text, opts('2026-03-01T00:00:00Z', '2026-03-02T00:00:00Z'));
    expect(result.events).toHaveLength(1442);
    expect(result.events[0]!.attendees).toHaveLength(3000);
    expect(result.events[1000]!.attendees).toBe(result.events[0]!.attendees);
    const many = ics(...Array.from({ length: 8 }, (_, i) => event(`UID:m${i}`, 'SUMMARY:M', 'DTSTART:20010101T000000Z', 'DTEND:20010101T000100Z', 'RRULE:FREQ=MINUTELY')).flat());
    const capped = readIcs(many, opts('2026-03-01T00:00:00Z', '2026-03-11T00:00:00Z'));
    expect(capped.events.length).toBeLessThanOrEqual(MAX_INSTANCES + 20_000);
    expect(capped.unreadable).toBeGreaterThan(0);
  });

  it('follows a series with more slots than it follows around the focus, and says which span is whole', () => {
    const text = ics(...event('UID:m', 'SUMMARY:Minutely', 'DTSTART:20010101T000000Z', 'DTEND:20010101T000100Z', 'RRULE:FREQ=MINUTELY'));
    const span = opts('2026-02-16T00:03:00Z', '2026-03-10T00:03:00Z');
    // From `from` on, 20,000 slots: the series stops short of the day of the focus.
    const plain = readIcs(text, span);
    expect(plain.complete!.from).toBe(span.from);
    // The slots followed begin a few periods before `from` (fast-forward.ts keeps a margin).
    expect(plain.complete!.to).toBeGreaterThan(span.from + 19_990 * 60_000);
    expect(plain.complete!.to).toBeLessThan(span.from + 20_000 * 60_000);
    expect(plain.events.some((e) => e.start.toISOString().startsWith('2026-03-02'))).toBe(false);
    const focus = Date.parse('2026-03-02T00:03:00Z');
    const focused = readIcs(text, { ...span, focus });
    const from = focus - 25 * 3_600_000;
    expect(focused.complete!.from).toBe(from);
    expect(focused.complete!.to).toBe(span.to);
    expect(focused.events.filter((e) => e.start.toISOString().startsWith('2026-03-02'))).toHaveLength(1440);
    expect(focused.events[0]!.start.getTime()).toBe(from - 60_000);
    // A series followed whole says nothing.
    expect(readIcs(text, opts('2026-03-02T00:00:00Z', '2026-03-03T00:00:00Z', { focus })).complete).toBeUndefined();
  });

  it('an invitation cannot write to a terminal: control characters, escape sequences and bidi overrides leave every shown field', () => {
    const esc = '\u001b';
    const text = ics(
      ...event(
        'UID:e',
        `SUMMARY:${esc}]0;owned\u0007Board ${esc}[2Jmeeting\u202e`,
        `LOCATION:Room\u0085 ${esc}[31m4`,
        `DESCRIPTION:Line one\\nLine\u0008 two\u0000`,
        `ORGANIZER;CN="Ann${esc}[8m":mailto:ann@example.org`,
        `ATTENDEE;CN="Bob\u009b1m":mailto:bob@example.org`,
        'DTSTART:20260302T100000Z',
        'DTEND:20260302T110000Z',
      ),
    );
    const [e] = readIcs(text, opts('2026-03-01T00:00:00Z', '2026-03-04T00:00:00Z')).events;
    const fields = [e!.title, e!.location, e!.description, e!.organizer!.name, e!.attendees[0]!.name];
    for (const field of fields) expect(field).not.toMatch(/[\u0000-\u0008\u000b-\u001f\u007f-\u009f\u202a-\u202e]/);
    // Whole sequences go (vault/format/terminal-text.ts), not only their escape character.
    expect(fields).toEqual(['Board meeting', 'Room 4', 'Line one\nLine two', 'Ann', 'Bob']);
  });

  it('passes over a cancelled series, all-day events and events I declined', () => {
    const text = ics(
      ...event('UID:c', 'SUMMARY:Gone', 'STATUS:CANCELLED', 'DTSTART:20260301T100000Z', 'RRULE:FREQ=DAILY'),
      ...event('UID:a', 'SUMMARY:Holiday', 'DTSTART;VALUE=DATE:20260302', 'DTEND;VALUE=DATE:20260303'),
      // Exchange writes some all-day events with times, midnight to midnight, and marks them so.
      ...event('UID:x', 'SUMMARY:Company day', 'DTSTART;TZID=W. Europe Standard Time:20260302T000000', 'DTEND;TZID=W. Europe Standard Time:20260303T000000', 'X-MICROSOFT-CDO-ALLDAYEVENT:TRUE'),
      ...event('UID:n', 'SUMMARY:Declined', 'DTSTART:20260302T100000Z', 'DTEND:20260302T110000Z', 'ATTENDEE;PARTSTAT=DECLINED:mailto:Me@Example.org'),
      ...event('UID:y', 'SUMMARY:Kept', 'DTSTART:20260302T120000Z', 'DTEND:20260302T130000Z', 'ATTENDEE;PARTSTAT=ACCEPTED:mailto:me@example.org'),
    );
    expect(starts(text, opts('2026-03-01T00:00:00Z', '2026-03-04T00:00:00Z', { me: ['me@example.org'] }))).toEqual(['Kept@2026-03-02T12:00:00.000Z']);
  });

  it('reads Windows zone names, a custom VTIMEZONE, floating times in X-WR-TIMEZONE, else in the default zone', () => {
    const custom = [
      'BEGIN:VTIMEZONE', 'TZID:Customized Time Zone', 'BEGIN:STANDARD', 'DTSTART:16010101T000000', 'TZOFFSETFROM:+0530', 'TZOFFSETTO:+0530', 'END:STANDARD', 'END:VTIMEZONE',
    ];
    const text = ics(
      ...custom,
      ...event('UID:w1', 'SUMMARY:Short', 'DTSTART;TZID=W. Europe Standard Time:20260701T090000', 'DTEND;TZID=W. Europe Standard Time:20260701T100000'),
      ...event('UID:w2', 'SUMMARY:Display', 'DTSTART;TZID="(UTC-05:00) Eastern Time (US & Canada)":20260701T090000', 'DTEND;TZID="(UTC-05:00) Eastern Time (US & Canada)":20260701T100000'),
      ...event('UID:c1', 'SUMMARY:Custom', 'DTSTART;TZID=Customized Time Zone:20260701T090000', 'DTEND;TZID=Customized Time Zone:20260701T100000'),
      ...event('UID:f1', 'SUMMARY:Floating', 'DTSTART:20260701T090000', 'DTEND:20260701T100000'),
    );
    expect(starts(text, opts('2026-06-30T00:00:00Z', '2026-07-02T00:00:00Z'))).toEqual([
      'Custom@2026-07-01T03:30:00.000Z',
      'Floating@2026-07-01T07:00:00.000Z',
      'Short@2026-07-01T07:00:00.000Z',
      'Display@2026-07-01T13:00:00.000Z',
    ]);
    const tokyo = text.replace('PRODID:-//test//EN', 'PRODID:-//test//EN\r\nX-WR-TIMEZONE:Asia/Tokyo');
    expect(starts(tokyo, opts('2026-06-30T00:00:00Z', '2026-07-02T00:00:00Z')).find((s) => s.startsWith('Floating'))).toBe('Floating@2026-07-01T00:00:00.000Z');
  });

  it('keeps people but not rooms, the organizer, and the join link from an X- property before the description', () => {
    const text = ics(
      ...event(
        'UID:p',
        'SUMMARY:Review',
        'DTSTART:20260302T100000Z',
        'DTEND:20260302T110000Z',
        'ORGANIZER;CN=Ann Lee:mailto:ann@example.org',
        'ATTENDEE;CN=Ann Lee;PARTSTAT=ACCEPTED:mailto:ann@example.org',
        'ATTENDEE;PARTSTAT=TENTATIVE:mailto:bob.k@example.org',
        'ATTENDEE;CUTYPE=ROOM;CN=Room 4:mailto:room4@example.org',
        'X-MICROSOFT-SKYPETEAMSMEETINGURL:https://teams.microsoft.com/l/meetup-join/19%3ameeting_abc',
        'DESCRIPTION:Agenda\\nJoin: https://zoom.us/j/123',
        'LOCATION:Room 4',
      ),
    );
    const [e] = readIcs(text, opts('2026-03-02T00:00:00Z', '2026-03-03T00:00:00Z')).events;
    expect(e!.organizer).toEqual({ name: 'Ann Lee', email: 'ann@example.org', status: '' });
    expect(e!.attendees).toEqual([
      { name: 'Ann Lee', email: 'ann@example.org', status: 'accepted' },
      { name: 'bob.k', email: 'bob.k@example.org', status: 'tentative' },
    ]);
    expect(e!.joinUrl).toBe('https://teams.microsoft.com/l/meetup-join/19%3ameeting_abc');
    expect(e!.location).toBe('Room 4');
    expect(e!.source).toBe('Work');
  });

  it('reads the rest of a file when one event in it is broken', () => {
    const text = ics(
      ...event('UID:ok', 'SUMMARY:Fine', 'DTSTART:20260302T100000Z', 'DTEND:20260302T110000Z'),
      ...event('UID:bad', 'SUMMARY:Broken', 'DTSTART;TZID="W. Europe Standard Time:20260302T090000"', 'DTEND:20260302T110000Z'),
    );
    const result = readIcs(text, opts('2026-03-01T00:00:00Z', '2026-03-04T00:00:00Z'));
    expect(result.events.map((e) => e.title)).toEqual(['Fine']);
    expect(result.unreadable).toBe(1);
  });

  it('throws for a text that is no calendar', () => {
    expect(() => readIcs('<html>Sign in</html>', opts('2026-03-01T00:00:00Z', '2026-03-04T00:00:00Z'))).toThrow();
  });

  it('keeps a real UID as it is, and names one holding markup by its hash, the same at each read (docs/design.md §12)', () => {
    const text = ics(
      ...event('UID:040000008200E00074C5B7101A82E008-abc@google.com', 'SUMMARY:Real', 'DTSTART:20260105T090000Z', 'DTEND:20260105T100000Z'),
      ...event('UID:<% tp.system.command("id") %>', 'SUMMARY:Hostile', 'DTSTART:20260105T110000Z', 'DTEND:20260105T120000Z'),
    );
    const read = () => readIcs(text, opts('2026-01-05T00:00:00Z', '2026-01-06T00:00:00Z')).events.map((e) => e.uid);
    const [real, hostile] = read();
    expect(real).toBe('040000008200E00074C5B7101A82E008-abc@google.com');
    expect(hostile).toMatch(/^uid-[0-9a-f]{32}$/);
    expect(read()[1]).toBe(hostile);
  });
});

import { readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { readIcs } from '../../src/calendar/read-ics.js';

/**
 * Real calendars (docs/design.md §12) from the test suites of node-ical and python's icalendar
 * (test/fixtures/calendar/README.md names each and its licence): each instance's title and start.
 * The lists were held against node-ical's own expansion of the same files, and agree with it
 * except where the file is broken (the two events listed as unreadable below, which node-ical
 * reads by guessing).
 */

const DIR = path.join(path.dirname(fileURLToPath(import.meta.url)), '..', 'fixtures', 'calendar');

function read(name: string, from: string, to: string, defaultZone = 'UTC') {
  const result = readIcs(readFileSync(path.join(DIR, name), 'utf8'), { source: 'Real', from: Date.parse(from), to: Date.parse(to), defaultZone, me: [] });
  return { ...result, instances: result.events.map((e) => [e.title, e.start.toISOString()]) };
}

const ALL: [string, string] = ['2000-01-01T00:00:00Z', '2030-01-01T00:00:00Z'];

describe('real calendars', () => {
  it('Outlook on the web (Exchange 2010): Windows display zones, events without UID, a weekly series', () => {
    const r = read('node-ical-Office-2012-owa.ics', '2020-10-01T00:00:00Z', '2020-11-16T00:00:00Z');
    expect(r.instances).toEqual([
      [' TEST Syd', '2020-10-28T02:30:00.000Z'],
      [' TEST', '2020-10-28T17:30:00.000Z'],
      [' TEST 3', '2020-11-02T18:30:00.000Z'],
      [' TEST2', '2020-11-05T18:30:00.000Z'],
      [' TEST2', '2020-11-06T18:30:00.000Z'],
      [' TEST2', '2020-11-12T18:30:00.000Z'],
      [' TEST2', '2020-11-13T18:30:00.000Z'],
    ]);
    expect(read('node-ical-Office-2012-owa.ics', ...ALL).events).toHaveLength(89);
  });

  it('Exchange: Windows short names, an EXDATE list folded before the UID, a broken event passed over', () => {
    const r = read('node-ical-ms_timezones.ics', '2020-09-08T00:00:00Z', '2020-09-16T00:00:00Z');
    expect(r.instances).toEqual([
      ['Not the actual summary either', '2020-09-08T19:00:00.000Z'],
      ['test', '2020-09-10T07:00:00.000Z'],
      ['Not the actual summary either', '2020-09-10T19:00:00.000Z'],
      ['Not the actual summary either', '2020-09-11T19:00:00.000Z'],
      ['Not the actual summary either', '2020-09-13T19:00:00.000Z'],
      ['Not the actual summary 1', '2020-09-15T15:30:00.000Z'],
      ['Not the actual summary either', '2020-09-15T19:00:00.000Z'],
    ]);
    // 2020-07-21 and 07-23 are EXDATEs of the series.
    expect(read('node-ical-ms_timezones.ics', '2020-07-18T00:00:00Z', '2020-07-25T00:00:00Z').instances).toEqual([
      ['Not the actual summary either', '2020-07-19T19:00:00.000Z'],
      ['Not the actual summary either', '2020-07-24T19:00:00.000Z'],
    ]);
    expect(r.unreadable).toBe(1);
  });

  it('Exchange: a custom VTIMEZONE named by its display name, and a TZID written unquoted', () => {
    expect(read('node-ical-exchange-custom-tz.ics', ...ALL).instances).toEqual([['Test event', '2019-04-30T02:00:00.000Z']]);
    expect(read('icalendar-issue_836_do_not_quote_tzid.ics', ...ALL).instances).toEqual([['Anonymous Test Event for TZID', '2024-10-28T21:00:00.000Z']]);
  });

  it('a Windows display zone with EXDATEs in another zone: excluded only at the same instant', () => {
    expect(read('node-ical-windows-quoted-tz-rrule.ics', ...ALL).instances).toEqual(
      ['06', '07', '08', '09', '10', '11', '12', '13', '14', '15'].map((d) => ['Treasure Hunting', `2015-07-${d}T16:00:00.000Z`]),
    );
  });

  it('Google: a moved instance by RECURRENCE-ID in Europe/Kiev, and EXDATE lists across a DST change', () => {
    expect(read('node-ical-google-calendar-kiev-tz.ics', ...ALL).instances).toEqual([
      ['repeated', '2016-08-25T11:00:00.000Z'],
      ['bla bla', '2016-08-26T11:00:00.000Z'],
      ['repeated', '2016-08-27T11:00:00.000Z'],
      ['repeated', '2016-08-28T11:00:00.000Z'],
    ]);
    const r = read('node-ical-biweekly-exdate-until.ics', ...ALL);
    expect(r.instances.slice(0, 5)).toEqual([
      ['Example of comma-separated exdates', '2017-02-16T15:00:00.000Z'],
      ['Example of comma-separated exdates', '2017-02-27T15:00:00.000Z'],
      ['Example of comma-separated exdates', '2017-03-02T15:00:00.000Z'],
      ['Example of comma-separated exdates', '2017-03-13T14:00:00.000Z'],
      ['Example of comma-separated exdates', '2017-03-16T14:00:00.000Z'],
    ]);
    expect(r.instances.slice(-2)).toEqual([
      ['Example of comma-separated exdates', '2017-07-03T14:00:00.000Z'],
      ['Example of comma-separated exdates', '2017-07-31T14:00:00.000Z'],
    ]);
    expect(r.instances).toHaveLength(21);
    // Its other event has an EXDATE that is no date-time ("20200116"): passed over, counted.
    expect(r.unreadable).toBe(1);
  });

  it('a daily series with EXDATEs and one instance moved by RECURRENCE-ID', () => {
    expect(read('node-ical-daily-count-exdate-recurrence-id.ics', ...ALL).instances).toEqual([
      ['Treasure Hunting', '2015-07-06T19:00:00.000Z'],
      ['Treasure Hunting', '2015-07-09T19:00:00.000Z'],
      ['More Treasure Hunting', '2015-07-09T22:00:00.000Z'],
      ['Treasure Hunting', '2015-07-11T19:00:00.000Z'],
      ['Treasure Hunting', '2015-07-12T19:00:00.000Z'],
      ['Treasure Hunting', '2015-07-13T19:00:00.000Z'],
      ['Treasure Hunting', '2015-07-14T19:00:00.000Z'],
      ['Treasure Hunting', '2015-07-15T19:00:00.000Z'],
    ]);
  });

  it('Apple Calendar (macOS, as iCloud publishes it): X-WR-TIMEZONE, a cancelled event left out, attendees by CN', () => {
    const r = read('node-ical-tentative-apple-calendar.ics', ...ALL, 'Europe/Berlin');
    expect(r.instances).toEqual([
      ['Tentative', '2022-07-04T23:00:00.000Z'],
      ['Confirmed', '2022-07-05T16:00:00.000Z'],
      ['No Status', '2022-07-07T16:00:00.000Z'],
    ]);
    expect(r.events[0]!.attendees).toEqual([{ name: 'tentative@example.com', email: 'tentative@example.com', status: 'tentative' }]);
  });
});

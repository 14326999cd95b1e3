import { describe, expect, it } from 'vitest';
import { ConfigError, loadConfig } from '../../src/config.js';
import { checkCalendars } from '../../src/doctor/calendar.js';
import { checkConfig } from '../../src/doctor/config.js';
import { memoryFs, testConfig } from '../helpers/memfs.js';

/** `doctor`'s calendar family (docs/design.md §12): every source read once, named without its address. */

const SECRET = 'https://p42-caldav.icloud.example.com/published/2/MTIzNDU2Nzg5MGFiY2RlZg';
const now = new Date(2026, 2, 2, 8, 0);
const stamp = (d: Date) => d.toISOString().replace(/[-:]/g, '').replace(/\.\d{3}/, '');
const ICS = [
  'BEGIN:VCALENDAR',
  'VERSION:2.0',
  'BEGIN:VEVENT',
  'UID:a',
  'SUMMARY:Planning',
  `DTSTART:${stamp(new Date(2026, 2, 2, 10))}`,
  `DTEND:${stamp(new Date(2026, 2, 2, 11))}`,
  'END:VEVENT',
  'BEGIN:VEVENT',
  'UID:b',
  'SUMMARY:Later',
  'DTSTART:20260310T100000Z',
  'DTEND:20260310T110000Z',
  'END:VEVENT',
  'END:VCALENDAR',
].join('\r\n');

describe('doctor: the calendars', () => {
  it('fails the config check naming an invalid Calendar.Projects expression and Calendar.TimeZone by their full paths', async () => {
    const fs = memoryFs({
      '/work/config.json': JSON.stringify({ MeetingAssistant: { VaultPath: '/vault', Calendar: { TimeZone: 'Berlin', Projects: { Apollo: '[apollo' } } } }),
    });
    const config = await loadConfig({ configPath: '/work/config.json', fs, env: {} }).catch((err: unknown) => err);
    expect(config).toBeInstanceOf(ConfigError);
    const result = checkConfig(config as ConfigError);
    expect(result.status).toBe('fail');
    expect(result.detail).toMatch(/- MeetingAssistant\.Calendar\.TimeZone: not a time zone this machine knows/);
    expect(result.detail).toMatch(/- MeetingAssistant\.Calendar\.Projects\.Apollo: not a valid regular expression: .*Unterminated character class/);
  });

  it('skips when no calendar is configured', async () => {
    const checks = await checkCalendars(testConfig(), { fs: memoryFs() });
    expect(checks).toEqual([expect.objectContaining({ name: 'calendar', status: 'skip' })]);
  });

  it('reads each source once and says what it holds; a missing file and an error answer fail with a fix', async () => {
    const config = testConfig({
      Calendar: {
        TimeZone: 'Europe/Berlin',
        Sources: [
          { Name: 'Work', Path: 'work.ics' },
          { Name: 'Team', Path: 'missing' },
          { Name: 'iCloud', Url: SECRET.replace('https:', 'webcal:') },
        ],
      },
    });
    const asked: string[] = [];
    const checks = await checkCalendars(config, {
      fs: memoryFs({ 'work.ics': ICS }),
      clock: () => now,
      fetch: (async (url: string) => (asked.push(url), new Response('gone', { status: 404 }))) as typeof fetch,
    });
    expect(asked).toEqual([SECRET]);
    expect(checks.map((c) => [c.name, c.status, c.detail])).toEqual([
      ['calendar Work', 'pass', 'read: 2 events, 1 of them today'],
      ['calendar Team', 'fail', 'could not be read: the file or folder does not exist'],
      ['calendar iCloud (p42-caldav.icloud.example.com)', 'fail', 'could not be read: the server answered HTTP 404'],
    ]);
    expect(checks[2]!.fix).toContain('Calendar.Sources[2].Url');
    expect(JSON.stringify(checks)).not.toContain('MTIzNDU2Nzg5MGFiY2RlZg');
  });
});

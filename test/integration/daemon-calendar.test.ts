import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { startDaemonProcess, waitFor } from '../helpers/daemon-process.js';
import { daemonSetup, daemonTestFile } from '../helpers/daemon-helpers.js';
import { loopbackServer } from '../helpers/loopback-server.js';

/**
 * The calendar in the real daemon process (docs/design.md §12): read from a file of the vault and
 * a URL, kept under .meeting-assistant/calendar/, answered on GET /api/calendar; the address never
 * in the daemon's output; a calendar of 30,000 events read while /healthz keeps answering.
 */

const file = daemonTestFile();
const SECRET_PATH = '/ical/private-9d2e7c41aa/basic.ics';
const SECRET_QUERY = 'sig=Zm9vYmFyU2VjcmV0';

const requests: { path: string; ifNoneMatch?: string }[] = [];
let served = '';
const calendarServer = loopbackServer((req, res) => {
  requests.push({ path: req.url ?? '', ifNoneMatch: req.headers['if-none-match'] as string | undefined });
  if (req.url !== `${SECRET_PATH}?${SECRET_QUERY}`) return void res.writeHead(404).end();
  if (req.headers['if-none-match'] === '"e1"') return void res.writeHead(304).end();
  res.writeHead(200, { 'content-type': 'text/calendar', etag: '"e1"' }).end(served);
});

const stamp = (d: Date) => d.toISOString().replace(/[-:]/g, '').replace(/\.\d{3}/, '');
const hoursFromNow = (h: number) => new Date(Math.floor(Date.now() / 3_600_000) * 3_600_000 + h * 3_600_000);
// Today's events must start today in local time, whenever the test runs: at the middle of the local day.
function todayAt(hour: number, minute = 0): Date {
  const d = new Date();
  return new Date(d.getFullYear(), d.getMonth(), d.getDate(), hour, minute);
}

function ics(events: string[]): string {
  return ['BEGIN:VCALENDAR', 'VERSION:2.0', 'PRODID:-//test//EN', ...events, 'END:VCALENDAR'].join('\r\n');
}

function vevent(uid: string, title: string, start: Date, minutes: number, ...more: string[]): string {
  return ['BEGIN:VEVENT', `UID:${uid}`, `SUMMARY:${title}`, `DTSTART:${stamp(start)}`, `DTEND:${stamp(new Date(start.getTime() + minutes * 60_000))}`, ...more, 'END:VEVENT'].join('\r\n');
}

const token = (vault: string) => readFileSync(path.join(vault, '.meeting-assistant/token'), 'utf8').trim();

interface CalendarAnswer {
  events: { title: string; uid: string; eventStart: string; meeting: string | null }[];
  sources: { name: string; ok: boolean; events: number; error: string | null }[];
}

describe('daemon process: the calendar', () => {
  it('answers GET /api/calendar from a vault file and a URL, with the meeting note of an event, and never says the address', async () => {
    served = ics([vevent('url-1', 'Customer call', todayAt(11), 30)]);
    const setup = await daemonSetup(file.server, {
      Calendar: {
        Sources: [
          { Name: 'Work', Path: 'Calendars/work.ics' },
          { Name: 'Google', Url: `${calendarServer.base}${SECRET_PATH}?${SECRET_QUERY}` },
        ],
      },
    });
    setup.write('Calendars/work.ics', ics([vevent('file-1', 'Planning', todayAt(12), 60, 'ATTENDEE;CN=Ann:mailto:ann@example.org')]));
    setup.write('Meetings/Planning.md', `---\ntitle: Planning\nevent: file-1\nevent_start: ${todayAt(12).toISOString()}\n---\n`);
    const daemon = await startDaemonProcess({ configPath: setup.configPath });
    const url = `http://127.0.0.1:${setup.port}/api/calendar`;
    expect((await fetch(url)).status).toBe(401);
    const answer = await waitFor(async () => {
      const body = (await (await fetch(url, { headers: { authorization: `Bearer ${token(setup.vault)}` } })).json()) as CalendarAnswer;
      return body.events.length === 2 ? body : undefined;
    }, 'both calendars read');
    expect(answer.events.map((e) => [e.title, e.meeting])).toEqual([
      ['Customer call', null],
      ['Planning', 'Meetings/Planning.md'],
    ]);
    expect(answer.sources).toEqual([
      expect.objectContaining({ name: 'Work', ok: true, events: 1, error: null }),
      expect.objectContaining({ name: 'Google', ok: true, events: 1, error: null }),
    ]);
    const bad = await fetch(`${url}?from=yesterday`, { headers: { authorization: `Bearer ${token(setup.vault)}` } });
    expect(bad.status).toBe(400);
    // The copy kept for a start without the network.
    expect(setup.read(`.meeting-assistant/calendar/${readKeptName(setup.vault, 'Google')}`)).toContain('Customer call');
    await daemon.stop();
    const output = daemon.stdout() + daemon.stderr();
    expect(output).toContain('Google (127.0.0.1:');
    expect(output).not.toContain('private-9d2e7c41aa');
    expect(output).not.toContain('Zm9vYmFyU2VjcmV0');
  });

  it('reads a calendar of 30,000 events, a rule without end, a 5 MB description and 3,000 attendees while /healthz keeps answering', async () => {
    const events: string[] = [];
    const base = hoursFromNow(-24 * 200);
    for (let i = 0; i < 30_000; i++) events.push(vevent(`bulk-${i}`, `Bulk ${i}`, new Date(base.getTime() + i * 3_600_000), 30));
    events.push(vevent('forever', 'Every minute', new Date('2001-01-01T00:00:00Z'), 1, 'RRULE:FREQ=MINUTELY'));
    events.push(vevent('long', 'Long agenda', todayAt(9), 30, `DESCRIPTION:${'Agenda point. '.repeat(380_000)}`));
    const crowd = Array.from({ length: 3000 }, (_, i) => `ATTENDEE;CN=Person ${i};PARTSTAT=ACCEPTED:mailto:p${i}@example.org`);
    events.push(vevent('crowd', 'All hands', todayAt(10), 60, ...crowd));
    const setup = await daemonSetup(file.server, { Calendar: { Sources: [{ Name: 'Big', Path: 'big.ics' }] } });
    setup.write('big.ics', ics(events));
    const daemon = await startDaemonProcess({ configPath: setup.configPath });
    const health = `http://127.0.0.1:${setup.port}/healthz`;
    const url = `http://127.0.0.1:${setup.port}/api/calendar`;
    let slowest = 0;
    let answered = 0;
    const answer = await waitFor(
      async () => {
        const t0 = performance.now();
        expect((await fetch(health)).status).toBe(200);
        slowest = Math.max(slowest, performance.now() - t0);
        answered++;
        const body = (await (await fetch(url, { headers: { authorization: `Bearer ${token(setup.vault)}` } })).json()) as CalendarAnswer;
        return body.sources[0]?.events === 30_003 ? body : undefined;
      },
      'the big calendar read',
      90_000,
    );
    const titles = answer.events.map((e) => e.title);
    expect(titles).toContain('Long agenda');
    expect(titles).toContain('All hands');
    expect(titles.filter((t) => t === 'Every minute').length).toBeGreaterThan(0);
    // A bound, not a timing: the reading runs in its own thread, so the loop answers between its polls.
    console.log(`/healthz: ${answered} answers, the slowest ${slowest.toFixed(0)} ms`);
    expect(slowest).toBeLessThan(5_000);
    expect(answered).toBeGreaterThan(0);
    await daemon.stop();
  });
});

function readKeptName(vault: string, name: string): string {
  const dir = path.join(vault, '.meeting-assistant/calendar');
  const found = readdirSync(dir).find((f) => f.startsWith(`${name}-`));
  if (!found) throw new Error(`no kept copy for ${name} in ${dir}`);
  return found;
}

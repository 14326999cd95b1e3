// The calendar (issue 47; docs/design.md §12).
//
// 1. Reading and expanding a Google-export-like calendar of ~5,000 events (~1.5 MB: Europe/Berlin
//    times with the file's VTIMEZONE, X-WR-TIMEZONE, attendees, Meet links in descriptions, 10% of
//    them weekly or daily series with EXDATEs and moved instances, some all-day events) over the
//    days the daemon keeps expanded (3 days back, 8 ahead): in place (readIcs), and through the
//    reading thread the daemon uses (thread start included). Peak memory: the growth of the
//    process's peak RSS (getrusage maxRSS) over one read, in a child process of its own.
// 2. The lookup for one meeting (eventsBetween over a meeting's hour), warm: the daemon's calendar
//    after its first read. Target ≤ 5 ms.
import { spawnSync } from 'node:child_process';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { dist, random, report, runs, stats, tempDir, timeRuns, writeFile } from './_lib.mjs';

const DAY = 86_400_000;
const BERLIN_TZ = [
  'BEGIN:VTIMEZONE',
  'TZID:Europe/Berlin',
  'X-LIC-LOCATION:Europe/Berlin',
  'BEGIN:DAYLIGHT',
  'TZOFFSETFROM:+0100',
  'TZOFFSETTO:+0200',
  'TZNAME:CEST',
  'DTSTART:19700329T020000',
  'RRULE:FREQ=YEARLY;BYMONTH=3;BYDAY=-1SU',
  'END:DAYLIGHT',
  'BEGIN:STANDARD',
  'TZOFFSETFROM:+0200',
  'TZOFFSETTO:+0100',
  'TZNAME:CET',
  'DTSTART:19701025T030000',
  'RRULE:FREQ=YEARLY;BYMONTH=10;BYDAY=-1SU',
  'END:STANDARD',
  'END:VTIMEZONE',
];
const PEOPLE = ['Alice Martin', 'Bob Chen', 'Carol Diaz', 'Dan Evans', 'Erin Fox', 'Frank Gray', 'Grace Hall', 'Heidi Ito', 'Ivan Jones', 'Judy King'];
const TOPICS = ['Release review', 'Sprint planning', 'Customer call', 'Design sync', 'Budget', 'Incident retro', '1:1', 'Roadmap', 'Hiring', 'Security audit'];

const pad = (n) => String(n).padStart(2, '0');
/** A local Berlin wall time as the calendar writes it. */
const wall = (d) => `${d.getUTCFullYear()}${pad(d.getUTCMonth() + 1)}${pad(d.getUTCDate())}T${pad(d.getUTCHours())}${pad(d.getUTCMinutes())}00`;
const utc = (d) => `${wall(d)}Z`;

/** ~5,000 events, ~1.5 MB, centred on `now`. */
export function googleExport(now, count = 5000) {
  const rand = random(47);
  const lines = ['BEGIN:VCALENDAR', 'PRODID:-//Google Inc//Google Calendar 70.9054//EN', 'VERSION:2.0', 'CALSCALE:GREGORIAN', 'METHOD:PUBLISH', 'X-WR-CALNAME:Work', 'X-WR-TIMEZONE:Europe/Berlin', ...BERLIN_TZ];
  const start = now - 540 * DAY;
  for (let i = 0; i < count; i++) {
    const day = new Date(start + Math.floor(rand() * 720) * DAY);
    const begin = new Date(Date.UTC(day.getUTCFullYear(), day.getUTCMonth(), day.getUTCDate(), 8 + Math.floor(rand() * 9), rand() < 0.5 ? 0 : 30));
    const end = new Date(begin.getTime() + (rand() < 0.7 ? 30 : 60) * 60_000);
    const uid = `${(i * 2654435761) % 1e9}abc${i}@google.com`;
    const title = `${TOPICS[i % TOPICS.length]} ${i}`;
    const invited = PEOPLE.filter(() => rand() < 0.05);
    const ev = ['BEGIN:VEVENT'];
    if (i % 50 === 7) {
      ev.push(`DTSTART;VALUE=DATE:${wall(begin).slice(0, 8)}`, `DTEND;VALUE=DATE:${wall(new Date(begin.getTime() + DAY)).slice(0, 8)}`);
    } else {
      ev.push(`DTSTART;TZID=Europe/Berlin:${wall(begin)}`, `DTEND;TZID=Europe/Berlin:${wall(end)}`);
    }
    if (i % 10 === 3) {
      // Most series end (a project's weekly, a course); one in four runs on without end.
      const until = i % 40 === 3 ? '' : `;UNTIL=${utc(new Date(begin.getTime() + 90 * DAY))}`;
      ev.push(i % 20 === 3 ? `RRULE:FREQ=WEEKLY;BYDAY=MO,WE${until}` : `RRULE:FREQ=DAILY;INTERVAL=2${until}`);
      ev.push(`EXDATE;TZID=Europe/Berlin:${wall(new Date(begin.getTime() + 14 * DAY))}`);
    }
    ev.push(`DTSTAMP:${utc(new Date(now))}`, `UID:${uid}`);
    if (i % 4 === 0) ev.push('ORGANIZER;CN=Alice Martin:mailto:alice.martin@example.com');
    for (const p of invited) {
      const email = `${p.toLowerCase().replace(' ', '.')}@example.com`;
      ev.push(`ATTENDEE;CUTYPE=INDIVIDUAL;ROLE=REQ-PARTICIPANT;PARTSTAT=ACCEPTED;CN=${p}:mailto:${email}`);
    }
    if (i % 3 === 0) ev.push('X-GOOGLE-CONFERENCE:https://meet.google.com/abc-defg-hij', `DESCRIPTION:Agenda for ${title}`);
    ev.push('STATUS:CONFIRMED', `SUMMARY:${title}`, 'END:VEVENT');
    lines.push(...ev);
    if (i % 10 === 3) {
      // One instance of the series moved an hour later.
      const slot = new Date(begin.getTime() + 7 * DAY);
      lines.push('BEGIN:VEVENT', `DTSTART;TZID=Europe/Berlin:${wall(new Date(slot.getTime() + 3_600_000))}`, `DTEND;TZID=Europe/Berlin:${wall(new Date(slot.getTime() + 5_400_000))}`, `RECURRENCE-ID;TZID=Europe/Berlin:${wall(slot)}`, `UID:${uid}`, `SUMMARY:${title} (moved)`, 'END:VEVENT');
    }
  }
  lines.push('END:VCALENDAR');
  // Lines longer than 75 octets are folded, as Google does.
  return lines.map((l) => (l.length > 75 ? l.match(/.{1,74}/g).join('\r\n ') : l)).join('\r\n') + '\r\n';
}

const here = fileURLToPath(import.meta.url);
const NOW = Date.UTC(2026, 11, 2, 9, 0);

if (process.argv[2] === '--child') {
  // One read in a fresh process: its peak RSS growth, then its time.
  const { readIcs } = await dist('calendar/read-ics.js');
  const text = googleExport(NOW);
  globalThis.gc?.();
  const before = process.resourceUsage().maxRSS;
  const heapBefore = process.memoryUsage().heapUsed;
  const t = performance.now();
  const result = readIcs(text, { source: 'Work', from: NOW - 3 * DAY, to: NOW + 8 * DAY, defaultZone: 'Europe/Berlin', me: [] });
  const ms = performance.now() - t;
  const grown = (process.resourceUsage().maxRSS - before) / 1024;
  console.log(JSON.stringify({ ms, grownMb: grown, heapMb: (process.memoryUsage().heapUsed - heapBefore) / 1024 / 1024, events: result.events.length, count: result.count }));
} else {
  const text = googleExport(NOW);
  console.log(`calendar: ${(Buffer.byteLength(text) / 1024 / 1024).toFixed(2)} MB, ${(text.match(/BEGIN:VEVENT/g) ?? []).length} VEVENTs`);
  const cold = [];
  for (let i = 0; i < runs(3); i++) {
    const child = spawnSync(process.execPath, ['--expose-gc', here, '--child'], { encoding: 'utf8' });
    if (child.status !== 0) throw new Error(child.stderr);
    cold.push(JSON.parse(child.stdout.trim().split('\n').pop()));
  }
  console.log(`expanded: ${cold[0].events} instances in the 11 days kept, of ${cold[0].count} events`);
  report('read and expand, first read in a fresh process (readIcs)', stats(cold.map((c) => c.ms)));
  report('peak RSS growth of that read', stats(cold.map((c) => c.grownMb)), { unit: (x) => `${x.toFixed(1)} MB` });

  const { readIcs } = await dist('calendar/read-ics.js');
  const { expandInThread } = await dist('calendar/read-worker.js');
  const o = { source: 'Work', from: NOW - 3 * DAY, to: NOW + 8 * DAY, defaultZone: 'Europe/Berlin', me: [] };
  report('read and expand, warm (readIcs)', stats(await timeRuns(() => readIcs(text, o), { n: runs(5) })));
  const request = { sources: [{ name: 'Work', texts: [text] }], from: o.from, to: o.to, defaultZone: o.defaultZone, me: [] };
  report('read and expand in the reading thread (thread start included)', stats(await timeRuns(() => expandInThread(request), { n: runs(5) })));

  // The daemon's calendar, warm: one meeting's hour looked up.
  const { createCalendar } = await dist('calendar/calendar.js');
  const { nodeFs } = await dist('vault/files/fs.js');
  const { silentLogger } = await dist('log.js');
  const { dir, cleanup } = tempDir('calendar');
  writeFile(path.join(dir, 'work.ics'), text);
  const calendar = createCalendar({
    settings: { Sources: [{ Name: 'Work', Path: 'work.ics' }], RefreshMinutes: 15, TimeZone: 'Europe/Berlin', Me: [], Projects: {}, NotesAhead: 'projects', NotesAheadMinutes: 10 },
    vaultRoot: dir,
    stateDir: path.join(dir, '.meeting-assistant'),
    fs: nodeFs,
    clock: () => new Date(NOW),
    logger: silentLogger,
  });
  await calendar.refresh();
  let found = 0;
  const lookups = await timeRuns(
    async (i) => {
      const from = new Date(NOW - DAY + ((i + 10) % 40) * 3_600_000);
      found += (await calendar.eventsBetween(from, new Date(from.getTime() + 3_600_000))).length;
    },
    { n: runs(200), warmup: 5 },
  );
  const s = stats(lookups);
  report('the event lookup for one meeting, warm (eventsBetween over its hour)', s, { target: { text: '≤ 5 ms', ok: s.median <= 5 }, note: `${(found / lookups.length).toFixed(1)} events a lookup` });
  await calendar.stop();
  cleanup();
}

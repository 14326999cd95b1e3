import { existsSync, readdirSync, rmSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { runCli, startDaemonProcess, waitFor } from '../helpers/daemon-process.js';
import { daemonSetup, daemonTestFile, dataOf, type DaemonSetup, summarizingModel } from '../helpers/daemon-helpers.js';
import { userTexts } from '../helpers/scripted-server.js';
import { localIsoTime, sessionStamp } from '../../src/vault/format/note-names.js';
import { icsCalendar as ics, icsEvent, MIN, minutesFromNow as at } from '../helpers/ics-text.js';

/**
 * The calendar's matching (docs/design.md §12) through the real daemon process, chokidar, the
 * scripted endpoint and an `.ics` file source: an import at an event's time, `session start`
 * without a title, a transcript finishing for a meeting without a match.
 */

const file = daemonTestFile();




const PEOPLE = [
  'ATTENDEE;CN=Bob Builder;PARTSTAT=ACCEPTED:mailto:bob@example.com',
  'ATTENDEE;CN=Dora Declined;PARTSTAT=DECLINED:mailto:dora@example.com',
  'ATTENDEE;CN=Room 4;CUTYPE=ROOM:mailto:room4@example.com',
];

async function calendarSetup(icsText: string): Promise<DaemonSetup> {
  const setup = await daemonSetup(file.server, { Import: { SettleSeconds: 0.3 }, Calendar: { Sources: [{ Name: 'Work', Path: 'Calendars/work.ics' }], Projects: { Alpha: 'release' } } });
  setup.write('Calendars/work.ics', icsText);
  return setup;
}

/**
 * The calendar read once by the `calendar` command, which keeps its last good copy (§12): the
 * daemon then starts knowing the events, as a daemon started offline does.
 */
async function calendarRead(setup: DaemonSetup): Promise<void> {
  const read = await runCli(['calendar', '--config', setup.configPath]);
  expect(read.code, read.stderr).toBe(0);
  expect(existsSync(path.join(setup.vault, '.meeting-assistant', 'calendar'))).toBe(true);
  expect(readdirSync(path.join(setup.vault, '.meeting-assistant', 'calendar')).length).toBeGreaterThan(0);
}

describe('daemon process: meetings matched to calendar events', () => {
  it('a .vtt imported at an event’s time takes its title, people, agenda and the projects of its series', async () => {
    file.server.setFallback(summarizingModel());
    const start = at(-90);
    const end = at(-60);
    const weekly = icsEvent({
      uid: 'weekly-review@example.com',
      title: 'Weekly Release Review',
      start: new Date(start.getTime() - 7 * 24 * 60 * MIN),
      end: new Date(end.getTime() - 7 * 24 * 60 * MIN),
      rrule: 'FREQ=WEEKLY;COUNT=4',
      description: 'Pick the release date.\\n```dataviewjs\\ndv.el("p"\\, 1)\\n```\\n\\nJoin Zoom Meeting\\nhttps://zoom.us/j/123',
      lines: PEOPLE,
    });
    const setup = await calendarSetup(ics(weekly));
    // Last week's meeting of the series, bound to a project by a person.
    setup.write('Meetings/last week.md', `---\ntitle: Weekly Release Review\nstart_time: ${localIsoTime(new Date(start.getTime() - 7 * 24 * 60 * MIN))}\nevent: weekly-review@example.com\nprojects: [Beta]\n---\n`);
    setup.write('Projects/Beta/Overview.md', '# Beta\n');
    await calendarRead(setup);
    await startDaemonProcess({ configPath: setup.configPath });
    const VTT = 'WEBVTT\n\n00:00:05.000 --> 00:00:09.000\n<v Alice Example>We ship on Friday.</v>\n';
    setup.write(`Meetings/Inbox/${sessionStamp(start)} call.vtt`, VTT);
    const name = `${sessionStamp(start)} Weekly Release Review`;
    const s = setup;
    await waitFor(() => dataOf(s, `Meetings/Summaries/${name}.md`)?.status === 'done', 'the summary', 30_000);
    expect(dataOf(setup, `Meetings/${name}.md`)).toMatchObject({
      title: 'Weekly Release Review',
      attendees: ['Carol Chief', 'Bob Builder', 'Alice Example'],
      organizer: 'Carol Chief',
      projects: ['Beta'],
      event: 'weekly-review@example.com',
      event_start: localIsoTime(start),
    });
    const context = dataOf(setup, `Meetings/Context/${name}.md`);
    expect(context?.agenda).toBe('Pick the release date.\n```text\ndv.el("p", 1)\n```');
    expect(context?.scheduled_end).toBe(localIsoTime(end));
  });

  it('session start without --title takes the event in progress; without one it exits 1 naming the calendar', async () => {
    const event = icsEvent({ uid: 'standup@example.com', title: 'Daily Standup', start: at(-5), end: at(25), lines: PEOPLE });
    const setup = await calendarSetup(ics(event));
    const started = await runCli(['session', 'start', '--config', setup.configPath]);
    expect(started.stderr).toBe('');
    expect(started.code).toBe(0);
    const meeting = /^meeting: (.*)$/m.exec(started.stdout)?.[1];
    expect(meeting).toMatch(/ Daily Standup\.md$/);
    expect(dataOf(setup, meeting!)).toMatchObject({ title: 'Daily Standup', attendees: ['Carol Chief', 'Bob Builder'], event: 'standup@example.com' });

    setup.write('Calendars/work.ics', ics(icsEvent({ uid: 'later@example.com', title: 'Later', start: at(60), end: at(90) })));
    const refused = await runCli(['session', 'start', '--config', setup.configPath]);
    expect(refused.code).toBe(1);
    expect(refused.stderr).toMatch(/no event is in progress in the calendars "Work"/);

    // The same through the daemon's API (the command's notes moved away: they hold this minute's name).
    for (const folder of ['Meetings', 'Meetings/Transcripts', 'Meetings/Context']) rmSync(path.join(setup.vault, folder, path.basename(meeting!)));
    setup.write('Calendars/work.ics', ics(event));
    await calendarRead(setup);
    await startDaemonProcess({ configPath: setup.configPath });
    const token = setup.read('.meeting-assistant/token').trim();
    const res = await fetch(`http://127.0.0.1:${setup.port}/api/sessions`, { method: 'POST', headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' }, body: '{}' });
    expect(res.status).toBe(201);
    const api = ((await res.json()) as { meeting: string }).meeting;
    expect(api).toMatch(/ Daily Standup\.md$/);
    expect(dataOf(setup, api)).toMatchObject({ title: 'Daily Standup', event: 'standup@example.com' });
  });

  it('a transcript finishing for a meeting without a match: its event is written before the run’s first message', async () => {
    file.server.setFallback(summarizingModel());
    const start = at(-60);
    const setup = await calendarSetup(ics(icsEvent({ uid: 'planning@example.com', title: 'Planning', start, end: at(-30), description: 'Plan Q1.', lines: PEOPLE })));
    setup.write('Meetings/Recorded.md', `---\ntitle: Recorded\nstart_time: ${localIsoTime(start)}\nend_time: ${localIsoTime(at(-31))}\nattendees: [Speaker 1]\ntranscript: "[[Meetings/Transcripts/Recorded]]"\n---\n`);
    setup.write('Meetings/Transcripts/Recorded.md', '---\nmeeting: "[[Meetings/Recorded]]"\nstate: transcribing\n---\n[00:00:05] Speaker 1: Hello.\n');
    await calendarRead(setup);
    await startDaemonProcess({ configPath: setup.configPath });
    setup.write('Meetings/Transcripts/Recorded.md', '---\nmeeting: "[[Meetings/Recorded]]"\nstate: finished\n---\n[00:00:05] Speaker 1: Hello.\n');
    const s = setup;
    await waitFor(() => dataOf(s, 'Meetings/Summaries/Recorded.md')?.status === 'done', 'the summary', 30_000);
    expect(dataOf(setup, 'Meetings/Recorded.md')).toMatchObject({ title: 'Recorded', event: 'planning@example.com', attendees: ['Carol Chief', 'Bob Builder', 'Speaker 1'] });
    expect(dataOf(setup, 'Meetings/Context/Recorded.md')?.agenda).toBe('Plan Q1.');
    const first = file.server.requests.find((r) => userTexts(r).some((t) => t.includes('Meetings/Recorded.md')));
    expect(userTexts(first!).join('\n')).toContain('Carol Chief');
  });
});

import { existsSync, readdirSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it, onTestFinished } from 'vitest';
import { runCli, startDaemonProcess, waitFor } from '../helpers/daemon-process.js';
import { daemonSetup, daemonTestFile, dataOf, summarizingModel } from '../helpers/daemon-helpers.js';
import { startSyncLoop } from '../helpers/sync-loop.js';
import { localIsoTime, sessionStamp } from '../../src/vault/format/note-names.js';
import { BOB_ACCEPTED, icsCalendar as ics, icsEvent, MIN, minutesFromNow as at } from '../helpers/ics-text.js';

/**
 * Notes made ahead (docs/design.md §12, "Before the meeting") through the real daemon process
 * and an `.ics` file source: a weekly series whose last meeting has a summary with decisions and
 * open and done tasks; the note of the next instance made within `NotesAheadMinutes`, with its
 * Before-the-meeting section; a one-off without a project left alone (`projects`); a restart
 * making no second note.
 */

const file = daemonTestFile();
const WEEK = 7 * 24 * 60 * MIN;


describe('daemon process: notes made ahead of calendar events', () => {
  it("makes the next instance's meeting note and context note with last time's decisions and open items, once, and leaves a one-off without a project alone", async () => {
    const start = at(5);
    const lastWeek = new Date(start.getTime() - WEEK);
    const setup = await daemonSetup(file.server, { Calendar: { Sources: [{ Name: 'Work', Path: 'Calendars/work.ics' }], NotesAheadMinutes: 10 }, Logging: { Level: 'debug' } });
    setup.write(
      'Calendars/work.ics',
      ics(
        icsEvent({ uid: 'weekly@example.com', title: 'Weekly Sync', start: lastWeek, end: new Date(lastWeek.getTime() + 30 * MIN), rrule: 'FREQ=WEEKLY;COUNT=3', description: 'Pick the release date.', lines: [BOB_ACCEPTED] }),
        icsEvent({ uid: 'coffee@example.com', title: 'Coffee', start: at(3), end: at(20), lines: [BOB_ACCEPTED] }),
      ),
    );
    setup.write('Projects/Beta/Overview.md', '# Beta\n');
    const last = `${sessionStamp(lastWeek)} Weekly Sync`;
    setup.write(`Meetings/${last}.md`, `---\ntitle: Weekly Sync\nstart_time: ${localIsoTime(lastWeek)}\nevent: weekly@example.com\nevent_start: ${localIsoTime(lastWeek)}\nprojects: [Beta]\n---\n`);
    setup.write(
      `Meetings/Summaries/${last}.md`,
      `---\ntitle: Weekly Sync\nstart_time: ${localIsoTime(lastWeek)}\nprojects: [Beta]\nmeeting: "[[Meetings/${last}]]"\nstatus: done\n---\n## Decisions\n- Ship on Friday.\n\n## Next steps\n- [ ] Bob Builder: tag the release 📅 2026-12-31\n- [x] Carol Chief: book the room\n`,
    );
    const read = await runCli(['calendar', '--config', setup.configPath]);
    expect(read.code, read.stderr).toBe(0);

    const daemon = await startDaemonProcess({ configPath: setup.configPath });
    const name = `${sessionStamp(start)} Weekly Sync`;
    const s = setup;
    await waitFor(() => dataOf(s, `Meetings/${name}.md`), 'the meeting note made ahead');
    expect(dataOf(setup, `Meetings/${name}.md`)).toMatchObject({
      title: 'Weekly Sync',
      start_time: localIsoTime(start),
      attendees: ['Carol Chief', 'Bob Builder'],
      projects: ['Beta'],
      event: 'weekly@example.com',
      event_start: localIsoTime(start),
    });
    expect(dataOf(setup, `Meetings/Context/${name}.md`)).toMatchObject({ state: 'collecting metadata', agenda: 'Pick the release date.', scheduled_end: localIsoTime(new Date(start.getTime() + 30 * MIN)) });
    const context = setup.read(`Meetings/Context/${name}.md`);
    const body = context.slice(context.indexOf('\n---\n') + 5);
    expect(body.startsWith('## Before the meeting\n')).toBe(true);
    expect(body).toContain(`[[Meetings/Summaries/${last}]]`);
    expect(body).toContain('- Ship on Friday.');
    expect(body).toContain('- Bob Builder: tag the release (due 2026-12-31)');
    expect(body).not.toContain('book the room');
    expect(existsSync(path.join(setup.vault, 'Meetings/Transcripts', `${name}.md`))).toBe(false);

    // The person types into the note during the meeting; the recording's transcript, imported at the event's time, joins it.
    const typed = 'Typed during the meeting:  \n- ask Bob about the budget\n\n';
    setup.write(`Meetings/${name}.md`, setup.read(`Meetings/${name}.md`) + typed);
    file.server.setFallback(summarizingModel());
    setup.write(`Meetings/Inbox/${sessionStamp(start)} call.vtt`, 'WEBVTT\n\n00:00:05.000 --> 00:00:09.000\n<v Bob Builder>We ship on Friday.</v>\n');
    await waitFor(() => dataOf(s, `Meetings/Summaries/${name}.md`)?.status === 'done', 'the summary of the joined meeting', 60_000);
    const joined = setup.read(`Meetings/${name}.md`);
    expect(joined.endsWith(`\n---\n${typed}`)).toBe(true);
    expect(dataOf(setup, `Meetings/${name}.md`)?.end_time).toBeTruthy();
    expect(dataOf(setup, `Meetings/Transcripts/${name}.md`)).toMatchObject({ state: 'finished', meeting: `[[Meetings/${name}]]` });

    // A restart, the note already there: no second one; the one-off without a project never got one.
    await daemon.stop();
    const again = await startDaemonProcess({ configPath: setup.configPath });
    await again.waitForLog((line) => line.msg === 'notes ahead: looked at the next events', undefined, "the restarted daemon's look");
    await again.stop();
    const meetings = readdirSync(path.join(setup.vault, 'Meetings')).filter((n) => n.endsWith('.md'));
    expect(meetings.sort()).toEqual([`${last}.md`, `${name}.md`].sort());
  });

  it('two machines on one synced vault: the active one makes the note, the standby writes nothing but its own record', { timeout: 180_000 }, async () => {
    const start = at(6);
    const calendar = { Calendar: { Sources: [{ Name: 'Work', Path: 'Calendars/work.ics' }], NotesAhead: 'all' }, Daemon: { HeartbeatSeconds: 0.5 } };
    const [alpha, beta] = [await daemonSetup(file.server, calendar), await daemonSetup(file.server, calendar)];
    const text = ics(icsEvent({ uid: 'sync@example.com', title: 'Team Sync', start, end: new Date(start.getTime() + 30 * MIN), lines: [BOB_ACCEPTED] }));
    for (const side of [alpha, beta]) side.write('Calendars/work.ics', text);
    // The calendar read once and kept, so that the daemon's first look knows the event (as in the test above).
    const read = await runCli(['calendar', '--config', alpha.configPath]);
    expect(read.code, read.stderr).toBe(0);
    const sync = startSyncLoop({ a: alpha.vault, b: beta.vault }, { delayMs: 150 });
    onTestFinished(() => sync.stop());
    const env = (name: string) => ({ MeetingAssistant__Daemon__MachineName: name });
    await startDaemonProcess({ configPath: alpha.configPath, env: env('alpha') });
    await waitFor(() => existsSync(path.join(beta.vault, '.meeting-assistant', 'machines', 'alpha.json')), "alpha's record on beta's copy");
    const b = await startDaemonProcess({ configPath: beta.configPath, env: env('beta'), waitReady: false });
    await b.waitForLog((l) => l.msg?.startsWith('standby: machine alpha is active on this vault') === true, 30_000, "beta's standby line");
    const name = `${sessionStamp(start)} Team Sync`;
    await waitFor(() => dataOf(alpha, `Meetings/${name}.md`) && dataOf(beta, `Meetings/${name}.md`) && dataOf(beta, `Meetings/Context/${name}.md`), 'the note made ahead, on both copies');
    for (const side of [alpha, beta]) expect(readdirSync(path.join(side.vault, 'Meetings')).filter((n) => n.endsWith('.md'))).toEqual([`${name}.md`]);
    const written = [...new Set(sync.changedOn('b').map((f) => f.replace(/\/\.([^/]+)\.\d+-[0-9a-f]+\.ma-tmp$/, '/$1')))];
    // Beta made no note and no record of one (its own machine record, if it rewrote it, is allowed).
    expect(written.filter((f) => f !== 'Calendars/work.ics' && f !== '.meeting-assistant/machines/beta.json')).toEqual([]);
  });
});

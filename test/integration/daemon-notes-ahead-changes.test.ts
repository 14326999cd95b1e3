import { existsSync, readdirSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { startDaemonProcess, waitFor } from '../helpers/daemon-process.js';
import { daemonSetup, daemonTestFile, dataOf, type DaemonSetup } from '../helpers/daemon-helpers.js';
import { localIsoTime, sessionStamp } from '../../src/vault/format/note-names.js';
import { BOB_ACCEPTED, icsCalendar as ics, icsEvent, icsUtc as utc, MIN, minutesFromNow as at } from '../helpers/ics-text.js';

/**
 * Notes made ahead whose event changes before it starts (docs/design.md §12), through the real
 * daemon process and an `.ics` file in the vault: the file rewritten with instances moved (a
 * RECURRENCE-ID exception with a new DTSTART), one cancelled by EXDATE, one typed into and then
 * cancelled, one typed into and then moved. The daemon reads the changed file at once (its
 * folder is watched), so the notes follow within seconds, not at the next 30-second read and
 * minutely look. And a recorder's session (`POST /api/sessions`) at the event's time joining the
 * note made ahead.
 */

const file = daemonTestFile();
const DAY = 24 * 60 * MIN;
const WEEK = 7 * DAY;
/** Well under the calendar's 30-second re-read plus the minutely look: the change is acted on at once. */
const AT_ONCE_MS = 20_000;

/** A weekly series of three whose second instance is `slot`, with more lines (EXDATE) on the series. */
function weekly(uid: string, title: string, slot: Date, more: string[] = []): string {
  const first = new Date(slot.getTime() - WEEK);
  return vevent(uid, title, first, ['RRULE:FREQ=WEEKLY;COUNT=3', ...more]);
}

function vevent(uid: string, title: string, start: Date, more: string[] = []): string {
  return icsEvent({ uid, title, start, end: new Date(start.getTime() + 30 * MIN), description: 'Go through the open items.', lines: [BOB_ACCEPTED, ...more] });
}

const meetingNames = (setup: DaemonSetup) => readdirSync(path.join(setup.vault, 'Meetings')).filter((n) => n.endsWith('.md')).sort();
const trashOf = (setup: DaemonSetup, folder: string) => {
  const dir = path.join(setup.vault, '.trash', folder);
  return existsSync(dir) ? readdirSync(dir).filter((n) => n.endsWith('.md')).sort() : [];
};

async function notesAheadSetup(calendarText: string): Promise<DaemonSetup> {
  const setup = await daemonSetup(file.server, { Calendar: { Sources: [{ Name: 'Work', Path: 'Calendars/work.ics' }], NotesAhead: 'all', NotesAheadMinutes: 10 } });
  setup.write('Calendars/work.ics', calendarText);
  return setup;
}

describe('daemon process: notes made ahead of events that then move or are cancelled', () => {
  it('the .ics rewritten: a moved instance’s note follows at once under its new name and times (no trash), a cancelled one’s go to .trash/, typed ones stay byte for byte', async () => {
    const slots = { later: at(3), tomorrow: at(4), cancelled: at(5), typed: at(6), typedMoved: at(7) };
    const moved = { later: new Date(slots.later.getTime() + 150 * MIN), tomorrow: new Date(slots.tomorrow.getTime() + DAY + 60 * MIN) };
    const series = (extra: { exdate?: string[] } = {}) => [
      weekly('later@example.com', 'Plan Later', slots.later),
      weekly('tomorrow@example.com', 'Plan Tomorrow', slots.tomorrow),
      weekly('cancel@example.com', 'Plan Cancelled', slots.cancelled, extra.exdate ?? []),
      weekly('typed@example.com', 'Plan Typed', slots.typed),
      weekly('typed-moved@example.com', 'Plan Kept', slots.typedMoved),
    ];
    const setup = await notesAheadSetup(ics(...series()));
    await startDaemonProcess({ configPath: setup.configPath });
    const name = { later: `${sessionStamp(slots.later)} Plan Later`, tomorrow: `${sessionStamp(slots.tomorrow)} Plan Tomorrow`, cancelled: `${sessionStamp(slots.cancelled)} Plan Cancelled`, typed: `${sessionStamp(slots.typed)} Plan Typed`, typedMoved: `${sessionStamp(slots.typedMoved)} Plan Kept` };
    const s = setup;
    await waitFor(() => Object.values(name).every((n) => dataOf(s, `Meetings/${n}.md`) && dataOf(s, `Meetings/Context/${n}.md`)), 'the five notes made ahead');
    const typed = `${setup.read(`Meetings/${name.typed}.md`)}Typed before it was called off:\n- keep the budget line  \n`;
    setup.write(`Meetings/${name.typed}.md`, typed);
    const typedMoved = `${setup.read(`Meetings/${name.typedMoved}.md`)}Typed before it moved.\n`;
    setup.write(`Meetings/${name.typedMoved}.md`, typedMoved);

    // The calendar file rewritten: two instances moved, one cancelled by EXDATE, the typed ones cancelled by an exception and moved.
    setup.write(
      'Calendars/work.ics',
      ics(
        ...series({ exdate: [`EXDATE:${utc(slots.cancelled)}`] }),
        vevent('later@example.com', 'Plan Later', moved.later, [`RECURRENCE-ID:${utc(slots.later)}`]),
        vevent('tomorrow@example.com', 'Plan Tomorrow', moved.tomorrow, [`RECURRENCE-ID:${utc(slots.tomorrow)}`]),
        vevent('typed@example.com', 'Plan Typed', slots.typed, [`RECURRENCE-ID:${utc(slots.typed)}`, 'STATUS:CANCELLED']),
        vevent('typed-moved@example.com', 'Plan Kept', new Date(slots.typedMoved.getTime() + 60 * MIN), [`RECURRENCE-ID:${utc(slots.typedMoved)}`]),
      ),
    );
    const now = { later: `${sessionStamp(moved.later)} Plan Later`, tomorrow: `${sessionStamp(moved.tomorrow)} Plan Tomorrow` };
    await waitFor(
      () => meetingNames(s).join('\n') === [`${now.later}.md`, `${now.tomorrow}.md`, `${name.typed}.md`, `${name.typedMoved}.md`].sort().join('\n') && trashOf(s, 'Meetings').length === 1,
      'the moved notes followed and the cancelled one in .trash/',
      AT_ONCE_MS,
    );
    for (const key of ['later', 'tomorrow'] as const) {
      expect(dataOf(setup, `Meetings/${now[key]}.md`)).toMatchObject({ start_time: localIsoTime(moved[key]), event_start: localIsoTime(slots[key]), context: `[[Meetings/Context/${now[key]}]]` });
      expect(dataOf(setup, `Meetings/Context/${now[key]}.md`)).toMatchObject({ state: 'collecting metadata', scheduled_end: localIsoTime(new Date(moved[key].getTime() + 30 * MIN)), agenda: 'Go through the open items.' });
      expect(setup.read(`Meetings/Context/${now[key]}.md`)).toContain('\n## Before the meeting\n');
      expect(existsSync(path.join(setup.vault, 'Meetings/Context', `${name[key]}.md`))).toBe(false);
    }
    // Only the cancelled instance's notes in .trash/; the moved ones' old notes were removed, not trashed.
    expect(trashOf(setup, 'Meetings')).toEqual([`${name.cancelled}.md`]);
    expect(trashOf(setup, 'Meetings/Context')).toEqual([`${name.cancelled}.md`]);
    expect(setup.read(`Meetings/${name.typed}.md`)).toBe(typed);
    expect(dataOf(setup, `Meetings/Context/${name.typed}.md`)).toBeDefined();
    // Typed into, then moved: it stays where it is, as typed, and the instance gets no second note.
    expect(setup.read(`Meetings/${name.typedMoved}.md`)).toBe(typedMoved);
  });

  it('a recorder’s session (POST /api/sessions) at the event’s time joins the note made ahead: no second meeting, the transcript linked there, the typed notes byte for byte', async () => {
    const start = at(4);
    const setup = await notesAheadSetup(ics(vevent('review@example.com', 'Design Review', start)));
    await startDaemonProcess({ configPath: setup.configPath });
    const name = `${sessionStamp(start)} Design Review`;
    const s = setup;
    await waitFor(() => dataOf(s, `Meetings/${name}.md`) && dataOf(s, `Meetings/Context/${name}.md`), 'the note made ahead');
    const typed = `${setup.read(`Meetings/${name}.md`)}Before we start:\n- ask about the mock-ups\n`;
    setup.write(`Meetings/${name}.md`, typed);

    const token = setup.read('.meeting-assistant/token').trim();
    const res = await fetch(`http://127.0.0.1:${setup.port}/api/sessions`, { method: 'POST', headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' }, body: '{}' });
    expect(res.status).toBe(201);
    const session = (await res.json()) as { meeting: string; transcript: string; context: string };
    expect(session).toEqual({ meeting: `Meetings/${name}.md`, transcript: `Meetings/Transcripts/${name}.md`, context: `Meetings/Context/${name}.md` });
    expect(meetingNames(setup)).toEqual([`${name}.md`]);
    expect(dataOf(setup, session.transcript)).toMatchObject({ meeting: `[[Meetings/${name}]]` });
    expect(dataOf(setup, session.meeting)).toMatchObject({ transcript: `[[Meetings/Transcripts/${name}]]`, event: 'review@example.com', event_start: localIsoTime(start) });
    expect(setup.read(session.meeting)).toBe(typed);
  });
});

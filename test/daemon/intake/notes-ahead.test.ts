import { createHash } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import type { CalendarSourceState } from '../../../src/calendar/types.js';
import { NotesAhead } from '../../../src/daemon/intake/notes-ahead.js';
import type { NotesAheadMode } from '../../../src/meeting-event/note-ahead.js';
import { silentLogger } from '../../../src/log.js';
import { parseNote } from '../../../src/vault/format/frontmatter.js';
import type { Vault } from '../../../src/vault/files/vault.js';
import { calendarEvent, failingCalendar, fakeCalendar } from '../../helpers/calendar-events.js';
import { memoryVault } from '../../helpers/memfs.js';
import { sessionStamp } from '../../../src/vault/format/note-names.js';

/**
 * Notes made ahead (docs/design.md §12, "Before the meeting"): the daemon's look, with a fake
 * clock and a fake calendar on memfs.
 */

const UID = 'weekly@example.com';
const START = new Date('2026-12-09T09:00:00Z');
const person = (name: string, email: string) => ({ name, email, status: 'accepted' });
const WEEKLY = calendarEvent({
  uid: UID,
  title: 'Weekly Sync',
  start: START,
  end: new Date('2026-12-09T10:00:00Z'),
  recurring: true,
  description: 'Review the roadmap.',
  joinUrl: 'https://zoom.us/j/1',
  organizer: person('Ann Lee', 'ann@example.com'),
  attendees: [person('Ann Lee', 'ann@example.com'), person('Bob Stone', 'bob@example.com')],
});
const ONE_OFF = calendarEvent({ uid: 'lunch@example.com', title: 'Lunch', start: new Date('2026-12-09T09:05:00Z'), end: new Date('2026-12-09T10:00:00Z') });

/** Last week's meeting of the series, bound to Platform, with its summary. */
function pastVault(): Vault {
  return memoryVault({
    'Projects/Platform/Overview.md': '# Platform\n',
    'Meetings/2026-12-02 0900 Weekly Sync.md': `---\ntitle: Weekly Sync\nstart_time: 2026-12-02T09:00:00Z\nevent: ${UID}\nevent_start: 2026-12-02T09:00:00Z\nprojects: [Platform]\n---\n`,
    'Meetings/Summaries/2026-12-02 0900 Weekly Sync.md':
      '---\ntitle: Weekly Sync\nstart_time: 2026-12-02T09:00:00Z\nprojects: [Platform]\nmeeting: "[[Meetings/2026-12-02 0900 Weekly Sync]]"\nstatus: done\n---\n## Decisions\n- Ship on Friday.\n\n## Next steps\n- [ ] Bob Stone: write the notes 📅 2026-12-08\n- [x] Ann Lee: book the room\n',
  });
}

function notesAhead(vault: Vault, o: { now: Date; mode?: NotesAheadMode; active?: () => boolean; events?: typeof WEEKLY[]; minutes?: number }) {
  let now = o.now;
  const ahead = new NotesAhead({
    vault,
    calendar: fakeCalendar(o.events ?? [WEEKLY, ONE_OFF]),
    settings: { NotesAhead: o.mode ?? 'projects', NotesAheadMinutes: o.minutes ?? 10, Projects: {} },
    clock: () => now,
    log: silentLogger,
    isActive: o.active ?? (() => true),
  });
  return { ahead, setNow: (d: Date) => (now = d) };
}

async function meetingNotes(vault: Vault): Promise<string[]> {
  return (await vault.listNotesOf('Meetings')).map((abs) => vault.rel(abs)).sort();
}

/** Meeting notes are named in local time: the tests run with TZ unset or UTC in CI; the name is asserted only by its title. */
const madeNote = (notes: string[]) => notes.find((n) => n.endsWith(' Weekly Sync.md') && !n.includes('2026-12-02'));

describe('NotesAhead', () => {
  it('makes nothing before the window, then the meeting note and the context note with what the match writes and the Before-the-meeting section', async () => {
    const vault = pastVault();
    const { ahead, setNow } = notesAhead(vault, { now: new Date('2026-12-09T08:45:00Z') });
    await ahead.tick();
    expect(await meetingNotes(vault)).toEqual(['Meetings/2026-12-02 0900 Weekly Sync.md']);

    setNow(new Date('2026-12-09T08:52:00Z'));
    await ahead.tick();
    const made = madeNote(await meetingNotes(vault));
    expect(made).toBeDefined();
    const meeting = parseNote(await vault.read(vault.abs(made!)));
    expect(meeting.data).toMatchObject({ title: 'Weekly Sync', event: UID, projects: ['Platform'], attendees: ['Ann Lee', 'Bob Stone'], organizer: 'Ann Lee', join_url: 'https://zoom.us/j/1' });
    expect(Date.parse(String(meeting.data.start_time))).toBe(START.getTime());
    expect(Date.parse(String(meeting.data.event_start))).toBe(START.getTime());
    expect(meeting.body).toBe('');
    const contextRel = String(meeting.data.context).replace(/^\[\[|\]\]$/g, '') + '.md';
    const context = parseNote(await vault.read(vault.abs(contextRel)));
    expect(context.data).toMatchObject({ state: 'collecting metadata', agenda: 'Review the roadmap.', title: 'Weekly Sync' });
    expect(Date.parse(String(context.data.scheduled_end))).toBe(Date.parse('2026-12-09T10:00:00Z'));
    expect(context.body.startsWith('## Before the meeting\n')).toBe(true);
    expect(context.body).toContain('[[Meetings/Summaries/2026-12-02 0900 Weekly Sync]]');
    expect(context.body).toContain('- Bob Stone: write the notes (due 2026-12-08)');
    expect(context.body).not.toContain('book the room');
    // No transcript note yet: the recording's will be linked where the meeting note says.
    expect(await vault.listNotesOf('Transcripts')).toEqual([]);
    // `projects` (the default): the one-off without a project gets none.
    expect((await meetingNotes(vault)).some((n) => n.includes('Lunch'))).toBe(false);
  });

  it('never makes a second note: not on the next look, not after a restart, not when a session of the instance has one', async () => {
    const vault = pastVault();
    const first = notesAhead(vault, { now: new Date('2026-12-09T08:55:00Z') });
    await first.ahead.tick();
    await first.ahead.tick();
    // A new daemon (a restart, or the other machine after a takeover) on the same vault.
    await notesAhead(vault, { now: new Date('2026-12-09T08:56:00Z') }).ahead.tick();
    expect((await meetingNotes(vault)).filter((n) => n.endsWith('Weekly Sync.md'))).toHaveLength(2);

    // A session started early for the instance, with another name: it has the instance already.
    const other = memoryVault({
      'Meetings/2026-12-09 0851 Sync.md': `---\ntitle: Sync\nstart_time: 2026-12-09T08:51:00Z\nevent: ${UID}\nevent_start: 2026-12-09T09:00:00Z\n---\nmy notes\n`,
    });
    await notesAhead(other, { now: new Date('2026-12-09T08:55:00Z'), mode: 'all' }).ahead.tick();
    expect((await meetingNotes(other)).filter((n) => n.includes('Weekly Sync'))).toEqual([]);
  });

  it('`all` makes the one-off too; `none` makes nothing', async () => {
    const all = pastVault();
    await notesAhead(all, { now: new Date('2026-12-09T08:58:00Z'), mode: 'all' }).ahead.tick();
    expect((await meetingNotes(all)).filter((n) => n.includes('Lunch'))).toHaveLength(1);
    const none = pastVault();
    await notesAhead(none, { now: new Date('2026-12-09T08:58:00Z'), mode: 'none' }).ahead.tick();
    expect(await meetingNotes(none)).toEqual(['Meetings/2026-12-02 0900 Weekly Sync.md']);
  });

  it('a standby daemon makes none; an event already begun is left to the session', async () => {
    const vault = pastVault();
    await notesAhead(vault, { now: new Date('2026-12-09T08:55:00Z'), active: () => false }).ahead.tick();
    await notesAhead(vault, { now: new Date('2026-12-09T09:01:00Z'), mode: 'all', events: [WEEKLY] }).ahead.tick();
    expect(await meetingNotes(vault)).toEqual(['Meetings/2026-12-02 0900 Weekly Sync.md']);
  });

  it('a failing calendar and a meeting folder with a broken note fail nothing', async () => {
    const vault = pastVault();
    await vault.write(vault.abs('Meetings/broken.md'), `---\nevent: ${UID}\ntitle: [unclosed\n---\n`);
    const ahead = new NotesAhead({ vault, calendar: failingCalendar(), settings: { NotesAhead: 'all', NotesAheadMinutes: 10, Projects: {} }, clock: () => new Date('2026-12-09T08:55:00Z'), log: silentLogger, isActive: () => true });
    await expect(ahead.tick()).resolves.toBeUndefined();
    await notesAhead(vault, { now: new Date('2026-12-09T08:55:00Z') }).ahead.tick();
    expect(madeNote(await meetingNotes(vault))).toBeDefined();
  });
});

describe('NotesAhead: an event that moves or is cancelled before it starts', () => {
  const READ: CalendarSourceState[] = [{ name: 'Work', ok: true, readAt: '2026-12-09T08:00:00.000Z', events: 1, error: null }];
  function reviewed(vault: Vault, events: (typeof WEEKLY)[], sources = READ) {
    let now = new Date('2026-12-09T08:52:00Z');
    const ahead = new NotesAhead({ vault, calendar: fakeCalendar(events, sources), settings: { NotesAhead: 'projects', NotesAheadMinutes: 10, Projects: {} }, clock: () => now, log: silentLogger, isActive: () => true });
    return { ahead, later: (minutes: number) => (now = new Date(now.getTime() + minutes * 60_000)) };
  }
  const trashed = async (vault: Vault) => (await vault.listMarkdown(vault.abs('.trash')).catch(() => [])).map((p) => vault.rel(p));

  /** The instance of WEEKLY moved to `start` (an hour long), its title `title`. */
  const movedTo = (start: string, title = WEEKLY.title) => ({ ...WEEKLY, title, start: new Date(start), end: new Date(Date.parse(start) + 3_600_000) });
  const name = (start: string, title: string) => `Meetings/${sessionStamp(new Date(start))} ${title}.md`;

  /** The notes follow at once: the old ones gone (no trash copy), the new ones as the maker makes them. */
  async function followedNote(vault: Vault, old: string, moved: typeof WEEKLY): Promise<string> {
    const notes = await meetingNotes(vault);
    const now = name(moved.start.toISOString(), moved.title);
    expect(notes).toEqual(['Meetings/2026-12-02 0900 Weekly Sync.md', now].sort());
    expect(notes).not.toContain(old);
    expect(await vault.exists(vault.abs(old.replace('Meetings/', 'Meetings/Context/')))).toBe(false);
    expect(await trashed(vault)).toEqual([]);
    const meeting = parseNote(await vault.read(vault.abs(now)));
    expect(meeting.data).toMatchObject({ title: moved.title, event: UID, projects: ['Platform'] });
    expect(Date.parse(String(meeting.data.start_time))).toBe(moved.start.getTime());
    // The slot stays the instance's: the recording at the new time joins this note.
    expect(Date.parse(String(meeting.data.event_start))).toBe(START.getTime());
    const contextRel = String(meeting.data.context).replace(/^\[\[|\]\]$/g, '') + '.md';
    expect(contextRel).toBe(now.replace('Meetings/', 'Meetings/Context/'));
    const context = parseNote(await vault.read(vault.abs(contextRel)));
    expect(Date.parse(String(context.data.scheduled_end))).toBe(moved.end.getTime());
    expect(context.data.agenda).toBe('Review the roadmap.');
    expect(context.body.startsWith('## Before the meeting\n')).toBe(true);
    // Recorded as made: it follows the next move too.
    const records = JSON.parse(await vault.read(vault.abs('.meeting-assistant/notes-ahead.json'))) as { meeting: string; start: number }[];
    expect(records.map((r) => [r.meeting, r.start])).toEqual([[now, moved.start.getTime()]]);
    return now;
  }

  it('an untouched note follows an instance moved to later today at once: new name, times and section, the old notes removed, nothing in .trash/', async () => {
    const vault = pastVault();
    const events = [WEEKLY];
    const { ahead, later } = reviewed(vault, events);
    await ahead.tick();
    const first = madeNote(await meetingNotes(vault))!;
    // Out of the NotesAheadMinutes window: made all the same, at once.
    events[0] = movedTo('2026-12-09T15:00:00Z');
    later(1);
    await ahead.tick();
    expect(await followedNote(vault, first, events[0])).toBe(name(events[0].start.toISOString(), events[0].title));

    // And again: the followed note is followed in its turn, to tomorrow.
    const second = madeNote(await meetingNotes(vault))!;
    events[0] = movedTo('2026-12-10T11:30:00Z');
    later(1);
    await ahead.tick();
    expect(await followedNote(vault, second, events[0])).toBe(name(events[0].start.toISOString(), events[0].title));
  });

  it('an untouched note follows an instance moved to tomorrow, and one retitled at the same time', async () => {
    const tomorrow = pastVault();
    const events = [WEEKLY];
    const t = reviewed(tomorrow, events);
    await t.ahead.tick();
    const first = madeNote(await meetingNotes(tomorrow))!;
    events[0] = movedTo('2026-12-10T09:00:00Z');
    t.later(1);
    await t.ahead.tick();
    expect(await followedNote(tomorrow, first, events[0])).toBe(name(events[0].start.toISOString(), events[0].title));

    const retitled = pastVault();
    const again = [WEEKLY];
    const r = reviewed(retitled, again);
    await r.ahead.tick();
    const made = madeNote(await meetingNotes(retitled))!;
    again[0] = movedTo(START.toISOString(), 'Weekly Sync (roadmap)');
    r.later(1);
    await r.ahead.tick();
    expect(await followedNote(retitled, made, again[0])).toBe(name(again[0].start.toISOString(), again[0].title));
  });

  it('a note typed into between the review and its removal stays byte for byte, and the instance gets no second note', async () => {
    const vault = pastVault();
    const events = [WEEKLY];
    const { ahead, later } = reviewed(vault, events);
    await ahead.tick();
    const note = madeNote(await meetingNotes(vault))!;
    const typed = `${await vault.read(vault.abs(note))}typed just now\n`;
    // The person saves the note in the instant between the review's judgement and the removal.
    const rename = vault.fs.rename.bind(vault.fs);
    let saved = false;
    vault.fs.rename = async (from, to) => {
      if (!saved && from === vault.abs(note)) {
        saved = true;
        await vault.fs.writeFile(from, typed);
      }
      return rename(from, to);
    };
    events[0] = movedTo('2026-12-09T15:00:00Z');
    later(1);
    await ahead.tick();
    expect(saved).toBe(true);
    expect(await vault.read(vault.abs(note))).toBe(typed);
    expect(await vault.exists(vault.abs(note.replace('Meetings/', 'Meetings/Context/')))).toBe(true);
    expect(await meetingNotes(vault)).toEqual(['Meetings/2026-12-02 0900 Weekly Sync.md', note].sort());
    expect(await trashed(vault)).toEqual([]);
    // No temporary file is left beside it.
    expect((await vault.fs.readdir(vault.abs('Meetings'), { withFileTypes: true })).map((e) => e.name).filter((n) => n.startsWith('.'))).toEqual([]);
  });

  it('a save that took the name while the old note was aside stays; what that note held is kept in .trash/', async () => {
    const vault = pastVault();
    const events = [WEEKLY];
    const { ahead, later } = reviewed(vault, events);
    await ahead.tick();
    const note = madeNote(await meetingNotes(vault))!;
    const before = await vault.read(vault.abs(note));
    const rename = vault.fs.rename.bind(vault.fs);
    let step = 0;
    vault.fs.rename = async (from, to) => {
      await rename(from, to);
      // Right after the note is renamed aside: a person types into it (an editor writing in place into the open file) and another saves a new file under the name.
      if (step === 0 && from === vault.abs(note)) {
        step = 1;
        await vault.fs.writeFile(to, `${before}typed in place\n`);
        await vault.fs.writeFile(from, 'saved anew\n');
      }
    };
    events[0] = movedTo('2026-12-09T15:00:00Z');
    later(1);
    await ahead.tick();
    expect(await vault.read(vault.abs(note))).toBe('saved anew\n');
    expect(await trashed(vault)).toEqual([`.trash/${note}`]);
    expect(await vault.read(vault.abs(`.trash/${note}`))).toBe(`${before}typed in place\n`);
    expect((await meetingNotes(vault)).filter((n) => n.includes('Weekly Sync') && !n.includes('2026-12-02'))).toEqual([note]);
  });

  it('an untouched note of a cancelled instance goes to .trash/; one a person typed into stays', async () => {
    const vault = pastVault();
    const events = [WEEKLY];
    const { ahead, later } = reviewed(vault, events);
    await ahead.tick();
    const made = madeNote(await meetingNotes(vault))!;
    events.length = 0;
    later(1);
    await ahead.tick();
    expect(madeNote(await meetingNotes(vault))).toBeUndefined();
    expect(await trashed(vault)).toHaveLength(2);

    const typed = pastVault();
    const again = [WEEKLY];
    const t = reviewed(typed, again);
    await t.ahead.tick();
    const note = madeNote(await meetingNotes(typed))!;
    const text = `${await typed.read(typed.abs(note))}my notes\n`;
    await typed.write(typed.abs(note), text);
    again.length = 0;
    t.later(1);
    await t.ahead.tick();
    expect(await typed.read(typed.abs(note))).toBe(text);
    expect(await trashed(typed)).toEqual([]);
    expect(made).toBe(note);
  });

  it('a full disk when the followed note is made: the old notes are gone, and the look makes the new one when it comes near', async () => {
    const vault = pastVault();
    const events = [WEEKLY];
    const { ahead, later } = reviewed(vault, events);
    await ahead.tick();
    const first = madeNote(await meetingNotes(vault))!;
    const open = vault.fs.open.bind(vault.fs);
    let full = true;
    vault.fs.open = async (file, flags, mode) => {
      if (full && flags === 'wx') throw Object.assign(new Error('ENOSPC: no space left on device'), { code: 'ENOSPC' });
      return open(file, flags, mode);
    };
    events[0] = movedTo('2026-12-09T09:02:00Z');
    later(1);
    await ahead.tick();
    expect(await meetingNotes(vault)).toEqual(['Meetings/2026-12-02 0900 Weekly Sync.md']);
    full = false;
    later(1);
    await ahead.tick();
    expect(await meetingNotes(vault)).toEqual(['Meetings/2026-12-02 0900 Weekly Sync.md', name('2026-12-09T09:02:00Z', 'Weekly Sync')].sort());
    expect(first).not.toBe(name('2026-12-09T09:02:00Z', 'Weekly Sync'));
  });

  it('lookAgain (a calendar file changed) looks once more after the look in flight, which read the calendar before the change', async () => {
    const vault = pastVault();
    const events = [WEEKLY];
    const calendar = fakeCalendar(events, READ);
    const asked = calendar.eventsBetween.bind(calendar);
    let release: () => void = () => undefined;
    let gated = true;
    calendar.eventsBetween = async (from, to) => {
      const answer = await asked(from, to);
      if (gated) {
        gated = false;
        await new Promise<void>((resolve) => (release = resolve));
      }
      return answer;
    };
    const ahead = new NotesAhead({ vault, calendar, settings: { NotesAhead: 'projects', NotesAheadMinutes: 10, Projects: {} }, clock: () => new Date('2026-12-09T08:52:00Z'), log: silentLogger, isActive: () => true });
    const inFlight = ahead.tick();
    await new Promise((resolve) => setImmediate(resolve));
    events[0] = { ...WEEKLY, title: 'Weekly Sync (roadmap)' };
    const joined = ahead.tick();
    const again = ahead.lookAgain();
    expect(ahead.lookAgain()).toBe(again);
    release();
    await Promise.all([inFlight, joined]);
    // The look in flight had the calendar as it was: the note under the old title.
    expect((await meetingNotes(vault)).filter((n) => n.includes('2026-12-09'))).toEqual([name(START.toISOString(), 'Weekly Sync')]);
    await again;
    expect((await meetingNotes(vault)).filter((n) => n.includes('2026-12-09'))).toEqual([name(START.toISOString(), 'Weekly Sync (roadmap)')]);
  });

  it('a forged record (the file is in the synced vault) naming a file out of the vault moves nothing there', async () => {
    const vault = pastVault();
    const events = [WEEKLY];
    const { ahead, later } = reviewed(vault, events);
    await ahead.tick();
    await vault.fs.mkdir('/outside', { recursive: true });
    await vault.fs.writeFile('/outside/secret.md', 'secret\n');
    const records = vault.abs('.meeting-assistant/notes-ahead.json');
    const hash = createHash('sha256').update('secret\n').digest('hex');
    const forged = [...(JSON.parse(await vault.read(records)) as object[]), { ...WEEKLY, meeting: '/outside/secret.md', context: '../../outside/secret.md', uid: 'gone', eventStart: 1, start: Date.parse('2026-12-31T00:00:00Z'), title: 'x', meetingHash: hash, contextHash: hash }];
    await vault.fs.writeFile(records, JSON.stringify(forged));
    events.length = 0;
    later(1);
    await ahead.tick();
    expect(Buffer.from(await vault.fs.readFile('/outside/secret.md')).toString('utf8')).toBe('secret\n');
    expect(await trashed(vault)).toHaveLength(2);
  });

  it('nothing is judged while a calendar is failing: an event missing from an unread calendar is not cancelled', async () => {
    const vault = pastVault();
    const events = [WEEKLY];
    const sources = [...READ];
    const { ahead, later } = reviewed(vault, events, sources);
    await ahead.tick();
    const made = madeNote(await meetingNotes(vault))!;
    events.length = 0;
    sources[0] = { ...READ[0]!, ok: false, error: 'unreadable' };
    later(1);
    await ahead.tick();
    expect(await meetingNotes(vault)).toContain(made);
    expect(await trashed(vault)).toEqual([]);
  });
});

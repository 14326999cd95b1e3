import { describe, expect, test } from 'vitest';
import { attendeeNames, fillEmpty, meetingKeysOf } from '../../src/meeting-event/event-keys.js';
import { findMeetingEvent, newMeetingKeys, writeEventToNotes } from '../../src/meeting-event/match-meeting.js';
import { configuredProjects, seriesProjects } from '../../src/meeting-event/series-projects.js';
import { parseNote, renderFrontmatter } from '../../src/vault/format/frontmatter.js';
import { localIsoTime } from '../../src/vault/format/note-names.js';
import { calendarEvent, failingCalendar, fakeCalendar } from '../helpers/calendar-events.js';
import { memoryVault } from '../helpers/memfs.js';

const at = (hhmm: string, day = '02') => new Date(`2026-12-${day}T${hhmm}:00Z`);
const person = (name: string, email: string, status = 'accepted') => ({ name, email, status });

const WEEKLY = calendarEvent({
  uid: 'weekly-1@example.com',
  title: 'Weekly Platform Sync',
  start: at('09:00'),
  end: at('10:00'),
  eventStart: at('09:00'),
  recurring: true,
  description: 'Review the platform roadmap.\n\nJoin Zoom Meeting\nhttps://zoom.us/j/1',
  location: 'Room 4',
  joinUrl: 'https://zoom.us/j/1',
  organizer: person('Ann Lee', 'ann@example.com'),
  attendees: [person('Ann Lee', 'ann@example.com'), person('Bob Stone', 'bob@example.com'), person('', 'carol@example.com', 'tentative'), person('Dan Declined', 'dan@example.com', 'declined')],
});

describe('attendeeNames', () => {
  test('organizer first, CN else the address before @, the declined left out, then the names already there not among them', () => {
    expect(attendeeNames({ ...WEEKLY, attendees: WEEKLY.attendees.map((p) => (p.name === '' ? { ...p, name: 'carol' } : p)) }, ['Speaker 2', 'bob stone', 'Eve'])).toEqual([
      'Ann Lee',
      'Bob Stone',
      'carol',
      'Speaker 2',
      'Eve',
    ]);
  });

  test('an event without an organizer or attendees keeps the names there', () => {
    expect(attendeeNames({ ...WEEKLY, organizer: null, attendees: [] }, ['Speaker 1'])).toEqual(['Speaker 1']);
  });
});

describe('meetingKeysOf', () => {
  test("an invitation's title, organizer, place and people are written inert: Templater's <% never runs in the new note", () => {
    const hostile = {
      ...WEEKLY,
      title: '<%* app.vault.adapter.remove("x") %> Sync',
      location: 'Room <% tp.file.title %>',
      organizer: person('<%+ tp.date.now() %>', 'ann@example.com'),
      attendees: [person('Bob <%* await fetch("https://evil.example") %>', 'bob@example.com')],
    };
    const written = JSON.stringify([meetingKeysOf(hostile), attendeeNames(hostile, [])]);
    expect(written).not.toContain('<%');
    expect(meetingKeysOf(hostile).title).toBe('<\\%* app.vault.adapter.remove("x") %> Sync');
    expect(meetingKeysOf(WEEKLY)).toMatchObject({ title: 'Weekly Platform Sync', organizer: 'Ann Lee', location: 'Room 4' });
  });
});

describe('fillEmpty', () => {
  test('fills missing and empty keys only; an empty value from the event writes nothing', () => {
    expect(fillEmpty({ title: 'Mine', location: '', organizer: null, projects: [] }, { title: 'Event', location: 'Room', organizer: 'Ann', projects: ['Alpha'], join_url: '' })).toEqual({
      location: 'Room',
      organizer: 'Ann',
      projects: ['Alpha'],
    });
  });

  test('a key named as replaceable is written over', () => {
    expect(fillEmpty({ title: 'GMT20261202-090000_Recording' }, { title: 'Weekly' }, new Set(['title']))).toEqual({ title: 'Weekly' });
  });
});

describe('findMeetingEvent', () => {
  test('asks the calendar around the meeting and applies the rule', async () => {
    const calendar = fakeCalendar([WEEKLY]);
    const event = await findMeetingEvent({ calendar, projects: {}, clock: () => at('12:00') }, { start: at('09:01'), end: at('09:55') });
    expect(event?.uid).toBe(WEEKLY.uid);
    expect(calendar.asked).toEqual([[at('09:01'), at('09:55')]]);
  });

  test('a calendar that fails gives no event and says so, never throws', async () => {
    const errors: unknown[] = [];
    const event = await findMeetingEvent({ calendar: failingCalendar(), projects: {}, clock: () => at('12:00'), onError: (e) => errors.push(e) }, { start: at('09:00'), end: at('10:00') });
    expect(event).toBeUndefined();
    expect(errors).toHaveLength(1);
  });
});

const MEETING = '/vault/Meetings/2026-12-02 0900 call.md';
const CONTEXT = '/vault/Meetings/Context/2026-12-02 0900 call.md';

function meetingNote(data: Record<string, unknown>): string {
  return renderFrontmatter({ title: 'call', start_time: '2026-12-02T09:00:00Z', end_time: '2026-12-02T09:55:00Z', attendees: ['Speaker 1', 'Speaker 2'], projects: [], ...data }) + 'My own notes.\n';
}

describe('writeEventToNotes', () => {
  test('writes the event into the empty keys of both notes; the body and the person’s keys stay', async () => {
    const vault = memoryVault({
      [MEETING]: meetingNote({ location: 'My office' }),
      [CONTEXT]: renderFrontmatter({ title: 'call', state: 'finished', agenda: '' }),
    });
    await writeEventToNotes(vault, { projects: {} }, WEEKLY, { meetingPath: MEETING, contextPath: CONTEXT });
    const note = parseNote(await vault.read(MEETING));
    expect(note.data).toMatchObject({
      title: 'call',
      location: 'My office',
      organizer: 'Ann Lee',
      event: WEEKLY.uid,
      event_start: localIsoTime(at('09:00')),
      join_url: 'https://zoom.us/j/1',
      attendees: ['Ann Lee', 'Bob Stone', 'Speaker 1', 'Speaker 2'],
    });
    expect(note.body).toBe('My own notes.\n');
    const context = parseNote(await vault.read(CONTEXT)).data;
    expect(context.agenda).toBe('Review the platform roadmap.');
    expect(context.scheduled_end).toBe(localIsoTime(at('10:00')));
  });

  test('the title an import took from a file name is replaced; a person’s title is not', async () => {
    const vault = memoryVault({ [MEETING]: meetingNote({ title: 'GMT20261202-090000_Recording' }), [CONTEXT]: renderFrontmatter({ title: 'GMT20261202-090000_Recording', state: 'finished' }) });
    await writeEventToNotes(vault, { projects: {} }, WEEKLY, { meetingPath: MEETING, contextPath: CONTEXT, replaceTitle: (d) => d.title === 'GMT20261202-090000_Recording' });
    expect(parseNote(await vault.read(MEETING)).data.title).toBe('Weekly Platform Sync');
    expect(parseNote(await vault.read(CONTEXT)).data.title).toBe('Weekly Platform Sync');
    const other = memoryVault({ [MEETING]: meetingNote({ title: 'Budget talk' }) });
    await writeEventToNotes(other, { projects: {} }, WEEKLY, { meetingPath: MEETING, replaceTitle: (d) => d.title === 'GMT20261202-090000_Recording' });
    expect(parseNote(await other.read(MEETING)).data.title).toBe('Budget talk');
  });

  test('a meeting bound to another event already is left as it is', async () => {
    const text = meetingNote({ event: 'other@example.com' });
    const vault = memoryVault({ [MEETING]: text });
    const written = await writeEventToNotes(vault, { projects: {} }, WEEKLY, { meetingPath: MEETING });
    expect(written.meeting).toEqual({});
    expect(await vault.read(MEETING)).toBe(text);
  });

  test('an attendee written as a link keeps its form; the invited come first', async () => {
    const vault = memoryVault({ [MEETING]: meetingNote({ attendees: ['Speaker 2', '[[Bob Stone]]'] }) });
    await writeEventToNotes(vault, { projects: {} }, WEEKLY, { meetingPath: MEETING });
    expect(parseNote(await vault.read(MEETING)).data.attendees).toEqual(['Ann Lee', '[[Bob Stone]]', 'Speaker 2']);
  });

  test('a second write of the same event changes nothing', async () => {
    const vault = memoryVault({ [MEETING]: meetingNote({}) });
    await writeEventToNotes(vault, { projects: {} }, WEEKLY, { meetingPath: MEETING });
    const once = await vault.read(MEETING);
    const written = await writeEventToNotes(vault, { projects: {} }, WEEKLY, { meetingPath: MEETING });
    expect(written.meeting).toEqual({});
    expect(await vault.read(MEETING)).toBe(once);
  });
});

describe('projects of a matched meeting', () => {
  const earlier = (day: string, projects: string[], uid = WEEKLY.uid) =>
    renderFrontmatter({ title: 'Weekly Platform Sync', start_time: `2026-11-${day}T09:00:00Z`, event: uid, projects });

  test('the latest earlier meeting of the series that has any: binding one meeting binds the series', async () => {
    const vault = memoryVault({
      'Meetings/2026-11-11 a.md': earlier('11', ['Old']),
      'Meetings/2026-11-18 b.md': earlier('18', ['Platform', 'Infra']),
      'Meetings/2026-11-25 c.md': earlier('25', []),
      'Meetings/2026-11-26 d.md': earlier('26', ['Elsewhere'], 'other-uid'),
      'Meetings/2026-12-09 e.md': renderFrontmatter({ start_time: '2026-12-09T09:00:00Z', event: WEEKLY.uid, projects: ['Future'] }),
      'Meetings/broken.md': '---\ntitle: [unclosed\n---\n',
    });
    expect(await seriesProjects(vault, WEEKLY.uid, at('09:00'))).toEqual(['Platform', 'Infra']);
    const keys = await newMeetingKeys(vault, { projects: { Other: 'platform' } }, WEEKLY, { start: at('09:00'), attendees: [], projects: [] });
    expect(keys.meeting.projects).toEqual(['Platform', 'Infra']);
  });

  test('without a bound series: the configured expressions on title or description, existing folders only', async () => {
    const vault = memoryVault({ 'Projects/Platform/README.md': '# Platform', 'Projects/Roadmap/x.md': 'x' });
    const patterns = { Platform: 'platform sync', Roadmap: 'ROADMAP', Missing: 'weekly', Broken: '(' };
    expect(await configuredProjects(vault, WEEKLY, patterns)).toEqual(['Platform', 'Roadmap']);
  });

  test('a meeting with projects of its own keeps them', async () => {
    const vault = memoryVault({ 'Meetings/2026-11-18 b.md': earlier('18', ['Platform']) });
    const keys = await newMeetingKeys(vault, { projects: {} }, WEEKLY, { start: at('09:00'), attendees: ['Speaker 1'], projects: ['Mine'] });
    expect(keys.meeting.projects).toEqual(['Mine']);
    expect(keys.meeting.attendees).toEqual(['Ann Lee', 'Bob Stone', 'Speaker 1']);
  });

  test('written into an existing meeting without projects', async () => {
    const vault = memoryVault({ 'Meetings/2026-11-18 b.md': earlier('18', ['Platform']), [MEETING]: meetingNote({}) });
    await writeEventToNotes(vault, { projects: {} }, WEEKLY, { meetingPath: MEETING });
    expect(parseNote(await vault.read(MEETING)).data.projects).toEqual(['Platform']);
  });
});

import { readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { importFile, type ImportDeps } from '../../src/import/importer.js';
import type { MeetingEventDeps } from '../../src/meeting-event/match-meeting.js';
import { parseNote } from '../../src/vault/format/frontmatter.js';
import { localIsoTime } from '../../src/vault/format/note-names.js';
import { Vault } from '../../src/vault/files/vault.js';
import { calendarEvent, failingCalendar, fakeCalendar } from '../helpers/calendar-events.js';
import { memoryFs, testConfig } from '../helpers/memfs.js';

/** Matching at import (docs/design.md §12): the event of the meeting's time gives its notes what the file could not. */

const TEAMS = readFileSync(path.join(path.dirname(fileURLToPath(import.meta.url)), '..', 'fixtures', 'import', 'teams-voice-tags.vtt'), 'utf8');
const clock = () => new Date('2026-12-02T12:00:00Z');
// The file's name says 10:00 local time, the transcript lasts 15 s.
const start = new Date(2026, 11, 2, 10, 0);
const EVENT = calendarEvent({
  uid: 'release-review@example.com',
  title: 'Release Review',
  start,
  end: new Date(2026, 11, 2, 10, 30),
  description: '<p>Decide the release date.</p><p>```dataviewjs<br>dv.el("p", 1)<br>```</p>',
  organizer: { name: 'Carol Chief', email: 'carol@example.com', status: '' },
  attendees: [{ name: 'Bob Builder', email: 'bob@example.com', status: 'accepted' }, { name: 'Dora Declined', email: 'dora@example.com', status: 'declined' }],
  joinUrl: 'https://teams.microsoft.com/l/meetup-join/1',
  location: 'Microsoft Teams Meeting',
});

function setup(calendar: MeetingEventDeps['calendar'], files: Record<string, string | null> = {}) {
  const vault = new Vault(memoryFs({ 'Meetings/Inbox/2026-12-02 1000 call.vtt': TEAMS, ...files }), testConfig().layout);
  const errors: unknown[] = [];
  const deps: ImportDeps = { vault, clock, calendar: { calendar, projects: { Release: 'release' }, clock, onError: (e) => errors.push(e) } };
  return { vault, deps, errors };
}

const note = async (vault: Vault, rel: string) => parseNote(await vault.read(vault.abs(rel)));

describe('an import matched to its event', () => {
  it('takes the event’s title over the file name’s, the invited people before the speakers, the agenda inert, the projects by expression', async () => {
    const { vault, deps } = setup(fakeCalendar([EVENT]), { 'Projects/Release/README.md': '# Release' });
    const outcome = await importFile(deps, { file: vault.abs('Meetings/Inbox/2026-12-02 1000 call.vtt'), keep: 'move' });
    expect(outcome.kind === 'imported' && outcome.meeting).toBe('Meetings/2026-12-02 1000 Release Review.md');
    const meeting = await note(vault, 'Meetings/2026-12-02 1000 Release Review.md');
    expect(meeting.data).toMatchObject({
      title: 'Release Review',
      attendees: ['Carol Chief', 'Bob Builder', 'Alice Example'],
      projects: ['Release'],
      organizer: 'Carol Chief',
      event: 'release-review@example.com',
      event_start: localIsoTime(start),
      location: 'Microsoft Teams Meeting',
      join_url: 'https://teams.microsoft.com/l/meetup-join/1',
    });
    const context = await note(vault, 'Meetings/Context/2026-12-02 1000 Release Review.md');
    expect(context.data.agenda).toBe('Decide the release date.\n\n```text\ndv.el("p", 1)\n```');
    expect(context.data.scheduled_end).toBe(localIsoTime(new Date(2026, 11, 2, 10, 30)));
  });

  it('a title and projects asked for are kept', async () => {
    const { vault, deps } = setup(fakeCalendar([EVENT]));
    const outcome = await importFile(deps, { file: vault.abs('Meetings/Inbox/2026-12-02 1000 call.vtt'), keep: 'move', title: 'My title', projects: ['Mine'] });
    const meeting = await note(vault, outcome.meeting);
    expect(meeting.data).toMatchObject({ title: 'My title', projects: ['Mine'], event: 'release-review@example.com' });
  });

  it('no event at that time: the notes are as without a calendar', async () => {
    const later = { ...EVENT, start: new Date(2026, 11, 2, 14, 0), end: new Date(2026, 11, 2, 15, 0) };
    const { vault, deps } = setup(fakeCalendar([later]));
    const outcome = await importFile(deps, { file: vault.abs('Meetings/Inbox/2026-12-02 1000 call.vtt'), keep: 'move' });
    const meeting = await note(vault, outcome.meeting);
    expect(meeting.data.title).toBe('call');
    expect(meeting.data.event).toBeUndefined();
  });

  it('a calendar that cannot be read fails no import: said, and the notes made without it', async () => {
    const { vault, deps, errors } = setup(failingCalendar());
    const outcome = await importFile(deps, { file: vault.abs('Meetings/Inbox/2026-12-02 1000 call.vtt'), keep: 'move' });
    expect(outcome.kind).toBe('imported');
    expect((await note(vault, outcome.meeting)).data.title).toBe('call');
    expect(errors).toHaveLength(1);
  });
});

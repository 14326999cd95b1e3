import { describe, expect, it } from 'vitest';
import { importFile, recoverImports } from '../../src/import/importer.js';
import { makeNoteAhead } from '../../src/meeting-event/note-ahead.js';
import { startSession } from '../../src/sessions/sessions.js';
import { parseNote } from '../../src/vault/format/frontmatter.js';
import { Vault } from '../../src/vault/files/vault.js';
import { calendarEvent, fakeCalendar } from '../helpers/calendar-events.js';
import { memoryVault } from '../helpers/memfs.js';

/**
 * The recording joins the note made ahead (docs/design.md §12): `session start` at the event's
 * time attaches its transcript to the event's meeting note instead of making a second meeting,
 * the person's notes in it kept byte for byte; a meeting with a transcript already is not joined.
 */

const EVENT = calendarEvent({
  uid: 'weekly@example.com',
  title: 'Weekly Sync',
  start: new Date(2026, 11, 9, 9, 0),
  end: new Date(2026, 11, 9, 9, 30),
  description: 'Roadmap.',
  attendees: [{ name: 'Bob Stone', email: 'bob@example.com', status: 'accepted' }],
});
const NOW = new Date(2026, 11, 9, 9, 1);
const deps = { calendar: fakeCalendar([EVENT]), projects: {}, clock: () => NOW };
/** What a person typed during the meeting: CRLF, trailing spaces, a task, odd characters. */
const TYPED = 'My notes  \r\n- [ ] ask Bob about the budget\r\n\r\n> quote — «ça»\n\n\n';

async function madeAhead(): Promise<{ vault: Vault; meeting: string }> {
  const vault = memoryVault();
  const outcome = await makeNoteAhead(vault, { projects: {}, mode: 'all' }, EVENT);
  if (!outcome.made) throw new Error(`not made: ${outcome.why}`);
  const abs = vault.abs(outcome.meeting);
  await vault.write(abs, (await vault.read(abs)) + TYPED);
  return { vault, meeting: outcome.meeting };
}

const bodyOf = (text: string) => text.slice(text.indexOf('\n---\n') + 5);

describe('session start at the time of an event whose meeting note exists', () => {
  it('joins it: the transcript made where its link says, no second meeting, the typed notes byte for byte', async () => {
    const { vault, meeting } = await madeAhead();
    const before = await vault.read(vault.abs(meeting));
    const notes = await startSession(vault, {}, () => NOW, deps);
    expect(notes.meeting).toBe(meeting);
    expect((await vault.listNotesOf('Meetings')).map((p) => vault.rel(p))).toEqual([meeting]);
    const after = await vault.read(vault.abs(meeting));
    expect(after).toBe(before);
    expect(bodyOf(after)).toBe(TYPED);
    const transcript = parseNote(await vault.read(vault.abs(notes.transcript)));
    expect(transcript.data).toMatchObject({ meeting: `[[${meeting.replace(/\.md$/, '')}]]`, state: 'transcribing' });
    expect(String(parseNote(after).data.transcript)).toBe(`[[${notes.transcript.replace(/\.md$/, '')}]]`);
    expect(parseNote(await vault.read(vault.abs(notes.context))).body.startsWith('## Before the meeting')).toBe(true);
  });

  it('of two notes of the instance (an editor saved the old one after it was followed), joins the one typed into', async () => {
    const { vault, meeting } = await madeAhead();
    // An empty note of the same instance whose name sorts first.
    const text = await vault.read(vault.abs(meeting));
    const empty = 'Meetings/0000 Weekly Sync.md';
    await vault.write(vault.abs(empty), text.slice(0, text.indexOf('\n---\n') + 5));
    const notes = await startSession(vault, {}, () => NOW, deps);
    expect(notes.meeting).toBe(meeting);
    expect(bodyOf(await vault.read(vault.abs(meeting)))).toBe(TYPED);
  });

  it('a second session start of the same instance, the transcript being written, makes a meeting of its own', async () => {
    const { vault, meeting } = await madeAhead();
    const first = await startSession(vault, {}, () => NOW, deps);
    const second = await startSession(vault, { title: 'Second recorder' }, () => NOW, deps);
    expect(first.meeting).toBe(meeting);
    expect(second.meeting).not.toBe(meeting);
    expect(second.transcript).not.toBe(first.transcript);
  });

  it('a meeting note a person linked to a finished transcript is not joined; its notes stay as they are', async () => {
    const { vault, meeting } = await madeAhead();
    const data = parseNote(await vault.read(vault.abs(meeting))).data;
    const transcriptRel = `${String(data.transcript).replace(/^\[\[|\]\]$/g, '')}.md`;
    await vault.write(vault.abs(transcriptRel), `---\nmeeting: "[[${meeting.replace(/\.md$/, '')}]]"\nstate: finished\n---\n[00:00:01] Bob: Done.\n`);
    const before = await vault.read(vault.abs(meeting));
    const notes = await startSession(vault, {}, () => NOW, deps);
    expect(notes.meeting).not.toBe(meeting);
    expect(await vault.read(vault.abs(meeting))).toBe(before);
  });
});

/** A WebVTT of the meeting, named by the event's start as a recorder's export is. */
const VTT = 'WEBVTT\n\n00:00:05.000 --> 00:00:09.000\n<v Bob Stone>We ship on Friday.</v>\n';
const INBOX = 'Meetings/Inbox/2026-12-09 0900 call.vtt';

describe('an import at the time of an event whose meeting note exists', () => {
  it('joins it: its transcript placed where the note links, end_time and source written, the typed notes byte for byte, no second meeting', async () => {
    const { vault, meeting } = await madeAhead();
    const typedBefore = bodyOf(await vault.read(vault.abs(meeting)));
    await vault.write(vault.abs(INBOX), VTT);
    const outcome = await importFile({ vault, clock: () => NOW, calendar: deps }, { file: vault.abs(INBOX), keep: 'move' });
    expect(outcome.kind === 'imported' && outcome.meeting).toBe(meeting);
    expect((await vault.listNotesOf('Meetings')).map((p) => vault.rel(p))).toEqual([meeting]);
    const after = await vault.read(vault.abs(meeting));
    expect(bodyOf(after)).toBe(typedBefore);
    expect(bodyOf(after)).toBe(TYPED);
    const data = parseNote(after).data;
    expect(data.end_time).toBeTruthy();
    expect(String(data.source)).toMatch(/^\[\[Meetings\/Sources\//);
    const transcriptRel = `${String(data.transcript).replace(/^\[\[|\]\]$/g, '')}.md`;
    const transcript = await vault.read(vault.abs(transcriptRel));
    expect(parseNote(transcript).data).toMatchObject({ meeting: `[[${meeting.replace(/\.md$/, '')}]]`, state: 'finished' });
    expect(transcript).toContain('We ship on Friday.');
    // The context note made ahead is kept, its Before-the-meeting section with it.
    expect(parseNote(await vault.read(vault.abs(outcome.kind === 'imported' ? outcome.context : ''))).body.startsWith('## Before the meeting')).toBe(true);
  });

  it('a crash after the notes are placed and before the links are written: the next start writes them', async () => {
    const { vault, meeting } = await madeAhead();
    await vault.write(vault.abs(INBOX), VTT);
    const meetingAbs = vault.abs(meeting);
    // The process dies at the write of the meeting note's links (the rename that replaces it).
    const dying = new Vault(
      new Proxy(vault.fs, {
        get: (target, prop, receiver) =>
          prop === 'rename' ? (from: string, to: string) => (to === meetingAbs ? Promise.reject(new Error('killed')) : target.rename(from, to)) : Reflect.get(target, prop, receiver),
      }),
      vault.layout,
    );
    await expect(importFile({ vault: dying, clock: () => NOW, calendar: deps }, { file: vault.abs(INBOX), keep: 'move' })).rejects.toThrow('killed');
    expect(parseNote(await vault.read(meetingAbs)).data.end_time).toBeUndefined();
    await recoverImports(vault, () => NOW);
    const data = parseNote(await vault.read(meetingAbs)).data;
    expect(String(data.transcript)).toMatch(/^\[\[Meetings\/Transcripts\//);
    expect(data.end_time).toBeTruthy();
    expect(String(data.source)).toMatch(/^\[\[Meetings\/Sources\//);
    expect(bodyOf(await vault.read(meetingAbs))).toBe(TYPED);
  });

  it('a meeting that has its transcript already gets a meeting of its own', async () => {
    const { vault, meeting } = await madeAhead();
    await startSession(vault, {}, () => NOW, deps);
    const before = await vault.read(vault.abs(meeting));
    await vault.write(vault.abs(INBOX), VTT);
    const outcome = await importFile({ vault, clock: () => NOW, calendar: deps }, { file: vault.abs(INBOX), keep: 'move' });
    expect(outcome.kind === 'imported' && outcome.meeting).not.toBe(meeting);
    expect(await vault.read(vault.abs(meeting))).toBe(before);
  });
});

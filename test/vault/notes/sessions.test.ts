import { describe, expect, it } from 'vitest';
import {
  fileNameOfTitle,
  localIsoTime,
  SessionError,
  setSessionState,
  startSession,
  stopSession,
} from '../../../src/sessions/sessions.js';
import { listMeetingStates } from '../../../src/vault/notes/meeting-overview.js';
import { parseNote } from '../../../src/vault/format/frontmatter.js';
import { createApiHandlers } from '../../../src/daemon/http/api-handlers.js';
import { Vault } from '../../../src/vault/files/vault.js';
import { eventWithin, renameGate } from '../../helpers/gates.js';
import { memoryVault, testConfig } from '../../helpers/memfs.js';

const at = new Date(2026, 10, 30, 9, 7, 30);
const atClock = () => at;

describe('session start', () => {
  it('creates meeting, transcript and context notes named "<YYYY-MM-DD HHmm> <title>.md", linked to each other', async () => {
    const vault = memoryVault();
    const notes = await startSession(
      vault,
      { title: 'Weekly Sync', projects: ['Alpha', 'Beta'], agenda: 'Release', scheduledEnd: '2026-11-30T10:00:00+01:00' },
      atClock,
    );
    expect(notes).toEqual({
      meeting: 'Meetings/2026-11-30 0907 Weekly Sync.md',
      transcript: 'Meetings/Transcripts/2026-11-30 0907 Weekly Sync.md',
      context: 'Meetings/Context/2026-11-30 0907 Weekly Sync.md',
    });
    const meeting = parseNote(await vault.read(vault.abs(notes.meeting))).data;
    expect(meeting).toEqual({
      title: 'Weekly Sync',
      start_time: localIsoTime(at),
      attendees: [],
      projects: ['Alpha', 'Beta'],
      transcript: '[[Meetings/Transcripts/2026-11-30 0907 Weekly Sync]]',
      context: '[[Meetings/Context/2026-11-30 0907 Weekly Sync]]',
      summary: '[[Meetings/Summaries/2026-11-30 0907 Weekly Sync]]',
    });
    const transcript = parseNote(await vault.read(vault.abs(notes.transcript))).data;
    expect(transcript).toEqual({ meeting: '[[Meetings/2026-11-30 0907 Weekly Sync]]', state: 'transcribing' });
    const context = parseNote(await vault.read(vault.abs(notes.context))).data;
    expect(Object.keys(context)).toEqual([
      'title',
      'start_time',
      'end_time',
      'meeting',
      'transcript',
      'summary',
      'state',
      'agenda',
      'scheduled_end',
    ]);
    expect(context).toMatchObject({
      title: 'Weekly Sync',
      start_time: localIsoTime(at),
      meeting: '[[Meetings/2026-11-30 0907 Weekly Sync]]',
      state: 'collecting metadata',
      agenda: 'Release',
      scheduled_end: '2026-11-30T10:00:00+01:00',
    });
  });

  it('without agenda and scheduled end: agenda is an empty string and scheduled_end is absent', async () => {
    const vault = memoryVault();
    const notes = await startSession(vault, { title: 'Quick' }, atClock);
    const context = parseNote(await vault.read(vault.abs(notes.context))).data;
    expect(context.agenda).toBe('');
    expect('scheduled_end' in context).toBe(false);
  });

  it('replaces characters not allowed in file names with "-"', () => {
    expect(fileNameOfTitle('a\\b/c:d*e?f"g<h>i|j#k^l[m]n')).toBe('a-b-c-d-e-f-g-h-i-j-k-l-m-n');
    expect(fileNameOfTitle('  Sync.  ')).toBe('Sync');
  });

  it('local time with its offset', () => {
    expect(localIsoTime(at)).toMatch(/^2026-11-30T09:07:30[+-]\d{2}:\d{2}$/);
  });

  it('refuses a second session with the same title in the same minute, a blank title and a bad scheduled end', async () => {
    const vault = memoryVault();
    await startSession(vault, { title: 'Sync' }, atClock);
    await expect(startSession(vault, { title: 'Sync' }, atClock)).rejects.toMatchObject({ kind: 'conflict' });
    await expect(startSession(vault, { title: '  ' }, atClock)).rejects.toMatchObject({ kind: 'usage' });
    await expect(startSession(vault, { title: 'X', scheduledEnd: 'tomorrow' }, atClock)).rejects.toMatchObject({ kind: 'usage' });
    await expect(startSession(vault, { title: 'X', projects: ['../etc'] }, atClock)).rejects.toBeInstanceOf(SessionError);
  });
});

describe('session state and stop', () => {
  it('sets one of the recorder\'s three context states, and refuses anything else without writing', async () => {
    const vault = memoryVault();
    const notes = await startSession(vault, { title: 'Sync' }, atClock);
    const before = await vault.read(vault.abs(notes.context));
    await expect(setSessionState(vault, notes.meeting, 'done')).rejects.toMatchObject({ kind: 'usage' });
    expect(await vault.read(vault.abs(notes.context))).toBe(before);
    await setSessionState(vault, notes.meeting, 'speaker recognition');
    expect(parseNote(await vault.read(vault.abs(notes.context))).data.state).toBe('speaker recognition');
  });

  it('creates the context note when a recorder made the meeting note without one', async () => {
    const vault = memoryVault({
      'Meetings/Rec.md': '---\ntitle: Rec\n---\n',
      'Meetings/Transcripts/Rec.md': '---\nmeeting: "[[Meetings/Rec]]"\nstate: transcribing\n---\n',
    });
    const change = await setSessionState(vault, 'Meetings/Rec.md', 'transcribing');
    expect(change.context).toBe('Meetings/Context/Rec.md');
    expect(parseNote(await vault.read('/vault/Meetings/Context/Rec.md')).data.state).toBe('transcribing');
  });

  it('refuses a meeting path outside the meetings folder or the vault', async () => {
    const vault = memoryVault({ 'Projects/Alpha/x.md': '---\n---\n' });
    await expect(setSessionState(vault, '../etc/passwd', 'transcribing')).rejects.toBeInstanceOf(SessionError);
    await expect(setSessionState(vault, 'Projects/Alpha/x.md', 'transcribing')).rejects.toBeInstanceOf(SessionError);
    await expect(setSessionState(vault, 'Meetings/Nope.md', 'transcribing')).rejects.toMatchObject({ kind: 'not-found' });
  });

  it('stop writes end_time to the meeting and the context note, keeping everything else', async () => {
    const vault = memoryVault();
    const notes = await startSession(vault, { title: 'Sync', agenda: 'A' }, atClock);
    const end = new Date(2026, 10, 30, 9, 52, 0);
    await stopSession(vault, notes.meeting, () => end);
    const meeting = parseNote(await vault.read(vault.abs(notes.meeting))).data;
    const context = parseNote(await vault.read(vault.abs(notes.context))).data;
    expect(meeting.end_time).toBe(localIsoTime(end));
    expect(context.end_time).toBe(localIsoTime(end));
    expect(context.agenda).toBe('A');
    expect(meeting.title).toBe('Sync');
  });
});

describe('a context link to a note that is no context note (docs/design.md §1, "Links")', () => {
  // Notes/Minutes.md has a `meeting` link but no `state`: a person's note, not a context note.
  const minutes = '---\nmeeting: "[[Meetings/Rec]]"\n---\nWhat Alice wrote.\n';
  const files = () => ({
    'Meetings/Rec.md': '---\ntitle: Rec\ntranscript: "[[Meetings/Transcripts/Rec]]"\ncontext: "[[Notes/Minutes]]"\n---\n',
    'Meetings/Transcripts/Rec.md': '---\nmeeting: "[[Meetings/Rec]]"\nstate: transcribing\n---\n',
    'Notes/Minutes.md': minutes,
  });

  it('session state and stop never write it (so a later run cannot take it for the context note)', async () => {
    const vault = memoryVault(files());
    await expect(setSessionState(vault, 'Meetings/Rec.md', 'speaker recognition')).rejects.toMatchObject({ kind: 'broken' });
    const stopped = await stopSession(vault, 'Meetings/Rec.md', atClock);
    expect(stopped.context).toBeUndefined();
    await expect(setSessionState(vault, 'Meetings/Rec.md', 'speaker recognition')).rejects.toMatchObject({ kind: 'broken' });
    expect(await vault.read('/vault/Notes/Minutes.md')).toBe(minutes);
  });

  it('a note outside the folder with both state and meeting is a context note, and is written', async () => {
    const vault = memoryVault({ ...files(), 'Notes/Minutes.md': '---\nmeeting: "[[Meetings/Rec]]"\nstate: transcribing\n---\n' });
    const change = await setSessionState(vault, 'Meetings/Rec.md', 'speaker recognition');
    expect(change.context).toBe('Notes/Minutes.md');
    expect(parseNote(await vault.read('/vault/Notes/Minutes.md')).data.state).toBe('speaker recognition');
  });
});

describe('one writer per file, the session commands and the HTTP API included', () => {
  it('PUT /api/sessions/state waits while a run\'s write of the context note is between its read and its rename', async () => {
    const seed = memoryVault();
    const notes = await startSession(seed, { title: 'Sync' }, atClock);
    const contextAbs = seed.abs(notes.context);
    const { fs, held, release } = renameGate(seed.fs, contextAbs);
    const vault = new Vault(fs, testConfig().layout, { lateWatchMs: 0 });
    const api = createApiHandlers({ vault, enqueue: () => 'queued', status: () => ({}) });
    const log: string[] = [];
    const run = vault.update(contextAbs, (text) => (log.push('run: transform'), `${text ?? ''}The run's line.\n`));
    await held;
    const put = api.setSessionState(notes.meeting, 'speaker recognition').then(() => log.push('PUT: answered'));
    expect(await eventWithin(() => log.includes('PUT: answered'), 200)).toBe(false);
    log.push('run: rename');
    release();
    await Promise.all([run, put]);
    expect(log).toEqual(['run: transform', 'run: rename', 'PUT: answered']);
    const text = await vault.read(contextAbs);
    expect(parseNote(text).data.state).toBe('speaker recognition');
    expect(text).toContain("The run's line.");
  });
});

describe('status listing', () => {
  it('lists meetings with their context state, newest first by start_time, else mtime', async () => {
    const vault = memoryVault({
      'Meetings/Old.md': '---\ntitle: Old\nstart_time: 2026-01-01T09:00:00Z\n---\n',
      'Meetings/Context/Old.md': '---\nmeeting: "[[Meetings/Old]]"\nstate: finished\n---\n',
      'Meetings/New.md': '---\ntitle: New\nstart_time: 2026-11-01T09:00:00Z\n---\n',
      'Meetings/Context/New.md': '---\nstate: summarizing\n---\n',
      'Meetings/Broken.md': '---\ntitle: [oops\n---\n',
      'Meetings/Transcripts/New.md': '---\nstate: finished\n---\n',
    });
    const rows = await listMeetingStates(vault);
    const byName = Object.fromEntries(rows.map((r) => [r.meeting, r.state]));
    expect(byName).toEqual({ 'Meetings/Old.md': 'finished', 'Meetings/New.md': 'summarizing', 'Meetings/Broken.md': 'broken' });
    expect(rows.map((r) => r.meeting).indexOf('Meetings/New.md')).toBeLessThan(rows.map((r) => r.meeting).indexOf('Meetings/Old.md'));
  });
});

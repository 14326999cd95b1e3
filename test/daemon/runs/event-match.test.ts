import { afterEach, describe, expect, it } from 'vitest';
import { type Daemon, type PipelineFns, startDaemon } from '../../../src/daemon/daemon.js';
import type { VaultEvent, VaultEventListener, VaultEventSource } from '../../../src/daemon/intake/file-events.js';
import { eventMatcher, importedTitle } from '../../../src/daemon/runs/event-match.js';
import { silentLogger } from '../../../src/log.js';
import type { CalendarLookup } from '../../../src/calendar/types.js';
import { matchFinishedMeeting } from '../../../src/meeting-event/finished-meeting.js';
import { parseNote } from '../../../src/vault/format/frontmatter.js';
import { calendarEvent, failingCalendar, fakeCalendar } from '../../helpers/calendar-events.js';
import { capturedLogger } from '../../helpers/captured-log.js';
import { memoryFs, memoryVault, testConfig } from '../../helpers/memfs.js';
import { contextAndSummaryLinks, contextNote, meetingNote, transcriptNote } from '../../helpers/notes.js';

/** A transcript finishing for a meeting without a match yet (docs/design.md §12): matched before its run. */

// helpers/notes.ts: the meeting starts 2026-11-30T09:00:00+01:00, its transcript's last line is at 00:00:12.
const EVENT = calendarEvent({
  uid: 'weekly@example.com',
  title: 'Weekly Sync',
  start: '2026-11-30T08:00:00Z',
  end: '2026-11-30T08:30:00Z',
  description: 'Roadmap.',
  organizer: { name: 'Ann Lee', email: 'ann@example.com', status: '' },
});
const M = '/vault/Meetings/A.md';
const C = '/vault/Meetings/Context/A.md';
const T = '/vault/Meetings/Transcripts/A.md';
const files = (extra = '') => ({
  'Meetings/A.md': meetingNote('A', contextAndSummaryLinks('A') + extra),
  'Meetings/Transcripts/A.md': transcriptNote('A', 'transcribing'),
  'Meetings/Context/A.md': contextNote('A', 'transcribing', 'agenda: ""\n'),
});
const clock = () => new Date('2026-11-30T12:00:00Z');

describe('matchFinishedMeeting', () => {
  it('the span runs to the transcript’s last time when the note has no end; the event’s keys land in both notes', async () => {
    const vault = memoryVault({ ...files(), 'Meetings/Transcripts/A.md': transcriptNote('A', 'finished') });
    const written = await matchFinishedMeeting(vault, { calendar: fakeCalendar([EVENT]), projects: {}, clock }, M);
    expect(written?.meeting).toMatchObject({ event: 'weekly@example.com', organizer: 'Ann Lee' });
    const meeting = parseNote(await vault.read(M)).data;
    expect(meeting).toMatchObject({ title: 'A', event: 'weekly@example.com', attendees: ['Ann Lee', 'Alice', 'Bob'], projects: ['Alpha'] });
    expect(parseNote(await vault.read(C)).data.agenda).toBe('Roadmap.');
  });

  it('a meeting matched already is not looked up again', async () => {
    const calendar = fakeCalendar([EVENT]);
    const vault = memoryVault(files('event: other@example.com\n'));
    expect(await matchFinishedMeeting(vault, { calendar, projects: {}, clock }, M)).toBeUndefined();
    expect(calendar.asked).toEqual([]);
  });
});

describe('importedTitle', () => {
  it('is the title the import took from the original’s file name, not one a person wrote', () => {
    expect(importedTitle({ title: 'call', source: '[[Meetings/Sources/2026-12-02 1000 call.vtt]]' })).toBe(true);
    expect(importedTitle({ title: 'Recording', source: '[[Meetings/Sources/GMT20261202-090000_Recording.vtt]]' })).toBe(true);
    expect(importedTitle({ title: 'Budget', source: '[[Meetings/Sources/2026-12-02 1000 call.vtt]]' })).toBe(false);
    expect(importedTitle({ title: 'call' })).toBe(false);
  });
});

describe('eventMatcher', () => {
  it('a calendar that never answers holds the run no longer than its wait, and says so', async () => {
    const vault = memoryVault(files());
    const { log, lines } = capturedLogger();
    const hanging: CalendarLookup = { eventsBetween: () => new Promise(() => undefined), sources: () => [] };
    await eventMatcher({ vault, calendar: { calendar: hanging, projects: {}, clock }, log, waitMs: 20 })(M);
    expect(lines.some((l) => /took too long/.test(String(l.msg)))).toBe(true);
  });

  it('a meeting note that does not parse is a log line, not a failure', async () => {
    const vault = memoryVault({ 'Meetings/A.md': '---\ntitle: [unclosed\n---\n' });
    const { log, lines } = capturedLogger();
    await eventMatcher({ vault, calendar: { calendar: fakeCalendar([EVENT]), projects: {}, clock }, log })(M);
    expect(lines.some((l) => /could not be matched/.test(String(l.msg)))).toBe(true);
  });
});

function manualSource() {
  const listeners: VaultEventListener[] = [];
  const source: VaultEventSource & { emit(e: VaultEvent): void } = {
    on: (l) => void listeners.push(l),
    ready: Promise.resolve(),
    close: async () => undefined,
    emit: (e) => listeners.forEach((l) => l(e)),
  };
  return source;
}

let daemon: Daemon | undefined;
afterEach(async () => {
  await daemon?.stop('test over');
  daemon = undefined;
});

describe('the daemon’s job path', () => {
  async function runWith(calendar: CalendarLookup) {
    const fs = memoryFs(files());
    const seen: string[] = [];
    const pipeline: PipelineFns = {
      async summarize(deps, meetingPath) {
        seen.push(await deps.vault.read(meetingPath));
        return { runId: 'r', status: 'done', meetingPath };
      },
      retry: async () => ({ runId: 'r', status: 'done' }),
    };
    const source = manualSource();
    daemon = await startDaemon(testConfig({ Http: { Enabled: false } }), { log: silentLogger, fs, watch: () => source, pipeline, schedule: false, calendar, clock });
    await daemon.startupScan;
    await daemon.vault.fs.writeFile(T, transcriptNote('A', 'finished'));
    source.emit({ type: 'change', path: T });
    await daemon.eventsHandled();
    await daemon.queue.onIdle();
    return seen;
  }

  it('the run reads the meeting note with its event already written', async () => {
    const seen = await runWith(fakeCalendar([EVENT]));
    expect(seen).toHaveLength(1);
    expect(parseNote(seen[0]!).data).toMatchObject({ event: 'weekly@example.com', organizer: 'Ann Lee' });
  });

  it('a calendar that fails never fails the summary', async () => {
    const seen = await runWith(failingCalendar());
    expect(seen).toHaveLength(1);
    expect(parseNote(seen[0]!).data.event).toBeUndefined();
  });
});

import { describe, expect, it } from 'vitest';
import { sessionStart } from '../../src/commands/session.js';
import { CliError, EXIT_FAILED, EXIT_USAGE } from '../../src/commands/common.js';
import { createApiHandlers } from '../../src/daemon/http/api-handlers.js';
import { ApiError } from '../../src/daemon/http/server.js';
import { SessionError, startSession } from '../../src/sessions/sessions.js';
import { parseNote } from '../../src/vault/format/frontmatter.js';
import { localIsoTime } from '../../src/vault/format/note-names.js';
import { calendarEvent, fakeCalendar } from '../helpers/calendar-events.js';
import { memoryFs, memoryVault } from '../helpers/memfs.js';
import { memoryIo } from '../helpers/memory-io.js';

/** `session start` and the calendar (docs/design.md §12): without --title, the event in progress. */

const NOW = new Date(2026, 11, 2, 9, 57);
const clock = () => NOW;
const EVENT = calendarEvent({
  uid: 'standup@example.com',
  title: 'Daily Standup',
  start: new Date(2026, 11, 2, 10, 0),
  end: new Date(2026, 11, 2, 10, 15),
  description: 'Blockers first.',
  organizer: { name: 'Ann Lee', email: 'ann@example.com', status: '' },
  attendees: [{ name: 'Bob Stone', email: 'bob@example.com', status: 'accepted' }],
});
const deps = (events = [EVENT]) => ({ calendar: fakeCalendar(events), projects: {}, clock });
const read = async (vault: ReturnType<typeof memoryVault>, rel: string) => parseNote(await vault.read(vault.abs(rel))).data;

describe('session start with a calendar', () => {
  it('without a title takes the event starting in three minutes: its title, people, agenda and scheduled end', async () => {
    const vault = memoryVault();
    const notes = await startSession(vault, {}, clock, deps());
    expect(notes.meeting).toBe('Meetings/2026-12-02 0957 Daily Standup.md');
    expect(await read(vault, notes.meeting)).toMatchObject({ title: 'Daily Standup', attendees: ['Ann Lee', 'Bob Stone'], organizer: 'Ann Lee', event: 'standup@example.com', start_time: localIsoTime(NOW) });
    expect(await read(vault, notes.context)).toMatchObject({ agenda: 'Blockers first.', scheduled_end: localIsoTime(EVENT.end), state: 'collecting metadata' });
  });

  it("an invitation's Templater tags reach none of the new notes (title, file name, people, place, agenda)", async () => {
    const vault = memoryVault();
    const hostile = {
      ...EVENT,
      title: 'Standup <%* app.vault.adapter.remove("Projects") %>',
      location: '<% tp.file.title %>',
      description: 'Blockers <% tp.date.now() %>',
      attendees: [{ name: 'Bob <%+ x %>', email: 'bob@example.com', status: 'accepted' }],
    };
    const notes = await startSession(vault, {}, clock, deps([hostile]));
    for (const rel of [notes.meeting, notes.transcript, notes.context]) expect(await vault.read(vault.abs(rel))).not.toContain('<%');
    expect((await read(vault, notes.meeting)).title).toBe('Standup <\\%* app.vault.adapter.remove("Projects") %>');
  });

  it('a title, an agenda and a scheduled end given win over the event’s', async () => {
    const vault = memoryVault();
    const notes = await startSession(vault, { title: 'Mine', agenda: 'My agenda', scheduledEnd: '2026-12-02T11:00:00+01:00' }, clock, deps());
    expect(await read(vault, notes.meeting)).toMatchObject({ title: 'Mine', event: 'standup@example.com' });
    expect(await read(vault, notes.context)).toMatchObject({ agenda: 'My agenda', scheduled_end: '2026-12-02T11:00:00+01:00' });
  });

  it('no event in progress and no title: refused, naming the calendars, nothing written', async () => {
    const vault = memoryVault();
    const later = { ...EVENT, start: new Date(2026, 11, 2, 10, 30), end: new Date(2026, 11, 2, 11, 0) };
    const err = await startSession(vault, {}, clock, deps([later])).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(SessionError);
    expect((err as SessionError).kind).toBe('no-event');
    expect((err as Error).message).toContain('"Work"');
    expect(await vault.fs.readdir('/vault', { withFileTypes: true })).toEqual([]);
  });

  it('no calendar and no title: a usage error as before', async () => {
    const err = await startSession(memoryVault(), {}, clock).catch((e: unknown) => e);
    expect((err as SessionError).kind).toBe('usage');
  });

  it('the command: without --title the event’s title; without an event exit 1, without a calendar exit 2', async () => {
    const fs = memoryFs({ '/work/config.json': JSON.stringify({ MeetingAssistant: { VaultPath: '/vault', Http: { Enabled: false } } }) });
    const io = memoryIo();
    const base = { io, fs, env: {}, cwd: '/work', clock };
    expect(await sessionStart({}, { ...base, calendar: async () => ({ ...fakeCalendar([EVENT]), stop: async () => undefined }) })).toBe(0);
    expect(io.outLines[0]).toBe('meeting: Meetings/2026-12-02 0957 Daily Standup.md');
    const none = await sessionStart({}, { ...base, calendar: async () => ({ ...fakeCalendar([]), stop: async () => undefined }) }).catch((e: unknown) => e);
    expect((none as CliError).exitCode).toBe(EXIT_FAILED);
    expect((none as Error).message).toMatch(/no event is in progress in the calendars "Work"/);
    const without = await sessionStart({}, base).catch((e: unknown) => e);
    expect((without as CliError).exitCode).toBe(EXIT_USAGE);
  });

  it('POST /api/sessions without a title: the event’s, else 409 naming the calendars', async () => {
    const vault = memoryVault();
    const handlers = createApiHandlers({ vault, enqueue: () => 'queued', status: () => ({}), clock, calendar: deps() });
    expect(await handlers.startSession({ projects: [] })).toMatchObject({ meeting: 'Meetings/2026-12-02 0957 Daily Standup.md' });
    const refused = createApiHandlers({ vault, enqueue: () => 'queued', status: () => ({}), clock, calendar: deps([]) });
    const err = await refused.startSession({}).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(ApiError);
    expect((err as ApiError).status).toBe(409);
  });
});

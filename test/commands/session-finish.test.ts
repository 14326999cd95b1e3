import { describe, expect, it } from 'vitest';
import { sessionFinish, sessionStart, sessionState } from '../../src/commands/session.js';
import { CliError, EXIT_USAGE } from '../../src/commands/common.js';
import { localIsoTime } from '../../src/sessions/sessions.js';
import { parseNote } from '../../src/vault/format/frontmatter.js';
import { memoryFs } from '../helpers/memfs.js';
import { memoryIo } from '../helpers/memory-io.js';

/**
 * docs/design.md §6: `session state` takes the recorder's states only; `session finish` is
 * the recorder's last call, which starts the summary (the transcript's state).
 */

const START = new Date(2026, 10, 30, 9, 7, 30);
const END = new Date(2026, 10, 30, 9, 52, 0);
const MEETING = 'Meetings/2026-11-30 0907 Weekly Sync.md';

function setup(settings: Record<string, unknown> = {}) {
  const fs = memoryFs({ '/work/config.json': JSON.stringify({ MeetingAssistant: { VaultPath: '/vault', Http: { Enabled: false }, ...settings } }) });
  let now = START;
  const io = memoryIo();
  const deps = { io, fs, env: {}, cwd: '/work', clock: () => now };
  return { fs, io, deps, setNow: (d: Date) => (now = d) };
}

const text = async (fs: ReturnType<typeof memoryFs>, rel: string) => Buffer.from(await fs.readFile(`/vault/${rel}`)).toString('utf8');
const data = async (fs: ReturnType<typeof memoryFs>, rel: string) => parseNote(await text(fs, rel)).data;

describe('session state: the recorder\'s states only', () => {
  it.each(['finished', 'summarizing', 'error'])('refuses "%s" with exit 2, pointing to session finish, and writes nothing', async (state) => {
    const { fs, deps } = setup();
    await sessionStart({ title: 'Weekly Sync' }, deps);
    const before = await text(fs, 'Meetings/Context/2026-11-30 0907 Weekly Sync.md');
    const err = await sessionState(MEETING, state, {}, deps).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(CliError);
    expect((err as CliError).exitCode).toBe(EXIT_USAGE);
    expect((err as CliError).message).toContain("the daemon's own state");
    expect((err as CliError).message).toContain('meeting-assistant session finish <meeting-note>');
    expect(await text(fs, 'Meetings/Context/2026-11-30 0907 Weekly Sync.md')).toBe(before);
  });
});

describe('session finish', () => {
  it('writes end_time to meeting and context notes, then sets the transcript to Daemon.TriggerState', async () => {
    const { fs, io, deps, setNow } = setup({ Daemon: { TriggerState: 'ready for summary' } });
    await sessionStart({ title: 'Weekly Sync' }, deps);
    setNow(END);
    expect(await sessionFinish(MEETING, {}, deps)).toBe(0);
    expect(await data(fs, MEETING)).toMatchObject({ end_time: localIsoTime(END) });
    expect(await data(fs, 'Meetings/Context/2026-11-30 0907 Weekly Sync.md')).toMatchObject({ end_time: localIsoTime(END), state: 'collecting metadata' });
    expect(await data(fs, 'Meetings/Transcripts/2026-11-30 0907 Weekly Sync.md')).toMatchObject({ state: 'ready for summary' });
    expect(io.outLines.slice(-3)).toEqual([
      `${MEETING}: end_time ${localIsoTime(END)}`,
      `Meetings/Context/2026-11-30 0907 Weekly Sync.md: end_time ${localIsoTime(END)}`,
      'Meetings/Transcripts/2026-11-30 0907 Weekly Sync.md: state ready for summary',
    ]);
  });

  it('keeps an end_time the meeting already has (session stop earlier), and gives it to a context note without one', async () => {
    const { fs, deps, setNow } = setup();
    const fsMeeting = '---\ntitle: Rec\nstart_time: 2026-11-30T09:00:00+01:00\nend_time: 2026-11-30T09:30:00+01:00\n---\n';
    await fs.mkdir('/vault/Meetings/Transcripts', { recursive: true });
    await fs.mkdir('/vault/Meetings/Context', { recursive: true });
    await fs.writeFile('/vault/Meetings/Rec.md', fsMeeting);
    await fs.writeFile('/vault/Meetings/Transcripts/Rec.md', '---\nmeeting: "[[Meetings/Rec]]"\nstate: speaker recognition\n---\n');
    await fs.writeFile('/vault/Meetings/Context/Rec.md', '---\nmeeting: "[[Meetings/Rec]]"\nstate: speaker recognition\n---\n');
    setNow(END);
    expect(await sessionFinish('Rec', {}, deps)).toBe(0);
    expect(await text(fs, 'Meetings/Rec.md')).toBe(fsMeeting);
    expect(await data(fs, 'Meetings/Context/Rec.md')).toMatchObject({ end_time: '2026-11-30T09:30:00+01:00' });
    expect(await data(fs, 'Meetings/Transcripts/Rec.md')).toMatchObject({ state: 'finished' });
  });

  it('a meeting without a transcript is refused and nothing is written', async () => {
    const { fs, deps } = setup();
    await fs.mkdir('/vault/Meetings', { recursive: true });
    await fs.writeFile('/vault/Meetings/Lone.md', '---\ntitle: Lone\n---\n');
    await expect(sessionFinish('Meetings/Lone.md', {}, deps)).rejects.toBeInstanceOf(CliError);
    expect(await text(fs, 'Meetings/Lone.md')).toBe('---\ntitle: Lone\n---\n');
  });
});

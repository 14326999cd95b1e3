import { describe, expect, it } from 'vitest';
import { parseNote } from '../../src/vault/format/frontmatter.js';
import { parseNotesSection, type TranscriptNotesSection } from '../../src/vault/notes/transcript-notes-section.js';
import { type DaemonProcess, waitFor } from '../helpers/daemon-process.js';
import { daemonSetup, daemonTestFile, dataOf, type DaemonSetup, failingModel, type OnTestFinished, type TestScope, testScope } from '../helpers/daemon-helpers.js';
import { transcriptLines } from '../helpers/long-meeting.js';
import { readerOnServer } from '../helpers/reader-model.js';
import { type RecordedRequest, type ScriptedServer, toolCallsSoFar, toolNamesOf } from '../helpers/scripted-server.js';

/**
 * Notes while the meeting runs (docs/design.md §3 step 9), with the real daemon and its run
 * process on a real vault: a 3-hour transcript written in batches while `transcribing`, the
 * scripted reader model behind the scripted server at an 8,192-token window.
 *
 * Each test has a vault, a daemon and a scripted server of its own (its model, its count of
 * requests), so the tests run at once: most of a test's time is waiting (a process's start,
 * the settle of the notes, a run's turns), which the others fill. Each test's daemons and
 * server end with it (testScope); the vaults are removed once the file is done.
 */

daemonTestFile('all');
const NAME = 'Quarterly Planning';
const TRANSCRIPT = `Meetings/Transcripts/${NAME}.md`;
const CONTEXT = `Meetings/Context/${NAME}.md`;
const SUMMARY = `Meetings/Summaries/${NAME}.md`;
const HEADER_LINES = 4;
const speech = transcriptLines(32_300);
const BATCHES = 5;
const ENV = { MEETING_ASSISTANT_LIVE_NOTES_SETTLE_MS: '200' };

const meetingNote =
  '---\ntitle: Quarterly Planning\nstart_time: 2026-11-30T09:00:00+01:00\nattendees: [Alice Martin, Bob Chen]\nprojects: [Alpha]\n' +
  `transcript: "[[Meetings/Transcripts/${NAME}]]"\n---\n`;
const transcript = (state: string, lines: readonly string[]) => `---\nmeeting: "[[Meetings/${NAME}]]"\nstate: ${state}\n---\n${lines.join('\n')}\n`;

/** A vault with the meeting begun, and the test's own server answering as the reader model. */
async function setup(onTestFinished: OnTestFinished, more: Record<string, unknown> = {}): Promise<{ s: DaemonSetup; server: ScriptedServer; start: TestScope['start'] }> {
  const { server, start } = await testScope(onTestFinished, readerOnServer({ first: HEADER_LINES + 1, last: HEADER_LINES + speech.length, scale: 1.1 }).step);
  const s = await daemonSetup(server, { ContextWindow: { Tokens: 8192, MaxOutputTokens: 1024 }, ...more });
  s.write(`Meetings/${NAME}.md`, meetingNote);
  s.write(TRANSCRIPT, transcript('transcribing', []));
  return { s, server, start };
}

const isNotes = (r: RecordedRequest) => JSON.stringify(r.body).includes('Write the notes of lines');
const section = (s: DaemonSetup): TranscriptNotesSection | undefined => {
  const text = s.readIfExists(CONTEXT);
  return text === undefined ? undefined : parseNotesSection(parseNote(text).body);
};
const passes = (d: DaemonProcess) => d.logs.filter((l) => l.msg === 'live notes pass').length;

/** Writes the transcript's lines so far (a batch more) and waits for the daemon's notes pass over them. */
async function writeBatch(s: DaemonSetup, d: DaemonProcess, lines: readonly string[]): Promise<void> {
  const before = passes(d);
  s.write(TRANSCRIPT, transcript('transcribing', lines));
  await waitFor(() => passes(d) > before, `the notes pass over ${lines.length} lines`, 60_000);
}

describe.concurrent('daemon process: notes while the meeting runs', () => {
  it('notes the parts of a growing transcript before it is finished, notes again a corrected part, and summarizes within 4 requests of finished', async ({ onTestFinished }) => {
    const { s, server, start } = await setup(onTestFinished);
    let daemon = await start({ configPath: s.configPath, env: ENV });
    const batch = Math.ceil(speech.length / BATCHES);
    for (let n = 1; n <= BATCHES - 2; n++) await writeBatch(s, daemon, speech.slice(0, n * batch));
    // The status API shows the meeting being noted, once no pass runs (a write can make two
    // file events, and the second's pass may still be going on when the first has ended).
    const liveNotes = async () =>
      ((await (await fetch(`http://127.0.0.1:${s.port}/api/status`, { headers: { Authorization: `Bearer ${readToken(s)}` } })).json()) as { liveNotes?: { meeting: string; parts: number; active: boolean }[] }).liveNotes;
    const status = await waitFor(async () => {
      const shown = await liveNotes();
      return shown?.length === 1 && !shown[0]!.active ? shown : undefined;
    }, 'the notes pass to be over');
    const early = section(s)!;
    expect(early.parts.length).toBeGreaterThan(2);
    expect(early.parts.every((p) => p.hash?.startsWith('sha256:'))).toBe(true);
    expect(dataOf(s, SUMMARY)).toBeUndefined();
    expect(status).toEqual([expect.objectContaining({ meeting: `Meetings/${NAME}.md`, parts: early.parts.length })]);

    // The daemon stops in the middle of the meeting; lines come meanwhile; its start resumes the notes.
    await daemon.stop();
    s.write(TRANSCRIPT, transcript('transcribing', speech.slice(0, (BATCHES - 1) * batch)));
    daemon = await start({ configPath: s.configPath, env: ENV });
    await waitFor(() => (section(s)?.parts.length ?? 0) > early.parts.length, 'the notes resumed at the start', 60_000);
    await waitFor(() => passes(daemon) > 0, 'the resumed pass to end', 60_000);

    // Speaker recognition renames a speaker in the second part only: that part is noted again.
    const second = section(s)!.parts[1]!;
    const renamed = speech.slice(0, (BATCHES - 1) * batch).map((line, i) => (i + 1 + HEADER_LINES >= second.from && i + 1 + HEADER_LINES <= second.to ? line.replace('Speaker 5', 'Erin Park') : line));
    expect(renamed).not.toEqual(speech.slice(0, (BATCHES - 1) * batch));
    const asked = server.modelRequests().length;
    await writeBatch(s, daemon, renamed);
    const again = server.modelRequests().slice(asked).filter(isNotes);
    expect(again.map((r) => /Write the notes of lines (\d+-\d+)/.exec(JSON.stringify(r.body))?.[1])).toContain(`${second.from}-${second.to}`);
    expect(section(s)!.parts[1]!.hash).not.toBe(second.hash);
    expect(section(s)!.parts[0]!.hash).toBe(early.parts[0]!.hash);

    // The last lines, then finished: the summary's run notes only what is left.
    const all = speech.map((line, i) => (i < renamed.length ? renamed[i]! : line));
    await writeBatch(s, daemon, all);
    const atFinish = server.modelRequests().length;
    s.write(TRANSCRIPT, transcript('finished', all));
    await waitFor(() => dataOf(s, SUMMARY)?.status === 'done', 'the summary', 60_000);
    await waitFor(() => dataOf(s, CONTEXT)?.state === 'finished', 'context state finished');
    const after = server.modelRequests().slice(atFinish);
    // Requests until the summary is written: those before the first that shows its write_summary
    // call, or that no longer offers it (the project phase that follows).
    const toSummary = after.findIndex((r, i) => i > 0 && !isNotes(r) && (toolCallsSoFar(r).some((c) => c.name === 'write_summary') || !toolNamesOf(r).includes('write_summary')));
    expect(toSummary).toBeGreaterThan(0);
    expect(toSummary).toBeLessThanOrEqual(4);
    expect(after.slice(0, toSummary).filter(isNotes).length).toBeLessThanOrEqual(1);
    expect(atFinish).toBeGreaterThan(section(s)!.parts.length);
  });

  it('the endpoint down during the meeting: the pass fails in the log, the daemon goes on, and the finished meeting is summarized', async ({ onTestFinished }) => {
    const { s, server, start } = await setup(onTestFinished);
    server.setFallback(failingModel);
    const daemon = await start({ configPath: s.configPath, env: ENV });
    s.write(TRANSCRIPT, transcript('transcribing', speech.slice(0, 600)));
    const failed = await daemon.waitForLog((l) => l.msg?.startsWith('notes while the meeting runs failed') === true, 60_000, 'the failed pass');
    expect(failed.level).toBe('warn');
    expect(dataOf(s, SUMMARY)).toBeUndefined();
    server.setFallback(readerOnServer({ first: HEADER_LINES + 1, last: HEADER_LINES + speech.length, scale: 1.1 }).step);
    s.write(TRANSCRIPT, transcript('finished', speech));
    await waitFor(() => dataOf(s, SUMMARY)?.status === 'done', 'the summary', 60_000);
    expect(daemon.child.exitCode).toBeNull();
  });

  it('off (Daemon.LiveNotes: false): no request before the finish', async ({ onTestFinished }) => {
    const { s, server, start } = await setup(onTestFinished, { Daemon: { LiveNotes: false } });
    const daemon = await start({ configPath: s.configPath, env: ENV });
    const base = server.modelRequests().length;
    for (let n = 1; n <= 2; n++) {
      const before = daemon.logs.filter((l) => l.msg === 'file event' && l.path === TRANSCRIPT).length;
      s.write(TRANSCRIPT, transcript('transcribing', speech.slice(0, n * 600)));
      await waitFor(() => daemon.logs.filter((l) => l.msg === 'file event' && l.path === TRANSCRIPT).length > before, 'the change to be seen');
    }
    expect(server.modelRequests().length).toBe(base);
    s.write(TRANSCRIPT, transcript('finished', speech));
    await waitFor(() => dataOf(s, SUMMARY)?.status === 'done', 'the summary', 60_000);
    expect(passes(daemon)).toBe(0);
  });

  it('a short meeting: its passes make no request, and no notes', async ({ onTestFinished }) => {
    const { s, server, start } = await setup(onTestFinished);
    const daemon = await start({ configPath: s.configPath, env: ENV });
    const base = server.modelRequests().length;
    await writeBatch(s, daemon, speech.slice(0, 20));
    await writeBatch(s, daemon, speech.slice(0, 40));
    // The two batches (the start resumes nothing: no notes were begun): each found the meeting fits the window whole.
    const statuses = daemon.logs.filter((l) => l.msg === 'live notes pass').map((l) => l.status);
    expect(statuses.length).toBeGreaterThanOrEqual(2);
    expect(new Set(statuses)).toEqual(new Set(['fits']));
    expect(server.modelRequests().length).toBe(base);
    expect(section(s)).toBeUndefined();
  });
});

function readToken(s: DaemonSetup): string {
  const text = s.readIfExists('.meeting-assistant/token') ?? '';
  return text.trim();
}

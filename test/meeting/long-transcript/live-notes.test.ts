import { describe, expect, it } from 'vitest';
import type { ModelClient, ModelRequest } from '../../../src/agent/types.js';
import { silentLogger } from '../../../src/log.js';
import { makeLiveNotes } from '../../../src/meeting/long-transcript/live-notes.js';
import { readTranscriptInParts } from '../../../src/meeting/long-transcript/notes-pass.js';
import { windowRoom } from '../../../src/meeting/long-transcript/window-room.js';
import { splitLines } from '../../../src/vault/format/lines.js';
import { readNotesSection } from '../../../src/vault/notes/transcript-notes-section.js';
import { transcriptLines } from '../../helpers/long-meeting.js';
import { memoryVault, testConfig } from '../../helpers/memfs.js';

const MEETING = 'Meetings/M.md';
const TRANSCRIPT = 'Meetings/Transcripts/M.md';
const CONTEXT = 'Meetings/Context/M.md';
const speech = transcriptLines(12_000);
const RAW = { ContextWindow: { Tokens: 4096, MaxOutputTokens: 512 }, Reconnect: { Attempts: 0 } };

const meetingNote = `---\ntitle: Planning\nprojects: []\ntranscript: "[[${TRANSCRIPT.replace('.md', '')}]]"\n---\n`;
const transcriptNote = (state: string, lines: readonly string[]) => `---\nmeeting: "[[Meetings/M]]"\nstate: ${state}\n---\n${lines.join('\n')}\n`;

/** A model that answers notes and condensing requests with one bullet naming what it was shown. */
function notesModel(during?: (n: number) => Promise<void>) {
  const requests: ModelRequest[] = [];
  const model: ModelClient = {
    api: 'chat-completions',
    async complete(request) {
      requests.push(request);
      await during?.(requests.length);
      const content = request.messages[0]!.role === 'user' ? request.messages[0]!.content : '';
      const range = /lines (\d+)-(\d+)/.exec(content);
      return { content: `- notes of ${range?.[1]}-${range?.[2]}`, toolCalls: [], usage: { inputTokens: 0, outputTokens: 10 } };
    },
  };
  return { model, requests };
}

function setup(lines: readonly string[] = [], state = 'transcribing', raw: Record<string, unknown> = RAW, during?: (n: number) => Promise<void>) {
  const vault = memoryVault({ [MEETING]: meetingNote, [TRANSCRIPT]: transcriptNote(state, lines) }, raw);
  const { model, requests } = notesModel(during);
  const deps = { vault, config: testConfig(raw), log: silentLogger, model };
  const grow = (to: readonly string[], s = state) => vault.write(vault.abs(TRANSCRIPT), transcriptNote(s, to));
  return { vault, deps, requests, grow, meeting: vault.abs(MEETING) };
}

describe('notes while the meeting runs', () => {
  it('notes each part as soon as it stands, and the run at the trigger reads only the last part', async () => {
    const t = setup();
    const seen: string[] = [];
    for (let n = 40; n < speech.length + 40; n += 40) {
      await t.grow(speech.slice(0, Math.min(n, speech.length)));
      const outcome = await makeLiveNotes(t.deps, t.meeting, { onPart: (p) => seen.push(`${p.done}/${p.about}`) });
      expect(['noted', 'fits']).toContain(outcome.status);
    }
    const section = (await readNotesSection(t.vault, t.vault.abs(CONTEXT)))!;
    expect(section.parts.length).toBeGreaterThan(3);
    // Every part's notes name the hash of the lines they cover.
    expect(section.parts.every((p) => p.hash?.startsWith('sha256:'))).toBe(true);
    expect(seen[0]).toBe('0/2');
    // The context note was made for the notes, in the transcript's state.
    expect(await t.vault.read(t.vault.abs(CONTEXT))).toMatch(/^state: transcribing$/m);
    const during = t.requests.length;

    // The finished transcript, read by a run: the parts noted are reused, only the last is read.
    const lines = splitLines(transcriptNote('finished', speech));
    await t.grow(speech, 'finished');
    const run = await readTranscriptInParts(
      { label: TRANSCRIPT, lines, firstLine: 5, projects: [] },
      { ...t.deps, retry: { attempts: 0, delayMs: 0 }, room: windowRoom(undefined, t.deps.config.settings.ContextWindow), notesRoom: () => 100_000, contextPath: t.vault.abs(CONTEXT) },
    );
    expect(run.reused).toBe(section.parts.length);
    expect(run.parts).toBe(section.parts.length + 1);
    expect(run.requests).toBe(1);
    expect(t.requests.length).toBe(during + 1);
  });

  it('notes again only the part whose lines changed after its notes were made', async () => {
    const t = setup(speech);
    await makeLiveNotes(t.deps, t.meeting);
    const before = (await readNotesSection(t.vault, t.vault.abs(CONTEXT)))!.parts;
    expect(before.length).toBeGreaterThan(2);
    const asked = t.requests.length;
    // A person corrects one line of the second part (body line numbers: the file's minus 4).
    const fixed = [...speech];
    const line = before[1]!.from + 2 - 5;
    fixed[line] = `${fixed[line]} (corrected)`;
    await t.grow(fixed);
    const outcome = await makeLiveNotes(t.deps, t.meeting);
    expect(outcome).toMatchObject({ status: 'noted', parts: before.length });
    const partRequests = t.requests.slice(asked).filter((r) => /Write the notes of lines/.test(JSON.stringify(r.messages)));
    expect(partRequests).toHaveLength(1);
    expect(JSON.stringify(partRequests[0]!.messages)).toContain(`Write the notes of lines ${before[1]!.from}-${before[1]!.to}`);
    const after = (await readNotesSection(t.vault, t.vault.abs(CONTEXT)))!.parts;
    expect(after[1]!.hash).not.toBe(before[1]!.hash);
    expect(after.filter((p, i) => i !== 1).map((p) => p.hash)).toEqual(before.filter((p, i) => i !== 1).map((p) => p.hash));
  });

  it("keeps a person's edit of the context note made while a part is being noted", async () => {
    const holder: { edit?: () => Promise<void> } = {};
    const t = setup(speech, 'transcribing', RAW, async (n) => {
      if (n === 2) await holder.edit?.();
    });
    holder.edit = async () => {
      const text = await t.vault.read(t.vault.abs(CONTEXT));
      await t.vault.write(t.vault.abs(CONTEXT), text.replace(/\n---\n/, '\n---\nAgenda I typed during the meeting.\n'));
    };
    const outcome = await makeLiveNotes(t.deps, t.meeting);
    expect(outcome.parts).toBeGreaterThan(2);
    const text = await t.vault.read(t.vault.abs(CONTEXT));
    expect(text).toContain('Agenda I typed during the meeting.');
    expect((await readNotesSection(t.vault, t.vault.abs(CONTEXT)))!.parts).toHaveLength(outcome.parts);
  });

  it('makes no request for a meeting that fits the window whole, nor once the transcript is finished', async () => {
    const short = setup(speech.slice(0, 30));
    expect(await makeLiveNotes(short.deps, short.meeting)).toMatchObject({ status: 'fits', requests: 0 });
    const finished = setup(speech, 'finished');
    expect(await makeLiveNotes(finished.deps, finished.meeting)).toMatchObject({ status: 'finished', requests: 0 });
    expect([...short.requests, ...finished.requests]).toEqual([]);
    expect(await finished.vault.exists(finished.vault.abs(CONTEXT))).toBe(false);
  });

  it('leaves a context note a run holds alone, and resumes only notes begun', async () => {
    const t = setup(speech);
    expect(await makeLiveNotes(t.deps, t.meeting, { onlyIfStarted: true })).toMatchObject({ status: 'skipped', requests: 0 });
    await t.vault.write(t.vault.abs(CONTEXT), '---\nstate: summarizing\n---\n');
    expect(await makeLiveNotes(t.deps, t.meeting)).toMatchObject({ status: 'skipped', requests: 0 });
    expect(t.requests).toEqual([]);
  });

  it('makes no request for a transcript a run would not read into notes either (over 100 parts: a log pasted in, a file of megabytes)', async () => {
    // About 2 MB of lines, well past the 100 parts of a 4,096-token window a run reads at most.
    const huge = Array.from({ length: 20_000 }, (_, i) => `Speaker ${i % 3}: ${'all the words of a very long log line '.repeat(3)}${i}`);
    const t = setup(huge, 'transcribing', RAW, async (n) => {
      if (n > 2) throw new Error('more requests than a refused transcript may cost');
    });
    await expect(makeLiveNotes(t.deps, t.meeting)).resolves.toMatchObject({ status: 'skipped', requests: 0 });
    expect(t.requests).toEqual([]);
    expect(await t.vault.exists(t.vault.abs(CONTEXT))).toBe(false);
  });
});

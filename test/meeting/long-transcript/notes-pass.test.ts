import { describe, expect, it } from 'vitest';
import { WindowBudget, WindowOverflowError } from '../../../src/agent/window/window-budget.js';
import { condenseNotes, type NotesCall } from '../../../src/meeting/long-transcript/condense.js';
import { fitReadResult } from '../../../src/agent/window/read-sizing.js';
import { countTokens, estimateRequestTokens } from '../../../src/agent/window/tokens.js';
import { type WindowRoom, notesForLongTranscript, readTranscriptInParts, type TranscriptToRead } from '../../../src/meeting/long-transcript/notes-pass.js';
import type { MeetingArtifacts } from '../../../src/vault/notes/meeting.js';
import { lineTokens, speakerOf, splitAtTurns, standingParts } from '../../../src/meeting/long-transcript/parts.js';
import { ModelError, type ModelClient, type ModelRequest } from '../../../src/agent/types.js';
import { DEFAULT_SETTINGS } from '../../../src/config.js';
import { silentLogger } from '../../../src/log.js';
import { parseNote } from '../../../src/vault/format/frontmatter.js';
import { setContextState, splitContextBody } from '../../../src/vault/notes/context.js';
import { END_MARKER, parseNotesSection, renderNotesSection, withNotesSection, writeNotesSection } from '../../../src/vault/notes/transcript-notes-section.js';
import { readResult, recordedConversation, transcriptNote } from '../../helpers/long-meeting.js';
import { memoryVault } from '../../helpers/memfs.js';

const lines = transcriptNote(8_000);
const CONTEXT = 'Meetings/Context/M.md';
const AUDIT = '## External changes (2026-11-29T10:00:00.000Z)\n\n### Projects/A/x.md\n```diff\n+x\n```';

function room(window: number, maxOutputTokens = 1024): WindowRoom & { shrunk: number[] } {
  const shrunk: number[] = [];
  let current = window;
  return {
    shrunk,
    get window() {
      return current;
    },
    get maxOutputTokens() {
      return Math.min(maxOutputTokens, Math.floor(current / 4));
    },
    get target() {
      return Math.floor(0.8 * (current - this.maxOutputTokens));
    },
    shrinkWindow(tokens: number) {
      shrunk.push(tokens);
      current = Math.min(current, tokens);
    },
  };
}

/** A model that answers every notes request with one bullet per line range it was shown. */
function notesModel(answer?: (request: ModelRequest, n: number) => Promise<void> | void) {
  const requests: ModelRequest[] = [];
  const model: ModelClient = {
    api: 'chat-completions',
    async complete(request) {
      requests.push(request);
      await answer?.(request, requests.length);
      const range = /lines (\d+)-(\d+)/.exec(request.messages[0]!.role === 'user' ? request.messages[0]!.content : '');
      return { content: `- notes of ${range?.[1]}-${range?.[2]}`, toolCalls: [], usage: { inputTokens: 0, outputTokens: 10 } };
    },
  };
  return { model, requests };
}

function transcript(): TranscriptToRead {
  return { label: 'Meetings/Transcripts/M.md', lines, firstLine: 6, title: 'Planning', projects: ['Alpha'] };
}

function contextVault(body = `My notebook.\n\n${AUDIT}\n`) {
  return memoryVault({ [CONTEXT]: `---\ntitle: M\nstate: summarizing\n---\n${body}` });
}

describe('splitting a transcript into parts', () => {
  it('covers every line once, each part but the last as full as the room allows, ending at speaker turns', () => {
    const parts = splitAtTurns(lines, 6, 2000);
    expect(parts[0]!.from).toBe(6);
    expect(parts.at(-1)!.to).toBe(lines.length);
    const size = (p: { from: number; to: number }) => {
      let n = 0;
      for (let i = p.from; i <= p.to; i++) n += lineTokens(i, lines[i - 1]!);
      return n;
    };
    for (let i = 1; i < parts.length; i++) expect(parts[i]!.from).toBe(parts[i - 1]!.to + 1);
    for (const p of parts) expect(size(p)).toBeLessThanOrEqual(2000);
    // Cut at a turn in the part's second half: at least half the room used.
    for (const p of parts.slice(0, -1)) expect(size(p)).toBeGreaterThan(1000);
    for (const p of parts.slice(0, -1)) expect(speakerOf(lines[p.to]!)).not.toBe(speakerOf(lines[p.to - 1]!));
  });

  it('cuts a growing transcript where the finished one is cut: the parts that stand never move as lines are appended', () => {
    const finished = splitAtTurns(lines, 6, 2000);
    for (const length of [300, 301, 450, 777, lines.length - 1]) {
      const standing = standingParts(lines.slice(0, length), 6, 2000, false);
      expect(standing.length).toBeGreaterThan(0);
      expect(standing).toEqual(finished.slice(0, standing.length));
      // What stands leaves lines after it: the last part may still grow.
      expect(standing.at(-1)!.to).toBeLessThan(length - 1);
    }
    expect(standingParts(lines.slice(0, 40), 6, 2000)).toEqual([]);
    // A last line with its newline written counts: it is done.
    const done = standingParts(lines.slice(0, 450), 6, 2000, true);
    expect(done).toEqual(finished.slice(0, done.length));
  });

  it('reads speakers with timestamps and bold labels', () => {
    expect(speakerOf('[00:00:05] Alice: Good morning.')).toBe('Alice');
    expect(speakerOf('[00:00:12] **Speaker 2**: The build is green.')).toBe('Speaker 2');
    expect(speakerOf('and then we went on')).toBeUndefined();
  });
});

describe('a read that does not fit', () => {
  it('keeps whole lines, narrows the header to them and names the next line', () => {
    const whole = readResult('T.md', lines, 1, lines.length);
    const fitted = fitReadResult(whole, 1500, 'read_transcript');
    expect(countTokens(fitted)).toBeLessThanOrEqual(1500);
    const out = fitted.split('\n');
    const last = Number(/\(lines 1-(\d+) of /.exec(out[0]!)![1]);
    expect(out.slice(1, -1)).toEqual(whole.split('\n').slice(1, last + 1));
    expect(out.at(-1)).toContain(`read_transcript from: ${last + 1}.`);
    expect(fitReadResult('short', 100, 'read_transcript')).toBe('short');
  });
});

describe('the room a read may take', () => {
  it('is what is left once the results already answered are collapsed, never less than half the room', async () => {
    const settings = { ...DEFAULT_SETTINGS.ContextWindow, Tokens: 32_768, MaxOutputTokens: 4096 };
    const model: ModelClient = { api: 'chat-completions', complete: async () => ({ content: '', toolCalls: [] }) };
    const cm = new WindowBudget({ settings, api: 'chat-completions', model, log: silentLogger });
    const conv = recordedConversation({ ranges: 3, linesPerRange: 120 });
    await cm.beforeRequest(conv, conv.tools);
    const half = cm.maxToolResultTokens();
    const request = { instructions: conv.instructions, messages: [...conv.messages], tools: conv.tools, maxOutputTokens: 4096 };
    cm.afterResponse(request, { content: '', toolCalls: [], usage: { inputTokens: estimateRequestTokens(request), outputTokens: 30 } });
    const room = cm.maxToolResultTokens();
    expect(room).toBeGreaterThan(half * 1.5);
    // Old results collapsed, the instructions, first message and the new result fit the target.
    expect(room).toBeLessThan(cm.target - estimateRequestTokens({ ...conv, messages: conv.messages.slice(0, 1) }));
  });
});

describe('the notes section of the context note', () => {
  it('is written in place, keeps the notebook and the audit, and parses back', () => {
    const text = `---\ntitle: M\n---\nMy notebook.\n\n${AUDIT}\n`;
    const section = {
      fingerprint: 'sha256:abc',
      progress: 'Reading the transcript: part 2 of 3 (lines 10–20 of 30).',
      parts: [{ from: 1, to: 9, text: '## Decisions\n- ship it (L3)' }],
      condensed: [],
    };
    const once = withNotesSection(text, section);
    const twice = withNotesSection(once, {
      ...section,
      parts: [...section.parts, { from: 10, to: 20, text: '- more', hash: 'sha256:0123456789abcdef' }],
      condensed: [{ from: 1, to: 20, text: '- all of it' }],
      window: 4096,
    });
    const body = parseNote(twice).body;
    expect(body.match(/## Transcript notes/g)).toHaveLength(1);
    expect(body).toContain('My notebook.');
    expect(body).toContain(AUDIT);
    const parsed = parseNotesSection(body)!;
    expect(parsed.fingerprint).toBe('sha256:abc');
    expect(parsed.progress).toBe(section.progress);
    // A heading inside the notes is demoted, so it cannot end the section.
    expect(parsed.parts).toEqual([{ from: 1, to: 9, text: '#### Decisions\n- ship it (L3)' }, { from: 10, to: 20, text: '- more', hash: 'sha256:0123456789abcdef' }]);
    // The part's hash is a comment under its heading, not part of its notes.
    expect(body).toContain('### Lines 10–20\n<!-- part sha256:0123456789abcdef -->\n\n- more');
    expect(parsed.condensed).toEqual([{ from: 1, to: 20, text: '- all of it' }]);
    // The window the server showed, under the progress line; absent when none was learned.
    expect(parsed.window).toBe(4096);
    expect(parseNotesSection(parseNote(once).body)!.window).toBeUndefined();
  });
});

describe('writing the notes section', () => {
  it('a state change queued on the note before it is kept (the section is written to the note as it is then)', async () => {
    const vault = memoryVault({ 'Meetings/Context/M.md': '---\nstate: summarizing\n---\nMy notebook.\n' });
    const file = vault.abs('Meetings/Context/M.md');
    const section = { fingerprint: 'sha256:abc', progress: 'Reading the transcript: part 1 of 2.', parts: [{ from: 1, to: 9, text: '- ship it (L3)' }], condensed: [] };
    await Promise.all([setContextState(vault, file, 'error', { person_key: 'kept' }), writeNotesSection(vault, file, section)]);
    const note = parseNote(await vault.read(file));
    expect(note.data).toMatchObject({ state: 'error', person_key: 'kept' });
    expect(parseNotesSection(splitContextBody(note.body).notebook)).toEqual(section);
  });
});

describe('where the notes section goes', () => {
  const section = { fingerprint: 'sha256:abc', progress: 'Read in 1 parts.', parts: [{ from: 1, to: 9, text: '- ship it (L3)' }], condensed: [] };

  it("at the end of the agent's notebook, before the daemon's record that read_context does not show", () => {
    for (const eol of ['\n', '\r\n']) {
      const text = `---${eol}title: M${eol}---${eol}My notebook.${eol}${eol}${AUDIT.split('\n').join(eol)}${eol}`;
      const body = parseNote(withNotesSection(text, section)).body;
      const { notebook, record } = splitContextBody(body);
      expect(notebook).toBe(
        ['My notebook.', '', '## Transcript notes', '', '<!-- meeting-assistant transcript notes: sha256:abc -->', 'Read in 1 parts.', '', '### Lines 1–9', '', '- ship it (L3)', '<!-- end of transcript notes -->', ''].join(eol),
      );
      expect(record).toBe(`${AUDIT.split('\n').join(eol)}${eol}`);
      expect(parseNotesSection(notebook)).toEqual(section);
    }
  });

  it('ends at its end marker: what a person or write_context puts after it is neither read as notes nor lost when it is rewritten', () => {
    const once = withNotesSection(`---\ntitle: M\n---\nMy notebook.\n\n${AUDIT}\n`, section);
    expect(parseNote(once).body).toContain('- ship it (L3)\n<!-- end of transcript notes -->\n');
    const edited = once.replace('<!-- end of transcript notes -->\n', '<!-- end of transcript notes -->\n\nMy conclusion: ship it.\n- Ask Bob about the budget.\n');
    expect(parseNotesSection(parseNote(edited).body)).toEqual(section);
    const twice = withNotesSection(edited, { ...section, parts: [...section.parts, { from: 10, to: 20, text: '- more' }] });
    const body = parseNote(twice).body;
    expect(body).toContain('<!-- end of transcript notes -->\n\nMy conclusion: ship it.\n- Ask Bob about the budget.\n');
    expect(parseNotesSection(body)!.parts).toEqual([...section.parts, { from: 10, to: 20, text: '- more' }]);
    expect(splitContextBody(body).notebook).toContain('My conclusion: ship it.');
  });

  it('moves a section an earlier version left inside the record into the notebook', () => {
    // That version wrote no end marker: its section ran to the end of the body.
    const legacy = renderNotesSection(section).replace(`\n${END_MARKER}`, '');
    const text = `---\ntitle: M\n---\nMy notebook.\n\n${AUDIT}\n\n${legacy}\n`;
    const body = parseNote(withNotesSection(text, { ...section, progress: 'Again.' })).body;
    expect(body.match(/## Transcript notes/g)).toHaveLength(1);
    const { notebook, record } = splitContextBody(body);
    expect(parseNotesSection(notebook)?.progress).toBe('Again.');
    expect(record).toBe(`${AUDIT}\n`);
  });
});

describe('reading a transcript in parts', () => {
  it('saves each part as it is read and reuses a part while its lines are unchanged', async () => {
    const vault = contextVault();
    const { model, requests } = notesModel();
    const base = { model, retry: { attempts: 0, delayMs: 0 }, log: silentLogger, vault, contextPath: vault.abs(CONTEXT), notesRoom: () => 100_000 };
    const first = await readTranscriptInParts(transcript(), { ...base, room: room(4096) });
    expect(first.parts).toBeGreaterThan(2);
    expect(first.requests).toBe(first.parts);
    expect(requests.every((r) => r.tools.length === 0)).toBe(true);
    const again = await readTranscriptInParts(transcript(), { ...base, room: room(4096) });
    expect(again).toMatchObject({ reused: first.parts, requests: 0 });
    // The last line corrected: only the last part is noted again.
    const changed = { ...transcript(), lines: [...lines.slice(0, -1), '[03:00:00] Alice: One more thing.'] };
    expect(await readTranscriptInParts(changed, { ...base, room: room(4096) })).toMatchObject({ reused: first.parts - 1, requests: 1 });
    // A speaker renamed all through: every part is noted again.
    const renamed = { ...transcript(), lines: lines.map((l) => l.replace('Alice', 'Alicia')) };
    expect(await readTranscriptInParts(renamed, { ...base, room: room(4096) })).toMatchObject({ reused: 0, requests: first.parts });
    expect(parseNote(await vault.read(vault.abs(CONTEXT))).body).toContain(AUDIT);
  });

  it('reuses the condensed notes too while they fit the room', async () => {
    const vault = contextVault();
    const { model } = notesModel();
    const options = { model, retry: { attempts: 0, delayMs: 0 }, log: silentLogger, vault, contextPath: vault.abs(CONTEXT), notesRoom: () => 20 };
    const first = await readTranscriptInParts(transcript(), { ...options, room: room(4096) });
    expect(first.requests).toBeGreaterThan(first.parts);
    expect(first.notes.length).toBeLessThan(first.parts);
    const again = await readTranscriptInParts(transcript(), { ...options, room: room(4096) });
    expect(again).toMatchObject({ requests: 0, notes: first.notes });
  });

  it('reads in smaller parts once the server shows a smaller window, cut silently or refused', async () => {
    for (const failure of ['silent', 'refused'] as const) {
      const vault = contextVault();
      const r = room(32_768, 4096);
      const model: ModelClient = {
        api: 'chat-completions',
        async complete(request) {
          const size = countTokens(JSON.stringify(request.messages));
          if (size > 3000 && failure === 'refused') {
            throw new ModelError("This model's maximum context length is 4096 tokens.", { kind: 'http', status: 400 });
          }
          return { content: '- notes', toolCalls: [], usage: { inputTokens: Math.min(size, 4096), outputTokens: 5 } };
        },
      };
      const result = await readTranscriptInParts(transcript(), {
        model,
        retry: { attempts: 0, delayMs: 0 },
        log: silentLogger,
        vault,
        contextPath: vault.abs(CONTEXT),
        notesRoom: () => 100_000,
        room: r,
      });
      expect(r.shrunk, failure).toEqual([4096]);
      expect(result.requests).toBe(result.parts + 1);
      const section = parseNotesSection(parseNote(await vault.read(vault.abs(CONTEXT))).body)!;
      expect(section.parts.at(-1)!.to).toBe(lines.length);
    }
  });

  it('keeps the last part when the condensing request after it fails: a retry reads no part again', async () => {
    const vault = contextVault();
    let failing = true;
    const { model, requests } = notesModel((request) => {
      if (failing && /Condense them/.test(JSON.stringify(request.messages))) throw new ModelError('HTTP 503: overloaded', { kind: 'http', status: 503 });
    });
    const options = { model, retry: { attempts: 0, delayMs: 0 }, log: silentLogger, vault, contextPath: vault.abs(CONTEXT), notesRoom: () => 20 };
    await expect(readTranscriptInParts(transcript(), { ...options, room: room(4096) })).rejects.toThrow(/overloaded/);
    const saved = parseNotesSection(parseNote(await vault.read(vault.abs(CONTEXT))).body)!;
    expect(saved.parts.at(-1)!.to).toBe(lines.length);
    const parts = saved.parts.length;
    expect(requests.filter((r) => /Write the notes of lines/.test(JSON.stringify(r.messages)))).toHaveLength(parts);

    failing = false;
    const before = requests.length;
    const again = await readTranscriptInParts(transcript(), { ...options, room: room(4096) });
    expect(again.reused).toBe(parts);
    expect(requests.slice(before).some((r) => /Write the notes of lines/.test(JSON.stringify(r.messages)))).toBe(false);
  });

  it("takes Ollama's cut (2,050 of 4,096 kept) as a window of 4,096, not 2,050", async () => {
    const vault = contextVault();
    const r = room(32_768, 4096);
    const model: ModelClient = {
      api: 'chat-completions',
      async complete(request) {
        const size = estimateRequestTokens(request);
        return { content: '- notes', toolCalls: [], usage: { inputTokens: size > 4096 ? 4 + (4096 - 4) / 2 : size, outputTokens: 5 } };
      },
    };
    const options = { model, retry: { attempts: 0, delayMs: 0 }, log: silentLogger, vault, contextPath: vault.abs(CONTEXT), notesRoom: () => 100_000 };
    const result = await readTranscriptInParts(transcript(), { ...options, room: r });
    expect(r.shrunk).toEqual([4096]);
    expect(result.requests).toBe(result.parts + 1);
    // The context note remembers the window: the next pass (a retry, the live notes of a
    // growing transcript) sizes its parts for it from the start, without a cut request.
    expect(parseNotesSection(parseNote(await vault.read(vault.abs(CONTEXT))).body)?.window).toBe(4096);
    const next = room(32_768, 4096);
    const changed = { ...transcript(), lines: [...lines.slice(0, -1), '[03:00:00] Alice: One more thing.'] };
    const again = await readTranscriptInParts(changed, { ...options, room: next });
    expect(next.shrunk).toEqual([4096]);
    expect(again).toMatchObject({ requests: 1, reused: result.parts - 1 });
  });

  it('fails at once, not after reading every part, when a server that keeps only what it cut to leaves the agent no room', async () => {
    const vault = contextVault();
    const r = room(32_768, 4096);
    const { model, requests } = notesModel();
    // A server whose window is 2,050 and that keeps all of it: its cut looks like Ollama's of 4,096.
    const keepsAll: ModelClient = {
      api: 'chat-completions',
      async complete(request) {
        const answer = await model.complete(request);
        return { ...answer, usage: { inputTokens: Math.min(2050, estimateRequestTokens(request)), outputTokens: 5 } };
      },
    };
    // Too long for the room 32,768 leaves: read in parts.
    await vault.write(vault.abs('Meetings/Transcripts/Long.md'), `${transcriptNote(30_000).join('\n')}\n`);
    const reading = notesForLongTranscript({
      vault,
      model: keepsAll,
      retry: { attempts: 0, delayMs: 0 },
      log: silentLogger,
      room: r,
      carried: 1500,
      meeting: { transcriptPath: vault.abs('Meetings/Transcripts/Long.md'), contextPath: vault.abs(CONTEXT), title: 'M', projects: [] } as unknown as MeetingArtifacts,
    });
    await expect(reading).rejects.toThrow(WindowOverflowError);
    // The first cut is taken for Ollama's (4,096); the next, at the same count, teaches 2,050.
    expect(r.shrunk).toEqual([4096, 2050]);
    expect(requests).toHaveLength(2);
  });
});

describe('which transcripts are read into notes', () => {
  it('not a binary one, nor one that would take over a hundred parts: the agent reads those itself', async () => {
    const { model, requests } = notesModel();
    const files = {
      [CONTEXT]: '---\ntitle: M\n---\n',
      'Meetings/Transcripts/Binary.md': Buffer.concat([Buffer.from('---\nstate: finished\n---\n'), Buffer.alloc(64, 0)]).toString('latin1'),
      'Meetings/Transcripts/Huge.md': `---\nstate: finished\n---\n${'[00:00:01] Alice: the same words again and again.\n'.repeat(40_000)}`,
      'Meetings/Transcripts/Long.md': `${lines.join('\n')}\n`,
    };
    const vault = memoryVault(files);
    const run = (name: string) =>
      notesForLongTranscript({
        vault,
        model,
        retry: { attempts: 0, delayMs: 0 },
        log: silentLogger,
        room: room(4096),
        carried: 500,
        meeting: { transcriptPath: vault.abs(`Meetings/Transcripts/${name}.md`), contextPath: vault.abs(CONTEXT), title: 'M', projects: [] } as unknown as MeetingArtifacts,
      });
    expect(await run('Binary')).toBeUndefined();
    expect(await run('Huge')).toBeUndefined();
    // Nor one that became a symbolic link to the token during the run (issue #43 point 1): the agent's read refuses it too.
    await vault.fs.mkdir(vault.abs('.meeting-assistant'), { recursive: true });
    await vault.fs.writeFile(vault.abs('.meeting-assistant/token'), `${lines.join('\n')}\n`);
    await (vault.fs as unknown as { symlink(t: string, p: string): Promise<void> }).symlink(vault.abs('.meeting-assistant/token'), vault.abs('Meetings/Transcripts/Linked.md'));
    expect(await run('Linked')).toBeUndefined();
    expect(requests).toHaveLength(0);
    expect(await run('Long')).toMatch(/^The transcript \(\d+ lines\) is longer than your context window holds/);
    expect(requests.length).toBeGreaterThan(2);
  });
});

describe('condensing notes that do not fit', () => {
  it('condenses groups of parts level by level until they fit, keeping their line ranges', async () => {
    const notes = Array.from({ length: 12 }, (_, i) => ({ from: i * 100 + 1, to: i * 100 + 100, text: `- ${'point '.repeat(150)}` }));
    let requests = 0;
    const call = Object.defineProperty(
      async (request: ModelRequest) => {
        requests++;
        const words = Number(/at most (\d+) words/.exec((request.messages[0] as { content: string }).content)![1]);
        return { text: `- ${'gist '.repeat(Math.max(1, words - 1))}` };
      },
      'requests',
      { get: () => requests },
    ) as NotesCall;
    const out = await condenseNotes(notes, { room: { maxOutputTokens: 1024 }, notesRoom: 400, partTokens: () => 1000, call, log: silentLogger });
    expect(out.reduce((n, note) => n + countTokens(note.text), 0)).toBeLessThanOrEqual(400 * 1.15);
    expect(out[0]!.from).toBe(1);
    expect(out.at(-1)!.to).toBe(1200);
    for (let i = 1; i < out.length; i++) expect(out[i]!.from).toBe(out[i - 1]!.to + 1);
    expect(requests).toBeGreaterThan(1);
  });
});

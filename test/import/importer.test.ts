import { readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { ImportError } from '../../src/import/cues.js';
import { isRetryTicked, writeFailureNote } from '../../src/import/failure-note.js';
import { importFile, recoverImports, type ImportDeps } from '../../src/import/importer.js';
import type { Fs } from '../../src/vault/files/fs.js';
import { parseNote } from '../../src/vault/format/frontmatter.js';
import { Vault } from '../../src/vault/files/vault.js';
import { memoryFs, testConfig } from '../helpers/memfs.js';

const FIXTURES = path.join(path.dirname(fileURLToPath(import.meta.url)), '..', 'fixtures', 'import');
const TEAMS = readFileSync(path.join(FIXTURES, 'teams-voice-tags.vtt'), 'utf8');
const clock = () => new Date('2026-12-02T12:00:00Z');

function setup(files: Record<string, string | null> = {}, fs: Fs = memoryFs(files)) {
  const vault = new Vault(fs, testConfig().layout);
  const deps: ImportDeps = { vault, clock };
  return { vault, deps, fs };
}

const note = async (vault: Vault, rel: string) => parseNote(await vault.read(vault.abs(rel)));

describe('an import (docs/design.md §9)', () => {
  it('makes the meeting, transcript and context notes, linked, and moves the original to Sources', async () => {
    const { vault, deps } = setup({ 'Meetings/Inbox/2026-12-02 1000 Weekly Sync.vtt': TEAMS });
    const outcome = await importFile(deps, { file: vault.abs('Meetings/Inbox/2026-12-02 1000 Weekly Sync.vtt'), keep: 'move' });
    expect(outcome).toEqual({
      kind: 'imported',
      meeting: 'Meetings/2026-12-02 1000 Weekly Sync.md',
      transcript: 'Meetings/Transcripts/2026-12-02 1000 Weekly Sync.md',
      context: 'Meetings/Context/2026-12-02 1000 Weekly Sync.md',
      summary: 'Meetings/Summaries/2026-12-02 1000 Weekly Sync.md',
      source: 'Meetings/Sources/2026-12-02 1000 Weekly Sync.vtt',
      unread: [],
    });
    const meeting = await note(vault, outcome.meeting);
    expect(meeting.data).toMatchObject({
      title: 'Weekly Sync',
      attendees: ['Alice Example', 'Bob Builder'],
      projects: [],
      source: '[[Meetings/Sources/2026-12-02 1000 Weekly Sync.vtt]]',
      transcript: '[[Meetings/Transcripts/2026-12-02 1000 Weekly Sync]]',
      context: '[[Meetings/Context/2026-12-02 1000 Weekly Sync]]',
      summary: '[[Meetings/Summaries/2026-12-02 1000 Weekly Sync]]',
    });
    expect(new Date(String(meeting.data.start_time)).getTime()).toBe(new Date(2026, 11, 2, 10, 0).getTime());
    expect(new Date(String(meeting.data.end_time)).getTime()).toBe(new Date(2026, 11, 2, 10, 0, 15).getTime());
    const transcript = await vault.read(vault.abs(outcome.kind === 'imported' ? outcome.transcript : ''));
    expect(transcript).toBe(
      '---\nmeeting: "[[Meetings/2026-12-02 1000 Weekly Sync]]"\nstate: finished\n---\n' +
        "[00:00:05] Alice Example: Good morning, let's start with the release. The notes are in the channel.\n" +
        '[00:00:12] Bob Builder: The build is green since Friday.\n',
    );
    const context = await note(vault, 'Meetings/Context/2026-12-02 1000 Weekly Sync.md');
    expect(context.data).toMatchObject({ title: 'Weekly Sync', meeting: '[[Meetings/2026-12-02 1000 Weekly Sync]]', state: 'collecting metadata', agenda: '' });
    expect(await vault.exists(vault.abs('Meetings/Inbox/2026-12-02 1000 Weekly Sync.vtt'))).toBe(false);
    expect(await vault.read(vault.abs('Meetings/Sources/2026-12-02 1000 Weekly Sync.vtt'))).toBe(TEAMS);
  });

  it("takes Zoom's UTC start, leaves generic speakers out of attendees, binds the project of the inbox subfolder", async () => {
    const srt = '1\n00:00:00,000 --> 00:00:02,000\n[SPEAKER_00]: Hello.\n\n2\n00:00:02,000 --> 00:00:04,000\nAlice: Hi.\n';
    const { vault, deps } = setup({ 'Meetings/Inbox/Alpha/GMT20261202-090000_Recording.transcript.srt': srt, 'Projects/Alpha/README.md': '# Alpha\n' });
    const outcome = await importFile(deps, { file: vault.abs('Meetings/Inbox/Alpha/GMT20261202-090000_Recording.transcript.srt'), keep: 'move' });
    const meeting = await note(vault, outcome.meeting);
    expect(new Date(String(meeting.data.start_time)).toISOString()).toBe('2026-12-02T09:00:00.000Z');
    expect(meeting.data).toMatchObject({ title: 'Recording', attendees: ['Alice'], projects: ['Alpha'] });
  });

  it('without a date in the name, starts at the modification time minus the duration', async () => {
    const { vault, deps, fs } = setup({ 'Meetings/Inbox/call.vtt': TEAMS });
    const mtime = new Date('2026-12-02T10:30:15.500Z');
    await (fs as unknown as { utimes(p: string, a: Date, m: Date): Promise<void> }).utimes(vault.abs('Meetings/Inbox/call.vtt'), mtime, mtime);
    const outcome = await importFile(deps, { file: vault.abs('Meetings/Inbox/call.vtt'), keep: 'move' });
    const meeting = await note(vault, outcome.meeting);
    expect(new Date(String(meeting.data.start_time)).toISOString()).toBe('2026-12-02T10:30:00.000Z');
    expect(meeting.data.title).toBe('call');
  });

  it('the command line copies (the original stays) and may set title, projects and start', async () => {
    const { vault, deps } = setup({ '/elsewhere/x.txt': 'Alice: hi\n' });
    const start = new Date(2026, 11, 3, 14, 5);
    const outcome = await importFile(deps, { file: '/elsewhere/x.txt', keep: 'copy', title: 'Board: Q4', projects: ['Beta'], start });
    expect(outcome.meeting).toBe('Meetings/2026-12-03 1405 Board- Q4.md');
    expect((await note(vault, outcome.meeting)).data).toMatchObject({ title: 'Board: Q4', projects: ['Beta'] });
    expect(await vault.read('/elsewhere/x.txt')).toBe('Alice: hi\n');
  });

  it('the same content again is no second meeting: kept beside the first in Sources', async () => {
    const { vault, deps } = setup({ 'Meetings/Inbox/a.vtt': TEAMS, 'Meetings/Inbox/b.vtt': TEAMS });
    const first = await importFile(deps, { file: vault.abs('Meetings/Inbox/a.vtt'), keep: 'move' });
    const second = await importFile(deps, { file: vault.abs('Meetings/Inbox/b.vtt'), keep: 'move' });
    expect(second).toEqual({ kind: 'duplicate', meeting: first.meeting, source: 'Meetings/Sources/b.vtt' });
    expect(await vault.listMarkdown(vault.layout.folders.Transcripts)).toHaveLength(1);
    expect(await vault.exists(vault.abs('Meetings/Inbox/b.vtt'))).toBe(false);
  });

  it('two files of one name and minute get distinct notes and sources', async () => {
    const { vault, deps } = setup({ 'Meetings/Inbox/2026-12-02 1000 Sync.vtt': TEAMS, 'Meetings/Inbox/x/2026-12-02 1000 Sync.vtt': TEAMS + '\n00:00:20.000 --> 00:00:21.000\n<v Bob>More.\n' });
    await importFile(deps, { file: vault.abs('Meetings/Inbox/2026-12-02 1000 Sync.vtt'), keep: 'move' });
    const second = await importFile(deps, { file: vault.abs('Meetings/Inbox/x/2026-12-02 1000 Sync.vtt'), keep: 'move' });
    expect(second).toMatchObject({ meeting: 'Meetings/2026-12-02 1000 Sync (2).md', source: 'Meetings/Sources/2026-12-02 1000 Sync (2).vtt' });
  });

  it('a bad file is an ImportError and nothing moves', async () => {
    const { vault, deps } = setup({ 'Meetings/Inbox/empty.vtt': '', 'Meetings/Inbox/x.pdf': '%PDF' });
    await expect(importFile(deps, { file: vault.abs('Meetings/Inbox/empty.vtt'), keep: 'move' })).rejects.toThrow(ImportError);
    await expect(importFile(deps, { file: vault.abs('Meetings/Inbox/x.pdf'), keep: 'move' })).rejects.toThrow(/not a format/);
    expect(await vault.exists(vault.abs('Meetings/Inbox/x.pdf'))).toBe(true);
    expect(await vault.exists(vault.layout.folders.Sources)).toBe(false);
  });

  it('a recording without a transcriber: the error says how to set one', async () => {
    const { vault, deps } = setup({ 'Meetings/Inbox/call.m4a': 'audio' });
    const err = (await importFile(deps, { file: vault.abs('Meetings/Inbox/call.m4a'), keep: 'move' }).catch((e: unknown) => e)) as ImportError;
    expect(err).toBeInstanceOf(ImportError);
    expect(err.hint).toMatch(/Import\.TranscribeCommand.*whisper-cli.*\{input\}.*whisperx/);
  });

  it('a recording goes through the transcriber; the recording is the source', async () => {
    const { vault } = setup({ 'Meetings/Inbox/2026-12-02 0900 Call.mp3': 'audio' });
    const seen: string[] = [];
    const deps: ImportDeps = {
      vault,
      clock,
      onStage: (s) => seen.push(s),
      transcribe: async (file) => {
        seen.push(vault.rel(file));
        return { name: 'out.json', bytes: Buffer.from(JSON.stringify({ segments: [{ start: 0, end: 1, text: ' hi', speaker: 'SPEAKER_00' }] })) };
      },
    };
    const outcome = await importFile(deps, { file: vault.abs('Meetings/Inbox/2026-12-02 0900 Call.mp3'), keep: 'move' });
    expect(seen).toEqual(['transcribing', 'Meetings/Inbox/2026-12-02 0900 Call.mp3', 'importing']);
    expect(outcome).toMatchObject({ source: 'Meetings/Sources/2026-12-02 0900 Call.mp3' });
    expect(await vault.read(vault.abs('Meetings/Transcripts/2026-12-02 0900 Call.md'))).toMatch(/\[00:00:00\] SPEAKER_00: hi\n$/);
  });

  it('a successful import moves the old error note to .trash/', async () => {
    const { vault, deps } = setup({ 'Meetings/Inbox/a.vtt': TEAMS });
    const file = vault.abs('Meetings/Inbox/a.vtt');
    const failure = await writeFailureNote(vault, file, { message: 'x', hint: 'y' }, clock);
    expect(vault.rel(failure)).toBe('Meetings/Inbox/a.vtt (import failed).md');
    await importFile(deps, { file, keep: 'move' });
    expect(await vault.exists(failure)).toBe(false);
    expect(await vault.exists(vault.abs('.trash/Meetings/Inbox/a.vtt (import failed).md'))).toBe(true);
  });
});

describe('the original kept in Sources', () => {
  it("loses the characters a wikilink cannot carry, so the meeting's source link reaches it; the bytes are the same", async () => {
    const name = 'Team call #1 [[x]] | a: b^c 🎉.vtt';
    const { vault, deps } = setup({ [`Meetings/Inbox/${name}`]: TEAMS });
    const outcome = await importFile(deps, { file: vault.abs(`Meetings/Inbox/${name}`), keep: 'move' });
    expect(outcome.source).toBe('Meetings/Sources/Team call -1 --x-- - a- b-c 🎉.vtt');
    expect(await vault.read(vault.abs(outcome.source))).toBe(TEAMS);
    const meeting = await note(vault, outcome.meeting);
    expect(meeting.data.source).toBe(`[[${outcome.source}]]`);
  });
});

describe('the error note', () => {
  it('has status, retry: false, source, failed_at and what to do; retry ticked is recognised', async () => {
    const { vault } = setup({ 'Meetings/Inbox/x.pdf': '%PDF' });
    const file = vault.abs('Meetings/Inbox/x.pdf');
    const n = await writeFailureNote(vault, file, { message: 'x.pdf: ".pdf" is not a format', hint: 'export it as .vtt', stderr: 'boom' }, clock);
    const text = await vault.read(n);
    expect(parseNote(text).data).toEqual({ status: 'failed', retry: false, source: '[[Meetings/Inbox/x.pdf]]', failed_at: '2026-12-02T12:00:00Z' });
    expect(text).toMatch(/# Import failed: x\.pdf[\s\S]*not a format[\s\S]*\*\*What to do:\*\* export it as \.vtt[\s\S]*tick `retry`[\s\S]*boom/);
    expect(isRetryTicked(text)).toBe(false);
    expect(isRetryTicked(text.replace('retry: false', 'retry: true'))).toBe(true);
  });
});

/**
 * Crash safety: the n-th change the import makes to the disk is where the process dies (that
 * call and every later one fail, as nothing runs after a kill). A new process then recovers.
 * Whatever n, the vault holds the file in the inbox and no meeting, or a complete meeting
 * and the original in Sources; never half of one.
 */
describe('a crash at each step of an import', () => {
  const MUTATING = new Set(['writeFile', 'open', 'rename', 'unlink', 'rm', 'mkdir', 'copyFile', 'chmod']);

  function crashingFs(fs: Fs, at: number): { fs: Fs; crashed: () => boolean } {
    let calls = 0;
    let dead = false;
    const wrapped = new Proxy(fs, {
      get(target, prop, receiver) {
        const value = Reflect.get(target, prop, receiver) as unknown;
        if (typeof value !== 'function') return value;
        return (...args: unknown[]) => {
          if (dead) return Promise.reject(new Error('killed'));
          if (MUTATING.has(String(prop)) && ++calls === at) {
            dead = true;
            return Promise.reject(new Error(`killed at ${String(prop)}`));
          }
          return (value as (...a: unknown[]) => unknown).apply(target, args);
        };
      },
    });
    return { fs: wrapped, crashed: () => dead };
  }

  it('leaves the file in the inbox or a complete meeting, for every step', async () => {
    const inbox = 'Meetings/Inbox/2026-12-02 1000 Sync.vtt';
    const reference = setup({ [inbox]: TEAMS });
    const expected = await importFile(reference.deps, { file: reference.vault.abs(inbox), keep: 'move' });
    const expectedNotes = await Promise.all([expected.meeting, (expected as { transcript: string }).transcript, (expected as { context: string }).context].map((p) => reference.vault.read(reference.vault.abs(p))));

    const outcomes = new Set<string>();
    for (let at = 1; ; at++) {
      const base = memoryFs({ [inbox]: TEAMS, [`${inbox} (import failed).md`]: '---\nstatus: failed\nretry: true\n---\n' });
      const crashing = crashingFs(base, at);
      const dying = setup({}, crashing.fs);
      const finished = await importFile(dying.deps, { file: dying.vault.abs(inbox), keep: 'move' }).then(
        () => true,
        (err: unknown) => {
          if (!crashing.crashed()) throw err;
          return false;
        },
      );
      const after = setup({}, base);
      await recoverImports(after.vault, clock);
      const inInbox = await after.vault.exists(after.vault.abs(inbox));
      const notes = [
        ...(await after.vault.listMarkdown(after.vault.layout.folders.Transcripts)),
        ...(await after.vault.listMarkdown(after.vault.layout.folders.Context)),
        ...(await after.vault.listMarkdown(after.vault.layout.folders.Meetings)).filter((p) => after.vault.kindOf(p) === 'meeting'),
      ];
      const staging = await after.vault.fs.readdir(after.vault.abs('.meeting-assistant/imports'), { withFileTypes: true }).catch(() => []);
      expect(staging, `staging left after a crash at step ${at}`).toEqual([]);
      if (inInbox) {
        expect(notes, `half a meeting after a crash at step ${at}`).toEqual([]);
        expect(await after.vault.exists(after.vault.abs('Meetings/Sources/2026-12-02 1000 Sync.vtt'))).toBe(false);
        outcomes.add('in inbox');
        // The next attempt imports it.
        const again = await importFile(after.deps, { file: after.vault.abs(inbox), keep: 'move' });
        expect(again.meeting).toBe(expected.meeting);
      } else {
        outcomes.add('complete');
        expect(await after.vault.read(after.vault.abs('Meetings/Sources/2026-12-02 1000 Sync.vtt'))).toBe(TEAMS);
      }
      const got = await Promise.all([expected.meeting, (expected as { transcript: string }).transcript, (expected as { context: string }).context].map((p) => after.vault.read(after.vault.abs(p))));
      expect(got, `notes after a crash at step ${at}`).toEqual(expectedNotes);
      expect(await after.vault.exists(after.vault.abs(`${inbox} (import failed).md`))).toBe(false);
      if (finished) break;
    }
    expect(outcomes).toEqual(new Set(['in inbox', 'complete']));
  });
});

describe('recovery and the pid in a plan', () => {
  it("a committed import whose plan names a live process's pid is left to it while recent, completed once old (a reused pid)", async () => {
    const inbox = 'Meetings/Inbox/2026-12-02 1000 Sync.vtt';
    const base = memoryFs({ [inbox]: TEAMS });
    // Cut right after the commit point (the original moved): the notes are still staged.
    const dying = setup({}, new Proxy(base, {
      get(target, prop, receiver) {
        const value = Reflect.get(target, prop, receiver) as unknown;
        if (typeof value !== 'function') return value;
        return (...args: unknown[]) => (prop === 'rename' && String(args[0]).includes('/imports/') && !String(args[1]).includes('/imports/') ? Promise.reject(new Error('killed')) : (value as (...a: unknown[]) => unknown).apply(target, args));
      },
    }));
    await expect(importFile(dying.deps, { file: dying.vault.abs(inbox), keep: 'move' })).rejects.toThrow('killed');
    const after = setup({}, base);
    const [entry] = await base.readdir(after.vault.abs('.meeting-assistant/imports'), { withFileTypes: true });
    const planFile = after.vault.abs(`.meeting-assistant/imports/${entry!.name}/plan.json`);
    const plan = JSON.parse(await after.vault.read(planFile)) as { pid: number };
    await base.writeFile(planFile, JSON.stringify({ ...plan, pid: process.ppid }));
    expect(await recoverImports(after.vault, clock)).toEqual({ completed: [], dropped: 0, failed: [] });
    const later = await recoverImports(after.vault, clock, Date.now() + 3600_000);
    expect(later.completed).toEqual(['Meetings/2026-12-02 1000 Sync.md']);
    expect(await after.vault.exists(after.vault.abs('Meetings/Transcripts/2026-12-02 1000 Sync.md'))).toBe(true);
  });
});

describe("the example vault's inbox sample", () => {
  it('imports as a Beta meeting with its three speakers', async () => {
    const rel = 'Meetings/Inbox/Beta/2026-12-01 1600 Northwind SSO call.vtt';
    const text = readFileSync(path.join(FIXTURES, '..', '..', '..', 'example-vault', rel), 'utf8');
    const { vault, deps } = setup({ [rel]: text, 'Projects/Beta/Overview.md': '# Beta\n' });
    const outcome = await importFile(deps, { file: vault.abs(rel), keep: 'move' });
    expect(outcome.meeting).toBe('Meetings/2026-12-01 1600 Northwind SSO call.md');
    expect((await note(vault, outcome.meeting)).data).toMatchObject({ title: 'Northwind SSO call', projects: ['Beta'], attendees: ['Carol Jensen', 'Priya', 'Bob Schmidt'] });
    const lines = (await vault.read(vault.abs('Meetings/Transcripts/2026-12-01 1600 Northwind SSO call.md'))).split('\n').filter((l) => l.startsWith('['));
    expect(lines.length).toBeGreaterThanOrEqual(8);
  });
});

describe('a recording', () => {
  it('is hashed in chunks, never read whole: a duplicate recording is found without the transcriber', async () => {
    const { vault, fs } = setup({ 'Meetings/Inbox/a.wav': 'RIFF audio', 'Meetings/Inbox/b.wav': 'RIFF audio' });
    const reads: string[] = [];
    const original = fs.readFile.bind(fs);
    fs.readFile = async (file: string) => {
      reads.push(String(file));
      return original(file);
    };
    let transcribed = 0;
    const deps: ImportDeps = {
      vault,
      clock,
      transcribe: async () => {
        transcribed++;
        return { name: 'a.txt', bytes: Buffer.from('Alice: hello\n') };
      },
    };
    await importFile(deps, { file: vault.abs('Meetings/Inbox/a.wav'), keep: 'move' });
    const second = await importFile(deps, { file: vault.abs('Meetings/Inbox/b.wav'), keep: 'move' });
    expect(second.kind).toBe('duplicate');
    expect(transcribed).toBe(1);
    expect(reads.filter((r) => r.endsWith('.wav'))).toEqual([]);
  });
});

import { describe, expect, test } from 'vitest';
import {
  CONTEXT_STATES,
  InvalidStateError,
  appendToContextBody,
  createContextNote,
  isContextState,
  readContextState,
  setContextState,
  splitContextBody,
  startSummarizing,
} from '../../../src/vault/notes/context.js';
import { FrontmatterError, parseNote } from '../../../src/vault/format/frontmatter.js';
import type { MeetingArtifacts } from '../../../src/vault/notes/meeting.js';
import { Vault } from '../../../src/vault/files/vault.js';
import { countFsCalls, memoryFs, memoryVault, testConfig } from '../../helpers/memfs.js';

const CTX = '/vault/Meetings/Context/2026-11-30 Weekly Sync.md';

const artifacts: MeetingArtifacts = {
  meetingPath: '/vault/Meetings/2026-11-30 Weekly Sync.md',
  transcriptPath: '/vault/Meetings/Transcripts/2026-11-30 Weekly Sync.md',
  contextPath: CTX,
  summaryPath: '/vault/Meetings/Summaries/2026-11-30 Weekly Sync.md',
  title: 'Weekly Sync',
  startTime: '2026-11-30T09:00:00+01:00',
  endTime: undefined,
  attendees: ['Alice'],
  projects: ['Alpha'],
};

describe('createContextNote', () => {
  test('creates the note with every key, in order, links in the daemon’s form', async () => {
    const vault = memoryVault();
    expect(await createContextNote(vault, artifacts)).toBe(true);
    expect(await vault.read(CTX)).toBe(
      [
        '---',
        'title: Weekly Sync',
        'start_time: 2026-11-30T09:00:00+01:00',
        'end_time: ""',
        'meeting: "[[Meetings/2026-11-30 Weekly Sync]]"',
        'transcript: "[[Meetings/Transcripts/2026-11-30 Weekly Sync]]"',
        'summary: "[[Meetings/Summaries/2026-11-30 Weekly Sync]]"',
        'state: collecting metadata',
        'agenda: ""',
        '---',
        '',
      ].join('\n'),
    );
  });

  test('adds scheduled_end when given, and takes state, agenda and body', async () => {
    const vault = memoryVault();
    await createContextNote(vault, { ...artifacts, title: undefined }, {
      state: 'transcribing',
      agenda: 'Release; budget',
      scheduledEnd: '2026-11-30T10:00:00+01:00',
      body: '## Notebook\n',
    });
    const note = parseNote(await vault.read(CTX));
    expect(Object.keys(note.data)).toEqual([
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
    expect(note.data).toMatchObject({
      title: '',
      state: 'transcribing',
      agenda: 'Release; budget',
      scheduled_end: '2026-11-30T10:00:00+01:00',
    });
    expect(note.body).toBe('## Notebook\n');
  });

  test('never overwrites an existing note', async () => {
    const vault = memoryVault({ 'Meetings/Context/2026-11-30 Weekly Sync.md': 'mine' });
    expect(await createContextNote(vault, artifacts, { state: 'summarizing' })).toBe(false);
    expect(await vault.read(CTX)).toBe('mine');
  });

  test('a note a person creates between the check and the write is left alone', async () => {
    const fs = memoryFs();
    const mkdir = fs.mkdir.bind(fs);
    let created = false;
    // The person's note appears as the daemon gets ready to write (its folder being made).
    fs.mkdir = async (dir, options) => {
      const out = await mkdir(dir, options);
      if (!created && dir === '/vault/Meetings/Context') {
        created = true;
        await fs.writeFile(CTX, 'mine, just typed');
      }
      return out;
    };
    const vault = new Vault(fs, testConfig().layout);
    expect(await createContextNote(vault, artifacts, { state: 'summarizing' })).toBe(false);
    expect(created).toBe(true);
    expect(await vault.read(CTX)).toBe('mine, just typed');
  });

  test('an invalid initial state is refused', async () => {
    const vault = memoryVault();
    await expect(createContextNote(vault, artifacts, { state: 'done' as never })).rejects.toBeInstanceOf(InvalidStateError);
    expect(await vault.exists(CTX)).toBe(false);
  });
});

describe('setContextState', () => {
  const existing = [
    '---',
    'title: Weekly Sync',
    'start_time: 2026-11-30T09:00:00+01:00',
    'end_time: ""',
    'meeting: "[[Meetings/2026-11-30 Weekly Sync]]"',
    'transcript: "[[Meetings/Transcripts/2026-11-30 Weekly Sync]]"',
    'summary: "[[Meetings/Summaries/2026-11-30 Weekly Sync]]"',
    'state: transcribing',
    "agenda: 'Release, budget'",
    'scheduled_end: 2026-11-30T10:00:00+01:00',
    'owner: Alice   # added by a person',
    '---',
    'Notebook text.',
    '',
  ].join('\n');

  test('changes only the state line, keeping agenda, scheduled_end, a custom key with its comment, and key order', async () => {
    const vault = memoryVault({ 'Meetings/Context/2026-11-30 Weekly Sync.md': existing });
    await setContextState(vault, CTX, 'summarizing');
    expect(await vault.read(CTX)).toBe(existing.replace('state: transcribing', 'state: summarizing'));
  });

  test('extra keys are set in place or appended', async () => {
    const vault = memoryVault({ 'Meetings/Context/2026-11-30 Weekly Sync.md': existing });
    await setContextState(vault, CTX, 'finished', { end_time: '2026-11-30T09:47:00+01:00', run: 'abc' });
    expect(await vault.read(CTX)).toBe(
      existing
        .replace('state: transcribing', 'state: finished')
        .replace('end_time: ""', 'end_time: "2026-11-30T09:47:00+01:00"')
        .replace('# added by a person\n', '# added by a person\nrun: abc\n'),
    );
  });

  test('an invalid state is refused and the file is unchanged', async () => {
    const vault = memoryVault({ 'Meetings/Context/2026-11-30 Weekly Sync.md': existing });
    const writes: string[] = [];
    vault.onWrite((p) => writes.push(p));
    const err = await setContextState(vault, CTX, 'done').catch((e: unknown) => e);
    expect(err).toBeInstanceOf(InvalidStateError);
    expect((err as Error).message).toContain('collecting metadata');
    expect(await vault.read(CTX)).toBe(existing);
    expect(writes).toEqual([]);
  });

  test('the six states and nothing else', () => {
    expect(CONTEXT_STATES).toEqual(['collecting metadata', 'transcribing', 'speaker recognition', 'summarizing', 'finished', 'error']);
    for (const s of CONTEXT_STATES) expect(isContextState(s)).toBe(true);
    for (const s of ['Finished', 'done', '', undefined, 3]) expect(isContextState(s)).toBe(false);
  });
});

describe('readContextState', () => {
  test('reads the state; missing note or unknown state is undefined; broken YAML throws', async () => {
    const vault = memoryVault({
      'a.md': '---\nstate: speaker recognition\n---\n',
      'b.md': '---\nstate: Finished \n---\n',
      'c.md': '---\nstate: bogus\n---\n',
      'd.md': '---\nstate: [\n---\n',
    });
    expect(await readContextState(vault, '/vault/a.md')).toBe('speaker recognition');
    expect(await readContextState(vault, '/vault/b.md')).toBe('finished');
    expect(await readContextState(vault, '/vault/c.md')).toBeUndefined();
    expect(await readContextState(vault, '/vault/none.md')).toBeUndefined();
    await expect(readContextState(vault, '/vault/d.md')).rejects.toBeInstanceOf(FrontmatterError);
  });
});

describe('appendToContextBody', () => {
  test('appends a block after one blank line, leaving the frontmatter alone', async () => {
    const text = '---\nstate: finished # c\n---\nNotebook line.\n\n\n';
    const vault = memoryVault({ 'Meetings/Context/x.md': text });
    await appendToContextBody(vault, '/vault/Meetings/Context/x.md', '## External changes\n\n### a.md\n');
    expect(await vault.read('/vault/Meetings/Context/x.md')).toBe(
      '---\nstate: finished # c\n---\nNotebook line.\n\n## External changes\n\n### a.md\n',
    );
  });

  test('an empty body just gets the block; CRLF notes stay CRLF', async () => {
    const vault = memoryVault({ 'a.md': '---\r\nstate: error\r\n---\r\n', 'b.md': '---\r\na: 1\r\n---\r\nold\r\n' });
    await appendToContextBody(vault, '/vault/a.md', 'Block\nline 2');
    expect(await vault.read('/vault/a.md')).toBe('---\r\nstate: error\r\n---\r\nBlock\r\nline 2\r\n');
    await appendToContextBody(vault, '/vault/b.md', 'new');
    expect(await vault.read('/vault/b.md')).toBe('---\r\na: 1\r\n---\r\nold\r\n\r\nnew\r\n');
  });

  test('re-reads the file at that moment', async () => {
    const vault = memoryVault({ 'a.md': '---\nstate: summarizing\n---\nfirst\n' });
    await vault.fs.writeFile('/vault/a.md', '---\nstate: summarizing\nmine: 1\n---\nfirst\nedited by a person\n');
    await appendToContextBody(vault, '/vault/a.md', 'appended');
    expect(await vault.read('/vault/a.md')).toBe('---\nstate: summarizing\nmine: 1\n---\nfirst\nedited by a person\n\nappended\n');
  });

  test('a note whose frontmatter does not parse is not rewritten', async () => {
    const vault = memoryVault({ 'a.md': '---\nstate: [\n---\nbody\n' });
    await expect(appendToContextBody(vault, '/vault/a.md', 'x')).rejects.toBeInstanceOf(FrontmatterError);
    expect(await vault.read('/vault/a.md')).toBe('---\nstate: [\n---\nbody\n');
  });
});

describe('splitContextBody: the notebook, then the daemon\'s record', () => {
  test('the record starts at the first of the daemon\'s own sections: an error section with no audit before it is record, not notebook', () => {
    const error = '## Error (2026-11-30T10:00:00.000Z)\n\nThe summary was written, but the run then failed: x\n';
    const audit = '## External changes (2026-11-30T11:00:00.000Z)\n\n### Projects/Alpha/notes.md\n';
    expect(splitContextBody(`My notes\n\n${error}`)).toEqual({ notebook: 'My notes\n', record: error });
    expect(splitContextBody(`My notes\n\n${error}\n${audit}`)).toEqual({ notebook: 'My notes\n', record: `${error}\n${audit}` });
    expect(splitContextBody(`My notes\n## Errors I saw\n`)).toEqual({ notebook: 'My notes\n## Errors I saw\n', record: '' });
  });
});

describe('startSummarizing (a run begins, docs/design.md §2 "Summarize")', () => {
  const transcript = '---\nstate: finished\n---\n[00:00:05] A: hi\n[00:42:10] B: bye\n';

  test("a new note is written once, summarizing, with the end time from the transcript's last stamp", async () => {
    const vault = memoryVault({ 'Meetings/Transcripts/2026-11-30 Weekly Sync.md': transcript });
    const writes: string[] = [];
    vault.onWrite((p) => writes.push(p));
    await startSummarizing(vault, artifacts, new Date('2026-12-02T10:00:00Z'));
    expect(writes).toEqual([CTX]);
    expect(parseNote(await vault.read(CTX)).data).toMatchObject({ state: 'summarizing', end_time: '2026-11-30T09:42:10+01:00' });
  });

  test('a note with an end time of its own is set summarizing without a look at the transcript', async () => {
    const vault = memoryVault({
      'Meetings/Transcripts/2026-11-30 Weekly Sync.md': transcript,
      'Meetings/Context/2026-11-30 Weekly Sync.md': '---\nstate: collecting metadata\nend_time: 2026-11-30T10:00:00+01:00\n---\nnotes\n',
    });
    const calls = countFsCalls(vault.fs);
    const read = vault.fs.readFile.bind(vault.fs);
    const asked: string[] = [];
    vault.fs.readFile = (file, options) => (asked.push(String(file)), read(file, options));
    await startSummarizing(vault, artifacts, new Date('2026-12-02T10:00:00Z'));
    expect(asked).not.toContain(artifacts.transcriptPath);
    expect(calls.readFile).toBeGreaterThan(0);
    expect(parseNote(await vault.read(CTX))).toMatchObject({ data: { state: 'summarizing', end_time: '2026-11-30T10:00:00+01:00' }, body: 'notes\n' });
  });
});

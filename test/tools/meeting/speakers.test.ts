import { describe, expect, it } from 'vitest';
import { TRANSCRIPT, TRANSCRIPT_NOTE, harness, symlink } from '../../helpers/tool-harness.js';

describe('override_speaker', () => {
  it('relabels every line spoken by the speaker (plain and bold labels), never the spoken text', async () => {
    const h = harness();
    const r = await h.call('override_speaker', { speaker: 'Speaker 2', name: 'Bob' });
    expect(r).toEqual({ isError: false, content: 'Relabelled 3 transcript lines from "Speaker 2" to "Bob".' });
    expect(await h.read(TRANSCRIPT)).toBe(
      [
        '---',
        'meeting: "[[Meetings/2026-11-30 Weekly Sync]]"',
        'state: finished',
        '---',
        "[00:00:05] Alice: Good morning, let's start with the release.",
        '[00:00:12] Bob: The build is green since Friday. Speaker 2: says hi.',
        '[00:00:20] **Bob**: Speaker 2 will ship on Monday.',
        '[00:00:31] **Bob:** Alice agrees.',
        '[00:00:40] Alice: Speaker 2: thanks.',
        '',
      ].join('\n'),
    );
  });

  it('is audited as removed and added label lines', async () => {
    const h = harness();
    await h.call('override_speaker', { speaker: 'speaker 2', name: 'Bob' });
    const audit = h.ctx.audit.render(new Date('2026-11-30T10:00:00Z'));
    expect(audit).toContain(`### ${TRANSCRIPT}`);
    expect(audit).toContain('-[00:00:12] Speaker 2: The build is green since Friday. Speaker 2: says hi.');
    expect(audit).toContain('+[00:00:12] Bob: The build is green since Friday. Speaker 2: says hi.');
  });

  it('keeps CRLF line endings and the frontmatter untouched', async () => {
    const crlf = TRANSCRIPT_NOTE.replace(/\n/g, '\r\n');
    const h = harness({ files: { [TRANSCRIPT]: crlf } });
    await h.call('override_speaker', { speaker: 'Alice', name: 'Alicia' });
    const text = (await h.read(TRANSCRIPT))!;
    expect(text).toBe(crlf.replace('] Alice: Good', '] Alicia: Good').replace('] Alice: Speaker', '] Alicia: Speaker'));
  });

  it('an unknown speaker is an Error naming the speakers, and changes nothing', async () => {
    const h = harness();
    const r = await h.call('override_speaker', { speaker: 'Speaker 9', name: 'Bob' });
    expect(r).toEqual({ isError: true, content: 'Error: no transcript line is spoken by "Speaker 9". Speakers in the transcript: Alice, Speaker 2.' });
    expect(await h.read(TRANSCRIPT)).toBe(TRANSCRIPT_NOTE);
    expect(h.ctx.audit.isEmpty).toBe(true);
  });

  it('refuses a name that would break the label format', async () => {
    const h = harness();
    const r = await h.call('override_speaker', { speaker: 'Speaker 2', name: 'Bob: the builder' });
    expect(r.isError).toBe(true);
    expect(await h.read(TRANSCRIPT)).toBe(TRANSCRIPT_NOTE);
  });
});

describe('delete_identity', () => {
  it("moves the identity's file to .trash/, destroying nothing, and records where it went", async () => {
    const h = harness();
    const r = await h.call('delete_identity', { name: 'bob' });
    expect(r.content).toBe('Moved the identity "bob" to the trash: Meetings/Speakers/Bob.md -> .trash/Meetings/Speakers/Bob.md.');
    expect(await h.vault.exists('/vault/Meetings/Speakers/Bob.md')).toBe(false);
    expect(await h.read('.trash/Meetings/Speakers/Bob.md')).toBe('---\nname: Bob\n---\nvoice profile of Bob\n');
    const audit = h.ctx.audit.render(new Date('2026-11-30T10:00:00Z'));
    expect(audit).toContain('### Meetings/Speakers/Bob.md\nMoved to `.trash/Meetings/Speakers/Bob.md`.\n```diff\n@@ -1,4 +0,0 @@\n----\n-name: Bob\n----\n-voice profile of Bob\n```');
  });

  it('keeps an earlier trashed file with the same name', async () => {
    const h = harness({ files: { '.trash/Meetings/Speakers/Bob.md': 'older' } });
    await h.call('delete_identity', { name: 'Bob' });
    expect(await h.read('.trash/Meetings/Speakers/Bob.md')).toBe('older');
    const trashed = await h.fs.readdir('/vault/.trash/Meetings/Speakers', { withFileTypes: true });
    expect(trashed).toHaveLength(2);
  });

  it('an unknown identity is an Error listing the identities', async () => {
    const h = harness();
    const r = await h.call('delete_identity', { name: 'Dave' });
    expect(r).toEqual({ isError: true, content: 'Error: there is no identity "Dave" in Meetings/Speakers/. Identities: Bob, Carol.' });
  });

  it('refuses names that are paths and links that leave the identities folder', async () => {
    const h = harness({ files: { '/outside/Eve.md': 'eve' } });
    await symlink(h.fs, '/outside/Eve.md', '/vault/Meetings/Speakers/Eve.md');
    const before = await h.snapshot();
    for (const name of ['../Glossary', '/vault/Meetings/Speakers/Bob', 'sub\\Bob', 'Eve']) {
      const r = await h.call('delete_identity', { name });
      expect(r.isError, name).toBe(true);
    }
    expect(await h.snapshot()).toEqual(before);
  });
});

describe('add_dictation_word', () => {
  it('appends a new word and is audited', async () => {
    const h = harness();
    expect((await h.call('add_dictation_word', { word: 'Obsidian' })).content).toBe('Added "Obsidian" to the dictionary Meetings/Dictionary.md.');
    expect(await h.read('Meetings/Dictionary.md')).toBe('Kubernetes\nAnthropic\nObsidian\n');
    expect(h.ctx.audit.files).toEqual(['Meetings/Dictionary.md']);
  });

  it('does nothing for a word already there, in any case', async () => {
    const h = harness();
    expect((await h.call('add_dictation_word', { word: 'kubernetes' })).content).toBe('"kubernetes" is already in the dictionary; nothing changed.');
    expect(await h.read('Meetings/Dictionary.md')).toBe('Kubernetes\nAnthropic\n');
    expect(h.ctx.audit.isEmpty).toBe(true);
  });

  it('creates a missing dictionary, and refuses multi-line words', async () => {
    const h = harness({ files: { 'Meetings/Dictionary.md': null } });
    await h.call('add_dictation_word', { word: 'Zürich' });
    expect(await h.read('Meetings/Dictionary.md')).toBe('Zürich\n');
    expect((await h.call('add_dictation_word', { word: 'a\nb' })).content).toBe('Error: the word must be a single line.');
  });

  it('refuses a "word" longer than any name (a looping model), changing nothing', async () => {
    const h = harness();
    const result = await h.call('add_dictation_word', { word: 'x'.repeat(1_000_000) });
    expect(result.content).toMatch(/^Error: the word is 1000000 characters long; give one word or name of at most 100 characters\.$/);
    expect(await h.read('Meetings/Dictionary.md')).toBe('Kubernetes\nAnthropic\n');
    expect(h.ctx.audit.isEmpty).toBe(true);
  });
});

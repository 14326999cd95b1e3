import { describe, expect, it } from 'vitest';
import { CONTEXT, harness } from '../../helpers/tool-harness.js';

/** docs/design.md §1: an edit by line numbers of a file someone changed since the agent read it is refused. */

const NOTES = 'Projects/Alpha/notes.md';
const person = async (h: ReturnType<typeof harness>, rel: string, text: string) => h.fs.writeFile(h.vault.abs(rel), text);

describe('stale agent edits', () => {
  it('write_projectfile by range, insert or replace_file on a file changed since read_projectfile is refused; an append goes through', async () => {
    const h = harness();
    await h.call('read_projectfile', { project: 'Alpha', path: 'notes.md' });
    await person(h, NOTES, 'Person line 0\nAlpha line 1\nAlpha line 2\nAlpha line 3\n');
    for (const edit of [{ from: 1, to: 1 }, { insert: 2 }, { replace_file: true }]) {
      const r = await h.call('write_projectfile', { project: 'Alpha', path: 'notes.md', content: 'agent', ...edit });
      expect(r.content).toBe(
        'Error: Projects/Alpha/notes.md changed since you last read it (someone else edited it); read it again with read_projectfile and redo this edit with the current line numbers. Nothing was changed.',
      );
    }
    expect(await h.read(NOTES)).toBe('Person line 0\nAlpha line 1\nAlpha line 2\nAlpha line 3\n');
    const appended = await h.call('write_projectfile', { project: 'Alpha', path: 'notes.md', content: 'agent appended' });
    expect(appended.isError).toBe(false);
    // Read again: the line numbers are current, the edit goes through.
    await h.call('read_projectfile', { project: 'Alpha', path: 'notes.md', from: 1, to: 1 });
    const r = await h.call('write_projectfile', { project: 'Alpha', path: 'notes.md', content: 'Person line zero', from: 1, to: 1 });
    expect(r.isError).toBe(false);
    expect(await h.read(NOTES)).toBe('Person line zero\nAlpha line 1\nAlpha line 2\nAlpha line 3\nagent appended\n');
    // Its own write is what it last saw: a second range edit needs no new read.
    const again = await h.call('write_projectfile', { project: 'Alpha', path: 'notes.md', content: 'Alpha line one', from: 2, to: 2 });
    expect(again.isError).toBe(false);
  });

  it('write_projectfile by range or insert on an existing file never read in this run is refused (line numbers from a search are not a read); an append or a new file goes through', async () => {
    const h = harness();
    const found = await h.call('search', { keywords: 'Alpha line 2' });
    expect(found.content).toContain('Projects/Alpha/notes.md:2:Alpha line 2');
    await person(h, NOTES, 'Person line 0\nAlpha line 1\nAlpha line 2\nAlpha line 3\n');
    for (const edit of [{ from: 2, to: 2 }, { insert: 2 }]) {
      const r = await h.call('write_projectfile', { project: 'Alpha', path: 'notes.md', content: 'agent', ...edit });
      expect(r.content).toBe(
        'Error: you have not read Projects/Alpha/notes.md in this run; read it first with read_projectfile, then redo this edit with its current line numbers. Nothing was changed.',
      );
    }
    expect(await h.read(NOTES)).toBe('Person line 0\nAlpha line 1\nAlpha line 2\nAlpha line 3\n');
    expect((await h.call('write_projectfile', { project: 'Alpha', path: 'notes.md', content: 'agent appended' })).isError).toBe(false);
    // An append to a file never read is not a read either.
    expect((await h.call('write_projectfile', { project: 'Alpha', path: 'notes.md', content: 'x', from: 1, to: 1 })).isError).toBe(true);
    // A file the agent creates is one it has seen: a range edit of it needs no read.
    expect((await h.call('write_projectfile', { project: 'Alpha', path: 'new.md', content: 'one\ntwo', replace_file: true })).isError).toBe(false);
    expect((await h.call('write_projectfile', { project: 'Alpha', path: 'new.md', content: 'TWO', from: 2, to: 2 })).isError).toBe(false);
    expect(await h.read('Projects/Alpha/new.md')).toBe('one\nTWO\n');
    expect(await h.read(NOTES)).toBe('Person line 0\nAlpha line 1\nAlpha line 2\nAlpha line 3\nagent appended\n');
  });

  it('write_projectfile replace_file replaces a file never read in this run (docs/design.md §4, as the seed says), the previous version first copied to .trash/', async () => {
    const h = harness();
    await person(h, NOTES, 'Person line 0\nAlpha line 1\n');
    const r = await h.call('write_projectfile', { project: 'Alpha', path: 'notes.md', content: 'all new', replace_file: true });
    expect(r).toEqual({ isError: false, content: 'Replaced Projects/Alpha/notes.md (1 lines) (the previous version is in .trash/); it now has 1 lines.' });
    expect(await h.read(NOTES)).toBe('all new\n');
    expect(await h.read('.trash/Projects/Alpha/notes.md')).toBe('Person line 0\nAlpha line 1\n');
    // Its own write is now what it saw: a second replacement goes through, the first version stays in the trash.
    expect((await h.call('write_projectfile', { project: 'Alpha', path: 'notes.md', content: 'newer', replace_file: true })).isError).toBe(false);
    expect(await h.read('.trash/Projects/Alpha/notes.md')).toBe('Person line 0\nAlpha line 1\n');
    expect(await h.read(NOTES)).toBe('newer\n');
    // Changed by a person since the agent's last look: still refused, nothing copied.
    await person(h, NOTES, 'a person wrote this\n');
    const stale = await h.call('write_projectfile', { project: 'Alpha', path: 'notes.md', content: 'x', replace_file: true });
    expect(stale.content).toMatch(/^Error: Projects\/Alpha\/notes.md changed since you last read it/);
    expect(await h.read(NOTES)).toBe('a person wrote this\n');
  });

  it('write_context replace/insert on a notebook changed since read_context is refused; overwrite goes through', async () => {
    const h = harness();
    await h.call('read_context');
    const text = (await h.read(CONTEXT))!;
    await person(h, CONTEXT, text.replace('Notebook line 2', 'Edited by a person'));
    const r = await h.call('write_context', { mode: 'replace', from: 2, to: 2, content: 'x' });
    expect(r.content).toMatch(/^Error: the context note body changed since you last read it .*read it again with read_context/);
    expect((await h.call('write_context', { mode: 'insert', line: 1, content: 'x' })).isError).toBe(true);
    expect(await h.read(CONTEXT)).toContain('Edited by a person');
    // A change of the frontmatter only (the daemon's state) is no change of the notebook.
    await h.call('read_context');
    await person(h, CONTEXT, (await h.read(CONTEXT))!.replace('state: summarizing', 'state: finished'));
    expect((await h.call('write_context', { mode: 'insert', line: 1, content: 'first' })).isError).toBe(false);
  });

  it('write_context replace in a notebook never read in this run is refused (it would delete lines never seen); an insert goes through', async () => {
    const h = harness();
    const r = await h.call('write_context', { mode: 'replace', from: 1, to: 1, content: 'x' });
    expect(r.content).toMatch(/^Error: you have not read the context note body in this run; read it first with read_context/);
    expect(await h.read(CONTEXT)).toContain('Notebook line 1');
    expect((await h.call('write_context', { mode: 'insert', line: 1, content: 'first' })).isError).toBe(false);
    // Its own write counts as seen: a replace right after needs no read.
    expect((await h.call('write_context', { mode: 'replace', from: 1, to: 1, content: 'First' })).isError).toBe(false);
  });

  it('write_context overwrite keeps the audit record below the notebook; read_context shows the notebook only', async () => {
    const audit = '## External changes (2026-11-29T10:00:00.000Z)\n\n### Projects/Alpha/notes.md\n```diff\n@@ -1,0 +1,1 @@\n+x\n```\n';
    const h = harness({ files: { [CONTEXT]: `---\nstate: summarizing\n---\nOld notebook\n\n${audit}` } });
    const read = await h.call('read_context');
    expect(read.content).toBe(`${CONTEXT} (lines 1-1 of 1)\n     1\tOld notebook`);
    expect((await h.call('write_context', { mode: 'overwrite', content: 'New notebook\nline 2' })).isError).toBe(false);
    expect(await h.read(CONTEXT)).toBe(`---\nstate: summarizing\n---\nNew notebook\nline 2\n\n${audit}`);
    expect((await h.call('write_context', { mode: 'replace', from: 2, to: 2, content: 'line two' })).isError).toBe(false);
    expect(await h.read(CONTEXT)).toBe(`---\nstate: summarizing\n---\nNew notebook\nline two\n\n${audit}`);
  });
});

import { describe, expect, it } from 'vitest';
import { harness, symlink } from '../../helpers/tool-harness.js';

const header = (content: string) => content.split('\n')[0];

describe('list_projects and reading project files', () => {
  it("list_projects returns the meeting's project folders and names listed ones that do not exist", async () => {
    const h = harness({ meeting: { projects: ['Alpha', 'beta', 'Delta'] } });
    const r = await h.call('list_projects');
    expect(r.content).toBe(
      'Projects of this meeting (2):\n- Alpha (Projects/Alpha/)\n- Beta (Projects/Beta/)\nListed in the meeting note but without a project folder: Delta',
    );
    expect(r.content).not.toContain('Gamma');
  });

  it('list_projectfiles lists project-relative paths, sorted, skipping hidden files', async () => {
    const h = harness({ files: { 'Projects/Alpha/.git/config': 'x', 'Projects/Alpha/b/z.md': 'z' } });
    const r = await h.call('list_projectfiles', { project: 'Alpha' });
    expect(r.content).toBe('Files of project Alpha (Projects/Alpha/): 3\nb/z.md\ndocs/decisions.md\nnotes.md');
  });

  it('project tools accept any existing project folder, and refuse a missing one', async () => {
    const h = harness();
    expect((await h.call('read_projectfile', { project: 'Gamma', path: 'secret.md' })).isError).toBe(false);
    const r = await h.call('list_projectfiles', { project: 'Omega' });
    expect(r.content).toBe('Error: there is no project folder "Omega" in Projects/. Existing projects: Alpha, Beta, Gamma.');
  });

  it('reading a project file with bounds outside the file clamps without failing', async () => {
    const h = harness();
    const r = await h.call('read_projectfile', { project: 'Alpha', path: 'notes.md', from: -3, to: 99 });
    expect(r).toEqual({
      isError: false,
      content: 'Projects/Alpha/notes.md (lines 1-3 of 3)\n     1\tAlpha line 1\n     2\tAlpha line 2\n     3\tAlpha line 3',
    });
    const tail = await h.call('read_projectfile', { project: 'Alpha', path: 'notes.md', from: 3, to: 99 });
    expect(tail.content).toBe('Projects/Alpha/notes.md (lines 3-3 of 3)\n     3\tAlpha line 3');
    const past = await h.call('read_projectfile', { project: 'Alpha', path: 'notes.md', from: 10 });
    expect(past.isError).toBe(false);
    expect(header(past.content)).toMatch(/^Projects\/Alpha\/notes.md \(lines 0-0 of 3\): no lines/);
  });

  it('read_projectfile refuses a binary file and a missing file with Errors', async () => {
    const h = harness({ files: { 'Projects/Alpha/image.png': 'PNG\0\0data' } });
    expect((await h.call('read_projectfile', { project: 'Alpha', path: 'image.png' })).content).toMatch(/^Error: .*binary file/);
    expect((await h.call('read_projectfile', { project: 'Alpha', path: 'nope.md' })).content).toMatch(/^Error: project Alpha has no file "nope.md"/);
  });
});

describe('write_projectfile', () => {
  it('appends to an existing file', async () => {
    const h = harness();
    const r = await h.call('write_projectfile', { project: 'Alpha', path: 'notes.md', content: 'Alpha line 4' });
    expect(r.content).toBe('Appended 1 lines to Projects/Alpha/notes.md; it now has 4 lines.');
    expect(await h.read('Projects/Alpha/notes.md')).toBe('Alpha line 1\nAlpha line 2\nAlpha line 3\nAlpha line 4\n');
  });

  it('appending adds the missing newline between old and new text', async () => {
    const h = harness({ files: { 'Projects/Alpha/raw.md': 'no newline' } });
    await h.call('write_projectfile', { project: 'Alpha', path: 'raw.md', content: 'next\n' });
    expect(await h.read('Projects/Alpha/raw.md')).toBe('no newline\nnext\n');
  });

  it('creates a missing file and its folders', async () => {
    const h = harness();
    const r = await h.call('write_projectfile', { project: 'Beta', path: 'meetings/log.md', content: '# Log\nFirst entry' });
    expect(r.content).toBe('Created Projects/Beta/meetings/log.md (2 lines); it now has 2 lines.');
    expect(await h.read('Projects/Beta/meetings/log.md')).toBe('# Log\nFirst entry\n');
  });

  it('replaces the whole file with replace_file', async () => {
    const h = harness();
    await h.call('read_projectfile', { project: 'Alpha', path: 'notes.md' });
    await h.call('write_projectfile', { project: 'Alpha', path: 'notes.md', content: 'Only line', replace_file: true });
    expect(await h.read('Projects/Alpha/notes.md')).toBe('Only line\n');
  });

  it('replaces an inclusive range', async () => {
    const h = harness();
    await h.call('read_projectfile', { project: 'Alpha', path: 'notes.md' });
    const r = await h.call('write_projectfile', { project: 'Alpha', path: 'notes.md', content: 'New 2\nNew 2b', from: '2', to: 3 });
    expect(r.content).toBe('Replaced lines 2-3 of Projects/Alpha/notes.md with 2 lines; it now has 3 lines.');
    expect(await h.read('Projects/Alpha/notes.md')).toBe('Alpha line 1\nNew 2\nNew 2b\n');
  });

  it('an empty content with a range deletes the lines', async () => {
    const h = harness();
    await h.call('read_projectfile', { project: 'Alpha', path: 'notes.md' });
    await h.call('write_projectfile', { project: 'Alpha', path: 'notes.md', content: '', from: 1, to: 2 });
    expect(await h.read('Projects/Alpha/notes.md')).toBe('Alpha line 3\n');
  });

  it('inserts before a line, and at line count + 1 appends', async () => {
    const h = harness();
    await h.call('read_projectfile', { project: 'Alpha', path: 'notes.md' });
    await h.call('write_projectfile', { project: 'Alpha', path: 'notes.md', content: 'Inserted', insert: 2 });
    await h.call('write_projectfile', { project: 'Alpha', path: 'notes.md', content: 'End', insert: 5 });
    expect(await h.read('Projects/Alpha/notes.md')).toBe('Alpha line 1\nInserted\nAlpha line 2\nAlpha line 3\nEnd\n');
  });

  it('keeps CRLF line endings of an existing file', async () => {
    const h = harness({ files: { 'Projects/Alpha/win.md': 'a\r\nb\r\n' } });
    await h.call('read_projectfile', { project: 'Alpha', path: 'win.md' });
    await h.call('write_projectfile', { project: 'Alpha', path: 'win.md', content: 'x', insert: 2 });
    expect(await h.read('Projects/Alpha/win.md')).toBe('a\r\nx\r\nb\r\n');
  });

  it('every write goes through the audit', async () => {
    const h = harness();
    await h.call('write_projectfile', { project: 'Alpha', path: 'notes.md', content: 'Alpha line 4' });
    expect(h.ctx.audit.files).toEqual(['Projects/Alpha/notes.md']);
  });

  it('refuses a missing project', async () => {
    const h = harness();
    const before = await h.snapshot();
    const r = await h.call('write_projectfile', { project: 'Omega', path: 'a.md', content: 'x' });
    expect(r.content).toMatch(/^Error: there is no project folder "Omega"/);
    expect(await h.snapshot()).toEqual(before);
  });

  it.each([
    ['a ".." segment', '../Beta/roadmap.md'],
    ['a ".." segment deeper', 'docs/../../Gamma/secret.md'],
    ['an absolute path', '/vault/Projects/Beta/roadmap.md'],
    ['a drive letter', 'C:/Windows/win.ini'],
    ['a Windows separator', 'docs\\decisions.md'],
    ['a Windows-style escape', '..\\Beta\\roadmap.md'],
    ['a NUL byte', 'notes.md\0.txt'],
    ['a home path', '~/notes.md'],
  ])('refuses an escaping path with %s, changing nothing', async (_what, p) => {
    const h = harness();
    const before = await h.snapshot();
    for (const extra of [{}, { replace_file: true }, { insert: 1 }]) {
      const r = await h.call('write_projectfile', { project: 'Alpha', path: p, content: 'pwned', ...extra });
      expect(r.isError).toBe(true);
      expect(r.content).toMatch(/^Error: the path /);
    }
    expect((await h.call('read_projectfile', { project: 'Alpha', path: p })).isError).toBe(true);
    expect(await h.snapshot()).toEqual(before);
  });

  it('refuses a project name that is a path', async () => {
    const h = harness();
    const before = await h.snapshot();
    for (const project of ['../Meetings', 'Alpha/docs', '..', '/etc']) {
      const r = await h.call('write_projectfile', { project, path: 'x.md', content: 'pwned' });
      expect(r.content).toMatch(/^Error: .* is not a valid project name/);
    }
    expect(await h.snapshot()).toEqual(before);
  });

  it('refuses symbolic links that point outside the project (file, folder, dangling), changing nothing', async () => {
    const h = harness({ files: { '/outside/secret.md': 'outside secret\n' } });
    await symlink(h.fs, '/outside/secret.md', '/vault/Projects/Alpha/linked.md');
    await symlink(h.fs, '/outside', '/vault/Projects/Alpha/out');
    await symlink(h.fs, '/vault/Projects/Beta', '/vault/Projects/Alpha/beta');
    await symlink(h.fs, '/outside/new.md', '/vault/Projects/Alpha/dangling.md');
    const before = await h.snapshot();
    for (const p of ['linked.md', 'out/secret.md', 'out/created.md', 'beta/roadmap.md', 'dangling.md']) {
      const w = await h.call('write_projectfile', { project: 'Alpha', path: p, content: 'pwned', replace_file: true });
      expect(w.isError, p).toBe(true);
      const r = await h.call('read_projectfile', { project: 'Alpha', path: p });
      expect(r.isError, p).toBe(true);
      expect(r.content).not.toContain('outside secret');
    }
    expect(await h.snapshot()).toEqual(before);
    // Links that stay inside the project are fine.
    await symlink(h.fs, '/vault/Projects/Alpha/notes.md', '/vault/Projects/Alpha/alias.md');
    expect((await h.call('read_projectfile', { project: 'Alpha', path: 'alias.md' })).isError).toBe(false);
    const listed = (await h.call('list_projectfiles', { project: 'Alpha' })).content;
    expect(listed).toContain('alias.md');
    expect(listed).not.toContain('linked.md');
    expect(listed).not.toContain('out/');
  });

  it('uses the real folder name for a differently-cased project name', async () => {
    const h = harness();
    const r = await h.call('write_projectfile', { project: 'ALPHA', path: 'notes.md', content: 'x' });
    expect(r.content).toContain('Projects/Alpha/notes.md');
    expect(await h.vault.exists('/vault/Projects/ALPHA')).toBe(false);
  });

  it('refuses writing hidden files such as .git/config', async () => {
    const h = harness();
    const r = await h.call('write_projectfile', { project: 'Alpha', path: '.git/hooks/post-commit', content: 'rm -rf /' });
    expect(r.content).toMatch(/^Error: hidden files and folders/);
    expect(await h.vault.exists('/vault/Projects/Alpha/.git')).toBe(false);
  });

  it.each([
    ['replace_file with from/to', { replace_file: true, from: 1, to: 2 }, /replace_file cannot be combined/],
    ['replace_file with insert', { replace_file: true, insert: 1 }, /replace_file cannot be combined/],
    ['insert with from/to', { insert: 1, from: 1, to: 1 }, /insert cannot be combined/],
    ['insert with only from', { insert: 1, from: 1 }, /insert cannot be combined/],
    ['only from', { from: 1 }, /give both from and to/],
    ['only to', { to: 2 }, /give both from and to/],
    ['a range past the end', { from: 2, to: 4 }, /the range 2-4 is outside Projects\/Alpha\/notes.md, which has 3 lines/],
    ['a range starting at 0', { from: 0, to: 1 }, /the range 0-1 is outside/],
    ['a reversed range', { from: 3, to: 2 }, /the range 3-2 is outside/],
    ['insert past line count + 1', { insert: 5 }, /cannot insert before line 5: Projects\/Alpha\/notes.md has 3 lines/],
    ['insert at 0', { insert: 0 }, /cannot insert before line 0/],
    ['a negative insert', { insert: -1 }, /cannot insert before line -1/],
  ])('refuses %s, changing nothing', async (_what, extra, message) => {
    const h = harness();
    await h.call('read_projectfile', { project: 'Alpha', path: 'notes.md' });
    const before = await h.snapshot();
    const r = await h.call('write_projectfile', { project: 'Alpha', path: 'notes.md', content: 'x', ...extra });
    expect(r.isError).toBe(true);
    expect(r.content).toMatch(/^Error: /);
    expect(r.content).toMatch(message);
    expect(await h.snapshot()).toEqual(before);
    expect(h.ctx.audit.isEmpty).toBe(true);
  });

  it('refuses a range edit of a file that does not exist, creating nothing', async () => {
    const h = harness();
    const r = await h.call('write_projectfile', { project: 'Alpha', path: 'new.md', content: 'x', from: 1, to: 1 });
    expect(r.content).toMatch(/^Error: Projects\/Alpha\/new.md does not exist/);
    expect(await h.vault.exists('/vault/Projects/Alpha/new.md')).toBe(false);
  });

  it('refuses to edit a binary file', async () => {
    const h = harness({ files: { 'Projects/Alpha/blob.bin': 'a\0b' } });
    const r = await h.call('write_projectfile', { project: 'Alpha', path: 'blob.bin', content: 'x' });
    expect(r.content).toMatch(/^Error: .*binary file/);
  });
});

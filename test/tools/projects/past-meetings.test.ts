import { describe, expect, it } from 'vitest';
import { PastSummaryIndex } from '../../../src/tools/cache/past-index.js';
import { TOOLS } from '../../../src/tools/registry.js';
import { SUMMARY, harness, summaryNote, symlink } from '../../helpers/tool-harness.js';

// The base vault: the meeting is on Alpha (X) and Beta (Y); summaries exist for Alpha, Beta
// and Gamma (Z), plus (here) the current meeting's own summary.
const CURRENT = summaryNote('Weekly Sync', '2026-11-30T09:00:00+01:00', ['Alpha', 'Beta']);
const files = { [SUMMARY]: CURRENT };

describe('list_past_project_meetings', () => {
  it('lists summaries of X and Y, not Z nor the current summary, newest first', async () => {
    const h = harness({ files });
    const r = await h.call('list_past_project_meetings');
    expect(r.content).toBe(
      [
        'Past meetings of Alpha, Beta: page 1 of 1 (2 summaries, newest first)',
        'Meetings/Summaries/2026-11-23 Alpha Sync.md | Alpha Sync | 2026-11-23T09:00:00+01:00 | Alpha',
        'Meetings/Summaries/2026-11-16 Beta Review.md | Beta Review | 2026-11-16T09:00:00+01:00 | Beta',
      ].join('\n'),
    );
    expect(r.content).not.toContain('Gamma');
    expect(r.content).not.toContain('Weekly Sync.md');
  });

  it('filters on a requested project of the meeting', async () => {
    const h = harness({ files });
    const r = await h.call('list_past_project_meetings', { projects: 'Beta' });
    expect(r.content.split('\n')).toEqual([
      'Past meetings of Beta: page 1 of 1 (1 summaries, newest first)',
      'Meetings/Summaries/2026-11-16 Beta Review.md | Beta Review | 2026-11-16T09:00:00+01:00 | Beta',
    ]);
  });

  it('refuses a filter on Z, a project not assigned to the meeting', async () => {
    const h = harness({ files });
    const r = await h.call('list_past_project_meetings', { projects: ['Alpha', 'Gamma'] });
    expect(r).toEqual({
      isError: true,
      content: 'Error: project "Gamma" is not assigned to this meeting, so its history is not available here. This meeting\'s projects: Alpha, Beta.',
    });
  });

  it('reads only Folders.Summaries and skips failure reports', async () => {
    const h = harness({
      files: {
        ...files,
        'Meetings/Other Alpha.md': summaryNote('Not a summary', '2026-11-29T09:00:00Z', ['Alpha']),
        'Meetings/Summaries/2026-11-28 Broken.md': summaryNote('Broken', '2026-11-28T09:00:00Z', ['Alpha'], 'failed'),
      },
    });
    const r = await h.call('list_past_project_meetings');
    expect(r.content).not.toContain('Not a summary');
    expect(r.content).not.toContain('Broken');
    expect(r.content).toContain('(2 summaries');
  });

  it('pages newest first: page from 1, page_size default 20, at most 100', async () => {
    const many: Record<string, string> = {};
    for (let i = 1; i <= 25; i++) {
      const day = String(i).padStart(2, '0');
      many[`Meetings/Summaries/2026-10-${day} Alpha.md`] = summaryNote(`Alpha ${day}`, `2026-10-${day}T09:00:00Z`, ['Alpha']);
    }
    const h = harness({ files: many, meeting: { projects: ['Alpha'] } });
    const p1 = (await h.call('list_past_project_meetings')).content.split('\n');
    expect(p1[0]).toBe('Past meetings of Alpha: page 1 of 2 (26 summaries, newest first)');
    expect(p1).toHaveLength(21);
    expect(p1[1]).toContain('2026-11-23 Alpha Sync.md');
    expect(p1[2]).toContain('Alpha 25');
    const p2 = (await h.call('list_past_project_meetings', { page: 2 })).content.split('\n');
    expect(p2[0]).toBe('Past meetings of Alpha: page 2 of 2 (26 summaries, newest first)');
    expect(p2.slice(1).map((l) => l.split(' | ')[1])).toEqual(['Alpha 06', 'Alpha 05', 'Alpha 04', 'Alpha 03', 'Alpha 02', 'Alpha 01']);
    const small = (await h.call('list_past_project_meetings', { page: '3', page_size: '10' })).content.split('\n');
    expect(small[0]).toBe('Past meetings of Alpha: page 3 of 3 (26 summaries, newest first)');
    expect(small).toHaveLength(7);
    const huge = (await h.call('list_past_project_meetings', { page_size: 500 })).content.split('\n');
    expect(huge[0]).toBe('Past meetings of Alpha: page 1 of 1 (26 summaries, newest first)');
    expect(huge[1]).toBe('page_size 500 is above the maximum; using 100.');
    const beyond = await h.call('list_past_project_meetings', { page: 9 });
    expect(beyond.isError).toBe(false);
    expect(beyond.content).toContain('page 9 is past the last page; pages run from 1 to 2');
  });
});

describe('read_past_project_meeting_summary', () => {
  const X = 'Meetings/Summaries/2026-11-23 Alpha Sync.md';

  it('reads a past X summary, with bounds returning the clamped range', async () => {
    const h = harness({ files });
    const whole = await h.call('read_past_project_meeting_summary', { path: X });
    expect(whole.content.split('\n')[0]).toBe(`${X} (lines 1-8 of 8)`);
    const r = await h.call('read_past_project_meeting_summary', { path: X, from: 7, to: 50 });
    expect(r).toEqual({ isError: false, content: `${X} (lines 7-8 of 8)\n     7\t## Summary\n     8\tPlanned the release.` });
  });

  it('accepts a [[link]], a bare note name and a path relative to the summaries folder', async () => {
    const h = harness({ files });
    for (const path of ['[[Meetings/Summaries/2026-11-23 Alpha Sync]]', '[[2026-11-23 Alpha Sync|alias]]', '2026-11-23 Alpha Sync.md']) {
      const r = await h.call('read_past_project_meeting_summary', { path, from: 2, to: 2 });
      expect(r.content, path).toBe(`${X} (lines 2-2 of 8)\n     2\ttitle: Alpha Sync`);
    }
  });

  it("refuses the current meeting's summary, including by link and by a differently-cased path", async () => {
    const h = harness({ files });
    for (const path of [SUMMARY, '[[2026-11-30 Weekly Sync]]', SUMMARY.replace('Weekly Sync', 'weekly sync')]) {
      const r = await h.call('read_past_project_meeting_summary', { path });
      expect(r.isError, path).toBe(true);
      expect(r.content).not.toContain('Planned the release');
    }
    const r = await h.call('read_past_project_meeting_summary', { path: SUMMARY });
    expect(r.content).toBe("Error: that is this meeting's own summary, not a past one; write it with write_summary.");
  });

  it('refuses a Z summary', async () => {
    const h = harness({ files });
    const r = await h.call('read_past_project_meeting_summary', { path: 'Meetings/Summaries/2026-11-20 Gamma Plan.md' });
    expect(r.content).toBe(
      'Error: Meetings/Summaries/2026-11-20 Gamma Plan.md belongs to projects Gamma, none of which is assigned to this meeting (Alpha, Beta); refused.',
    );
  });

  it('refuses files outside the summaries folder, escaping paths and links out of it', async () => {
    const h = harness({ files: { ...files, '/outside/x.md': summaryNote('Out', '2026-01-01', ['Alpha']) } });
    await symlink(h.fs, '/outside/x.md', '/vault/Meetings/Summaries/linked.md');
    await symlink(h.fs, '/vault/Meetings/2026-11-30 Weekly Sync.md', '/vault/Meetings/Summaries/meeting-link.md');
    const cases = [
      'Meetings/2026-11-30 Weekly Sync.md',
      'Projects/Alpha/notes.md',
      'Meetings/Context/2026-11-30 Weekly Sync.md',
      '../outside/x.md',
      'Meetings/Summaries/../2026-11-30 Weekly Sync.md',
      '/vault/Meetings/Summaries/2026-11-23 Alpha Sync.md',
      'Meetings\\Summaries\\2026-11-23 Alpha Sync.md',
      'Meetings/Summaries/2026-11-23 Alpha Sync.md\0',
      'Meetings/Summaries/linked.md',
      'Meetings/Summaries/meeting-link.md',
    ];
    for (const path of cases) {
      const r = await h.call('read_past_project_meeting_summary', { path });
      expect(r.isError, path).toBe(true);
      expect(r.content, path).toMatch(/^Error: /);
    }
  });

  it('no tool can write a past summary', async () => {
    const h = harness({ files });
    const before = await h.snapshot();
    // The only tools that write are these; none takes a summary path.
    const writers = TOOLS.filter((t) => /^(write|add|remove|override|delete)_/.test(t.name)).map((t) => t.name);
    expect(writers.sort()).toEqual(
      ['add_attendee', 'add_dictation_word', 'delete_identity', 'override_speaker', 'remove_attendee', 'write_context', 'write_projectfile', 'write_summary'],
    );
    const attempts: [string, Record<string, unknown>][] = [
      ['write_projectfile', { project: '../Meetings/Summaries', path: '2026-11-23 Alpha Sync.md', content: 'x', replace_file: true }],
      ['write_projectfile', { project: 'Alpha', path: '../../Meetings/Summaries/2026-11-23 Alpha Sync.md', content: 'x', replace_file: true }],
      ['delete_identity', { name: '../Summaries/2026-11-23 Alpha Sync' }],
    ];
    for (const [name, args] of attempts) expect((await h.call(name, args)).isError, name).toBe(true);
    await symlink(h.fs, '/vault/Meetings/Summaries', '/vault/Projects/Alpha/summaries');
    const viaLink = await h.call('write_projectfile', { project: 'Alpha', path: 'summaries/2026-11-23 Alpha Sync.md', content: 'x', replace_file: true });
    expect(viaLink.isError).toBe(true);
    // write_summary writes only the current meeting's summary path.
    await h.call('write_summary', { content: 'current' });
    const after = await h.snapshot();
    for (const [file, content] of before) {
      if (file.includes('/Meetings/Summaries/2026-11-') && !file.endsWith('Weekly Sync.md')) expect(after.get(file), file).toBe(content);
    }
  });
});

describe('past summary index', () => {
  it('parses each summary once and re-reads a file only when it changes', async () => {
    const h = harness();
    const index = new PastSummaryIndex(h.vault);
    let reads = 0;
    const readFile = h.vault.fs.readFile.bind(h.vault.fs);
    h.vault.fs.readFile = async (file: string) => {
      reads++;
      return readFile(file);
    };
    expect((await index.all()).map((s) => s.title)).toEqual(['Beta Review', 'Gamma Plan', 'Alpha Sync']);
    expect(reads).toBe(3);
    await index.all();
    expect(reads).toBe(3);
    await h.vault.write('/vault/Meetings/Summaries/2026-11-20 Gamma Plan.md', summaryNote('Gamma Plan 2', '2026-11-20', ['Gamma', 'Alpha']));
    // The write's own compare-before-replace read is not the index's.
    reads = 3;
    const again = await index.all();
    expect(reads).toBe(4);
    expect(again.find((s) => s.title === 'Gamma Plan 2')?.projects).toEqual(['Gamma', 'Alpha']);
    index.invalidate('/vault/Meetings/Summaries/2026-11-23 Alpha Sync.md');
    await index.all();
    expect(reads).toBe(5);
  });

  it('drops deleted summaries and skips notes whose frontmatter does not parse', async () => {
    const h = harness({ files: { 'Meetings/Summaries/bad.md': '---\nprojects: [Alpha\n---\n' } });
    const index = new PastSummaryIndex(h.vault);
    expect((await index.all()).map((s) => s.rel)).not.toContain('Meetings/Summaries/bad.md');
    await h.fs.unlink('/vault/Meetings/Summaries/2026-11-16 Beta Review.md');
    expect((await index.all()).map((s) => s.title)).toEqual(['Gamma Plan', 'Alpha Sync']);
  });

  it('reads projects given as links or a comma-separated string', async () => {
    const h = harness({
      files: {
        'Meetings/Summaries/a.md': '---\nprojects: ["[[Projects/Alpha|Alpha]]", "[[Beta]]"]\n---\n',
        'Meetings/Summaries/b.md': '---\nprojects: Alpha, Gamma\n---\n',
      },
    });
    const all = await new PastSummaryIndex(h.vault).all();
    expect(all.find((s) => s.rel.endsWith('/a.md'))?.projects).toEqual(['Alpha', 'Beta']);
    expect(all.find((s) => s.rel.endsWith('/b.md'))?.projects).toEqual(['Alpha', 'Gamma']);
  });
});

import { describe, expect, it } from 'vitest';
import { isEditorTempName } from '../../../src/vault/files/sync-files.js';
import { resolveLink } from '../../../src/vault/format/links.js';
import { isSyncToolFile } from '../../../src/vault/files/sync-files.js';
import { SUMMARY, harness, summaryNote } from '../../helpers/tool-harness.js';

/** docs/design.md §4: files that sync tools leave while syncing or on conflict are not notes. */

const ALPHA = summaryNote('Alpha Sync', '2026-11-23T09:00:00+01:00', ['Alpha']);
const CONFLICTS = {
  'Meetings/Summaries/2026-11-23 Alpha Sync.sync-conflict-20261123-101500-ABCDEFG.md': ALPHA,
  'Meetings/Summaries/2026-11-23 Alpha Sync (Conflicted copy 2026-11-23 101500).md': ALPHA,
  "Meetings/Summaries/2026-11-23 Alpha Sync (Ann's conflicted copy 2026-11-23).md": ALPHA,
  'Meetings/Summaries/~syncthing~2026-11-23 Alpha Sync.md.tmp': ALPHA,
  'Projects/Alpha/notes.sync-conflict-20261123-101500-ABCDEFG.md': 'Alpha secret conflict\n',
  'Projects/Alpha/.syncthing.notes.md.tmp': 'Alpha secret partial\n',
  'Projects/Alpha/download.tmp': 'Alpha secret partial\n',
};

describe('sync tool files', () => {
  it('one predicate knows every name of the design, and nothing else', () => {
    for (const name of Object.keys(CONFLICTS)) expect(isSyncToolFile(name), name).toBe(true);
    for (const name of ['Alpha Sync.md', 'Conflicts of interest.md', 'sync notes.md', 'tmp.md', 'Projects/x.tmp/notes.md']) expect(isSyncToolFile(name), name).toBe(false);
    // The watcher ignores what the predicate names.
    expect(isEditorTempName('Note (Conflicted copy 2026-11-23 101500).md')).toBe(true);
  });

  it('conflict copies of a summary are not listed as past meetings: the summary is listed once', async () => {
    const h = harness({ files: { ...CONFLICTS, [SUMMARY]: null } });
    const r = await h.call('list_past_project_meetings', { projects: ['Alpha'] });
    expect(r.content.split('\n')).toEqual([
      'Past meetings of Alpha: page 1 of 1 (1 summaries, newest first)',
      'Meetings/Summaries/2026-11-23 Alpha Sync.md | Alpha Sync | 2026-11-23T09:00:00+01:00 | Alpha',
    ]);
    const read = await h.call('read_past_project_meeting_summary', { path: 'Meetings/Summaries/2026-11-23 Alpha Sync (Conflicted copy 2026-11-23 101500).md' });
    expect(read.isError).toBe(true);
  });

  it('are not listed or searched in a project, nor resolved as links, nor written', async () => {
    const h = harness({ files: CONFLICTS });
    const files = await h.call('list_projectfiles', { project: 'Alpha' });
    expect(files.content).toBe('Files of project Alpha (Projects/Alpha/): 2\ndocs/decisions.md\nnotes.md');
    const found = await h.call('search', { keywords: 'Alpha' });
    expect(found.content).not.toMatch(/secret|conflict|Conflicted|syncthing/);
    const summaries = new Set(found.content.split('\n').filter((l) => l.startsWith('Meetings/Summaries/')).map((l) => l.split(':')[0]));
    expect([...summaries]).toEqual(['Meetings/Summaries/2026-11-23 Alpha Sync.md']);
    await expect(resolveLink(h.vault, '[[2026-11-23 Alpha Sync (Conflicted copy 2026-11-23 101500)]]')).rejects.toThrow(/sync tool's conflict copy/);
    await expect(resolveLink(h.vault, '[[2026-11-23 Alpha Sync]]')).resolves.toBe('/vault/Meetings/Summaries/2026-11-23 Alpha Sync.md');
    const before = await h.snapshot();
    const r = await h.call('write_projectfile', { project: 'Alpha', path: 'notes.sync-conflict-20261123-101500-ABCDEFG.md', content: 'x' });
    expect(r.content).toMatch(/^Error: Projects\/Alpha\/notes.sync-conflict-20261123-101500-ABCDEFG.md is a sync tool's conflict copy or temporary file, not a note/);
    await expect(h.vault.write(h.vault.abs('Meetings/Summaries/2026-11-23 Alpha Sync (Conflicted copy 2026-11-23 101500).md'), 'x')).rejects.toThrow(/not a note/);
    expect(await h.snapshot()).toEqual(before);
  });
});

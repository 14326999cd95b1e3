import { describe, expect, it } from 'vitest';
import { FileWatch } from '../../src/tools/cache/file-cache.js';
import { MeetingIndex } from '../../src/mcp/meeting-index.js';
import type { Fs } from '../../src/vault/files/fs.js';
import { countFsCalls, memoryVault, nextMillisecond } from '../helpers/memfs.js';

/** The MCP server's meeting index (docs/design.md §10) on memfs: what it reads, and when it reads again. */

const meeting = (title: string, extra = '') => `---\ntitle: ${title}\nstart_time: 2026-11-30T09:00:00Z\nattendees: [Alice]\n${extra}---\nNotes.\n`;
/** Notes are read through an open handle (vault/files/real-place.ts): opens count as reads. */
function countOpens(fs: Fs): { count: number } {
  const counted = { count: 0 };
  const open = fs.open.bind(fs);
  fs.open = (...args: Parameters<typeof open>) => (counted.count++, open(...args));
  return counted;
}

const summary = (items: string) => `---\ntitle: S\nstatus: done\n---\n## Next steps\n${items}`;

describe('MeetingIndex without a watcher', () => {
  it('lists only the notes of each kind, skipping sync-conflict copies and dot-folders', async () => {
    const vault = memoryVault({
      'Meetings/A.md': meeting('A'),
      'Meetings/Team/B.md': meeting('B'),
      'Meetings/A.sync-conflict-20261130-1.md': meeting('A copy'),
      'Meetings/.hidden/C.md': meeting('C'),
      'Meetings/Summaries/A.md': summary('- [ ] Alice: one\n'),
      'Meetings/Transcripts/A.md': '---\nstate: finished\n---\n',
      'Meetings/Context/A.md': '---\nstate: finished\n---\n',
      'Meetings/Glossary.md': 'CI\n',
    });
    const index = new MeetingIndex(vault, new FileWatch(vault));
    expect((await index.meetings.all()).map((m) => m.title)).toEqual(['A', 'B']);
    expect((await index.summaries.all()).map((s) => s.rel)).toEqual(['Meetings/Summaries/A.md']);
    expect((await index.transcripts.list()).map((t) => vault.rel(t))).toEqual(['Meetings/Transcripts/A.md']);
  });

  it('reads a note again when its size or change time differs, even with its old mtime set back', async () => {
    const vault = memoryVault({ 'Meetings/Summaries/A.md': summary('- [ ] Alice: one\n') });
    const index = new MeetingIndex(vault, new FileWatch(vault));
    const file = vault.abs('Meetings/Summaries/A.md');
    expect((await index.summaries.all())[0]!.actionItems.map((i) => i.text)).toEqual(['one']);
    const before = await vault.fs.stat(file);
    // Same size: only the change time tells, and memfs moves it only in a later millisecond.
    nextMillisecond();
    await vault.fs.writeFile(file, summary('- [ ] Alice: two\n'));
    const fs = vault.fs as unknown as { utimes(p: string, a: Date, m: Date): Promise<void> };
    await fs.utimes(file, new Date(before.mtimeMs), new Date(before.mtimeMs));
    expect((await index.summaries.all())[0]!.actionItems.map((i) => i.text)).toEqual(['two']);
  });

  it('reads an unchanged note once', async () => {
    const vault = memoryVault({ 'Meetings/A.md': meeting('A'), 'Meetings/B.md': meeting('B') });
    const index = new MeetingIndex(vault, new FileWatch(vault));
    await index.meetings.all();
    const counts = countFsCalls(vault.fs);
    const opens = countOpens(vault.fs);
    await index.meetings.all();
    expect(counts.readFile + opens.count).toBe(0);
    expect(counts.stat).toBe(2);
  });
});

describe('MeetingIndex with a watcher', () => {
  it('touches no file while nothing is reported, and reads again exactly what is', async () => {
    const vault = memoryVault({ 'Meetings/A.md': meeting('A'), 'Meetings/B.md': meeting('B') });
    const watch = new FileWatch(vault);
    watch.trust([vault.abs('Meetings')]);
    const index = new MeetingIndex(vault, watch);
    await index.meetings.all();
    const counts = countFsCalls(vault.fs);
    const opens = countOpens(vault.fs);
    expect((await index.meetings.all()).map((m) => m.title)).toEqual(['A', 'B']);
    expect({ ...counts, opens: opens.count }).toEqual({ readFile: 0, stat: 0, lstat: 0, readdir: 0, opens: 0 });
    await vault.fs.writeFile(vault.abs('Meetings/B.md'), meeting('B2'));
    await vault.fs.writeFile(vault.abs('Meetings/C.md'), meeting('C'));
    // Not reported yet: still trusted.
    expect((await index.meetings.all()).map((m) => m.title)).toEqual(['A', 'B']);
    watch.invalidate(vault.abs('Meetings/B.md'));
    watch.invalidate(vault.abs('Meetings/C.md'));
    expect((await index.meetings.all()).map((m) => m.title)).toEqual(['A', 'B2', 'C']);
    expect(counts.readFile + opens.count).toBe(2);
    await vault.fs.unlink(vault.abs('Meetings/A.md'));
    watch.invalidate(vault.abs('Meetings/A.md'));
    expect((await index.meetings.all()).map((m) => m.title)).toEqual(['B2', 'C']);
    // A folder event walks again.
    await vault.fs.mkdir(vault.abs('Meetings/Team'), { recursive: true });
    await vault.fs.writeFile(vault.abs('Meetings/Team/D.md'), meeting('D'));
    watch.invalidate(vault.abs('Meetings/Team'));
    expect((await index.meetings.all()).map((m) => m.title)).toEqual(['B2', 'C', 'D']);
  });
});

describe('MeetingIndex links', () => {
  it('finds the summary by link, by a bare name among the summaries, or at the default path', async () => {
    const vault = memoryVault({
      'Meetings/A.md': meeting('A', 'summary: "[[Meetings/Summaries/A]]"\n'),
      'Meetings/B.md': meeting('B', 'summary: "[[Renamed B]]"\n'),
      'Meetings/Team/C.md': meeting('C'),
      'Meetings/Summaries/A.md': summary(''),
      'Meetings/Summaries/old/Renamed B.md': summary(''),
    });
    const index = new MeetingIndex(vault, new FileWatch(vault));
    const known = new Set(await index.summaries.list());
    const paths = (await index.meetings.all()).map((m) => vault.rel(index.summaryPathOf(m, known)));
    expect(paths).toEqual(['Meetings/Summaries/A.md', 'Meetings/Summaries/old/Renamed B.md', 'Meetings/Summaries/Team/C.md']);
  });
});

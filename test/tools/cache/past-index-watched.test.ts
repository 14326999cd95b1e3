import { describe, expect, it } from 'vitest';
import { PastSummaryIndex } from '../../../src/tools/cache/past-index.js';
import { VaultListing } from '../../../src/vault/scan/vault-listing.js';
import { countFsCalls } from '../../helpers/memfs.js';
import { harness, summaryNote } from '../../helpers/tool-harness.js';

const SUMMARIES = '/vault/Meetings/Summaries';

const titles = async (index: PastSummaryIndex) => (await index.all()).map((s) => s.title);

describe("past summary index with the daemon's watcher trusted", () => {
  it('a warm query lists no folder and stats no file', async () => {
    const h = harness();
    h.ctx.caches.watch.trust([SUMMARIES]);
    // The index the tools of this run use.
    const index = h.ctx.pastSummaries;
    expect(await titles(index)).toEqual(['Beta Review', 'Gamma Plan', 'Alpha Sync']);
    const counts = countFsCalls(h.vault.fs);
    expect(await titles(index)).toEqual(['Beta Review', 'Gamma Plan', 'Alpha Sync']);
    expect(await h.call('list_past_project_meetings')).toMatchObject({ isError: false });
    expect(counts).toEqual({ readFile: 0, stat: 0, lstat: 0, readdir: 0 });
  });

  it('re-reads only what the watcher reports: a changed, an added and a deleted summary', async () => {
    const h = harness();
    h.ctx.caches.watch.trust([SUMMARIES]);
    const index = new PastSummaryIndex(h.vault, h.ctx.caches.watch);
    await index.all();
    await h.fs.writeFile(`${SUMMARIES}/2026-11-20 Gamma Plan.md`, summaryNote('Gamma Plan 2', '2026-11-20', ['Gamma']));
    await h.fs.writeFile(`${SUMMARIES}/2026-11-27 New.md`, summaryNote('New', '2026-11-27', ['Alpha']));
    await h.fs.unlink(`${SUMMARIES}/2026-11-16 Beta Review.md`);
    // Nothing reported yet: the index still answers from memory.
    expect(await titles(index)).toEqual(['Beta Review', 'Gamma Plan', 'Alpha Sync']);
    const counts = countFsCalls(h.vault.fs);
    for (const file of ['2026-11-20 Gamma Plan.md', '2026-11-27 New.md', '2026-11-16 Beta Review.md']) h.ctx.caches.watch.invalidate(`${SUMMARIES}/${file}`);
    expect(await titles(index)).toEqual(['Gamma Plan 2', 'Alpha Sync', 'New']);
    expect(counts.readdir).toBe(0);
    expect(counts.readFile).toBe(2);
  });

  it('an event for the folder makes it walk the folder again', async () => {
    const h = harness();
    h.ctx.caches.watch.trust([SUMMARIES]);
    const index = new PastSummaryIndex(h.vault, h.ctx.caches.watch);
    await index.all();
    await h.fs.mkdir(`${SUMMARIES}/2025`, { recursive: true });
    await h.fs.writeFile(`${SUMMARIES}/2025/Old.md`, summaryNote('Old', '2025-01-01', ['Alpha']));
    h.ctx.caches.watch.invalidate(`${SUMMARIES}/2025`);
    expect(await titles(index)).toContain('Old');
  });

  it("the tools' own writes are seen at once, and PastSummaryIndex#invalidate reaches every cache of the vault", async () => {
    const h = harness();
    h.ctx.caches.watch.trust([SUMMARIES]);
    const shared = h.ctx.caches.pastSummaries;
    const other = new PastSummaryIndex(h.vault, h.ctx.caches.watch);
    await Promise.all([shared.all(), other.all()]);
    await h.vault.write(`${SUMMARIES}/2026-11-20 Gamma Plan.md`, summaryNote('Gamma Plan 2', '2026-11-20', ['Gamma']));
    expect(await titles(other)).toContain('Gamma Plan 2');
    await h.fs.writeFile(`${SUMMARIES}/2026-11-23 Alpha Sync.md`, summaryNote('Alpha Sync 2', '2026-11-23', ['Alpha']));
    shared.invalidate(`${SUMMARIES}/2026-11-23 Alpha Sync.md`);
    expect(await titles(other)).toContain('Alpha Sync 2');
    expect(await titles(shared)).toContain('Alpha Sync 2');
  });

  it('walks and checks every file again once the last walk is older than maxTrustMs (events can be missed)', async () => {
    const h = harness();
    let now = 5_000_000;
    h.ctx.caches.watch.trust([SUMMARIES], { maxTrustMs: 300_000, clock: () => new Date(now) });
    const index = new PastSummaryIndex(h.vault, h.ctx.caches.watch);
    await index.all();
    await h.fs.writeFile(`${SUMMARIES}/2026-11-27 Missed.md`, summaryNote('Missed', '2026-11-27', ['Alpha']));
    expect(await titles(index)).not.toContain('Missed');
    now += 300_001;
    expect(await titles(index)).toContain('Missed');
  });
});

describe('past summary index without a watcher', () => {
  it('walks the folder once per call of list_past_project_meetings, and sees every change', async () => {
    const h = harness();
    await h.call('list_past_project_meetings');
    const counts = countFsCalls(h.vault.fs);
    await h.fs.writeFile(`${SUMMARIES}/2026-11-27 New.md`, summaryNote('New', '2026-11-27T09:00:00Z', ['Alpha']));
    const r = await h.call('list_past_project_meetings');
    expect(r.content.split('\n')[1]).toContain('2026-11-27 New.md');
    // One folder, listed once; each summary stat'ed once, the new one once more before it is
    // read (a FIFO or a device is refused before any open: docs/design.md §4).
    expect(counts.readdir).toBe(1);
    expect(counts.stat).toBe(5);
  });

  it('lists newest first, summaries without a usable start_time last and by path', async () => {
    const h = harness({
      meeting: { projects: ['Alpha'] },
      files: {
        'Meetings/Summaries/b no date.md': '---\ntitle: B\nprojects: [Alpha]\n---\n',
        'Meetings/Summaries/a bad date.md': '---\ntitle: A\nstart_time: someday\nprojects: [Alpha]\n---\n',
        'Meetings/Summaries/2027 later.md': summaryNote('Later', '2027-01-01T00:00:00Z', ['alpha']),
      },
    });
    const rows = (await h.call('list_past_project_meetings')).content.split('\n').slice(1).map((l) => l.split(' | ')[1]);
    expect(rows).toEqual(['Later', 'Alpha Sync', 'A', 'B']);
  });
});

describe('whether a past summary of the projects exists (the tool offer), from the kept listing of the vault', () => {
  it('answers as a walk of the folder does: dot-files, conflict copies and failed reports are no past meeting; a summary added is seen', async () => {
    const h = harness({
      files: {
        'Meetings/Summaries/.2026-11-25 Delta.md': summaryNote('Delta hidden', '2026-11-25', ['Delta']),
        'Meetings/Summaries/2026-11-26 Delta.sync-conflict-20261126-101010-ABCDEFG.md': summaryNote('Delta copy', '2026-11-26', ['Delta']),
      },
    });
    const listing = new VaultListing(h.vault);
    const withListing = new PastSummaryIndex(h.vault, h.ctx.caches.watch, listing);
    const walking = new PastSummaryIndex(h.vault, h.ctx.caches.watch);
    const of = (project: string) => (s: { projectKeys: string[] }) => s.projectKeys.includes(project);
    for (const project of ['alpha', 'delta', 'omega']) expect(await withListing.some(of(project))).toBe(await walking.some(of(project)));
    expect(await withListing.some(of('delta'))).toBe(false);
    await h.fs.writeFile(`${SUMMARIES}/2026-11-28 Delta.md`, summaryNote('Delta', '2026-11-28', ['Delta']));
    expect(await withListing.some(of('delta'))).toBe(true);
  });

  it('finds the summaries of a summaries folder that is a symbolic link, as a walk of the folder does (the design follows it)', async () => {
    const h = harness();
    await h.fs.mkdir('/elsewhere', { recursive: true });
    await h.fs.rename(SUMMARIES, '/elsewhere/Summaries');
    await h.fs.symlink!('/elsewhere/Summaries', SUMMARIES);
    const withListing = new PastSummaryIndex(h.vault, h.ctx.caches.watch, new VaultListing(h.vault));
    const walking = new PastSummaryIndex(h.vault, h.ctx.caches.watch);
    const alpha = (s: { projectKeys: string[] }) => s.projectKeys.includes('alpha');
    expect(await walking.some(alpha)).toBe(true);
    expect(await withListing.some(alpha)).toBe(true);
  });
});

import { afterAll, describe, expect, it } from 'vitest';
import { ConfigError, resolveConfig } from '../../../src/config.js';
import type { TrustOptions } from '../../../src/tools/cache/file-cache.js';
import { countFsCalls } from '../../helpers/memfs.js';
import { type Harness, closeHarnessCaches, harness } from '../../helpers/tool-harness.js';

afterAll(closeHarnessCaches);

const PROJECTS = '/vault/Projects';
const SUMMARIES = '/vault/Meetings/Summaries';
const NOTES = '/vault/Projects/Alpha/notes.md';

/** The daemon's wiring: its watcher covers the projects and the summaries. */
function watched(h: Harness, options: TrustOptions = {}): void {
  h.ctx.caches.watch.trust([PROJECTS, SUMMARIES], options);
}

/**
 * A runaway pattern under a short limit; the searches around it get a roomy one, since starting
 * fresh workers on a loaded machine can take longer than the short limit by itself.
 */
const ROOMY_MS = 30_000;
async function runaway(h: Harness) {
  h.ctx.searchTimeoutMs = 400;
  try {
    return await h.call('search', { keywords: '(a+)+$' });
  } finally {
    h.ctx.searchTimeoutMs = ROOMY_MS;
  }
}

const lines = async (h: Harness, keyword: string) => (await h.call('search', { keywords: [keyword] })).content.split('\n');

describe('search keeps the files it searched in memory', () => {
  it('a warm search without a watcher reads no file that has not changed (mtime and size compared)', async () => {
    const h = harness();
    const first = await lines(h, 'Alpha line');
    const counts = countFsCalls(h.vault.fs);
    expect(await lines(h, 'Alpha line')).toEqual(first);
    expect(counts.readFile).toBe(0);
    expect(counts.stat).toBeGreaterThan(0);
  });

  it('a file changed on disk is read again on the next search, without any event', async () => {
    const h = harness();
    await lines(h, 'Alpha');
    await h.fs.writeFile(NOTES, 'Alpha line 1\nAlpha rewritten entirely\n');
    expect(await lines(h, 'rewritten')).toEqual([
      '1 matching line in Alpha, Beta (3 project files, 2 past summaries searched):',
      'Projects/Alpha/notes.md:2:Alpha rewritten entirely',
    ]);
  });

  it("with the daemon's watcher trusted, a warm search touches no file at all: no listing, no stat, no read", async () => {
    const h = harness();
    watched(h);
    const first = await lines(h, '(?i)release');
    const counts = countFsCalls(h.vault.fs);
    expect(await lines(h, '(?i)release')).toEqual(first);
    expect(counts).toEqual({ readFile: 0, stat: 0, lstat: 0, readdir: 0 });
  });

  it('trusts the watcher: an unreported change is not seen, until the watcher reports it', async () => {
    const h = harness();
    watched(h);
    await lines(h, 'Alpha');
    // Same size, so only the event can tell.
    await h.fs.writeFile(NOTES, 'Alpha line 1\nAlpha LINE 2\nAlpha line 3\n');
    expect(await lines(h, 'LINE')).toEqual(['No matches in Alpha, Beta (3 project files, 2 past summaries searched).']);
    h.ctx.caches.watch.invalidate(NOTES);
    expect(await lines(h, 'LINE')).toEqual(['1 matching line in Alpha, Beta (3 project files, 2 past summaries searched):', 'Projects/Alpha/notes.md:2:Alpha LINE 2']);
  });

  it("the tools' own writes are seen at once, with or without a watcher", async () => {
    for (const trust of [false, true]) {
      const h = harness();
      if (trust) watched(h);
      await lines(h, 'Alpha');
      await h.call('read_projectfile', { project: 'Alpha', path: 'notes.md' });
      const write = await h.call('write_projectfile', { project: 'Alpha', path: 'notes.md', content: 'Alpha line 1\nAlpha LINE 2\nAlpha line 3\n', replace_file: true });
      expect(write.isError).toBe(false);
      expect(await lines(h, 'LINE'), `watcher ${trust}`).toContain('Projects/Alpha/notes.md:2:Alpha LINE 2');
    }
  });

  it('a folder event makes the search list and check what is below it again (a new file is found)', async () => {
    const h = harness();
    watched(h);
    await lines(h, 'Alpha');
    await h.fs.mkdir('/vault/Projects/Alpha/new', { recursive: true });
    await h.fs.writeFile('/vault/Projects/Alpha/new/idea.md', 'a brand new idea\n');
    h.ctx.caches.watch.invalidate('/vault/Projects/Alpha/new');
    expect(await lines(h, 'brand new')).toContain('Projects/Alpha/new/idea.md:1:a brand new idea');
  });

  it('trusted files are checked by mtime and size again once their last check is older than maxTrustMs', async () => {
    const h = harness();
    let now = 1_000_000;
    watched(h, { maxTrustMs: 60_000, clock: () => new Date(now) });
    await lines(h, 'Alpha');
    await h.fs.writeFile(NOTES, 'Alpha line 1\nAlpha missed event, longer line\n');
    expect(await lines(h, 'missed')).toEqual(['No matches in Alpha, Beta (3 project files, 2 past summaries searched).']);
    now += 60_001;
    expect(await lines(h, 'missed')).toContain('Projects/Alpha/notes.md:2:Alpha missed event, longer line');
  });

  it('keeps at most Agent.SearchCacheMegabytes of text, least recently used dropped first, with the same results', async () => {
    const files: Record<string, string> = {};
    for (let i = 0; i < 40; i++) files[`Projects/Alpha/bulk/${String(i).padStart(2, '0')}.md`] = `${'filler '.repeat(140)}\nneedle ${i}\n`;
    // About 1,000 bytes per file; room for eight of them.
    const budget = 8 * 1000;
    const h = harness({ files, config: { Agent: { SearchCacheMegabytes: budget / 1024 / 1024 } } });
    const expected = Array.from({ length: 40 }, (_, i) => `Projects/Alpha/bulk/${String(i).padStart(2, '0')}.md:2:needle ${i}`);
    for (let round = 0; round < 2; round++) {
      const found = await lines(h, '^needle');
      expect(found[0]).toBe('40 matching lines in Alpha, Beta (43 project files, 2 past summaries searched):');
      expect(found.slice(1)).toEqual(expected);
      expect(h.ctx.caches.search.texts.bytes).toBeLessThanOrEqual(budget);
      expect(h.ctx.caches.search.texts.bytes).toBeGreaterThan(0);
    }
  });

  it('SearchCacheMegabytes 0 keeps nothing: every search reads the files', async () => {
    const h = harness({ config: { Agent: { SearchCacheMegabytes: 0 } } });
    await lines(h, 'Alpha');
    const counts = countFsCalls(h.vault.fs);
    expect(await lines(h, 'Ship')).toContain('Projects/Alpha/docs/decisions.md:2:Ship v2 in December');
    expect(counts.readFile).toBe(5);
  });

  it('a runaway pattern ends the caching workers; the next search reads the files again and is right', async () => {
    const h = harness({ files: { 'Projects/Alpha/evil.md': `${'a'.repeat(40)}!\n` }, ctx: { searchTimeoutMs: ROOMY_MS } });
    await lines(h, 'Ship');
    expect(h.ctx.caches.search.texts.size).toBeGreaterThan(0);
    expect((await runaway(h)).content).toMatch(/^Error: the search ran longer than 0.4 s/);
    expect(h.ctx.caches.search.texts.size).toBe(0);
    const counts = countFsCalls(h.vault.fs);
    expect(await lines(h, 'Ship')).toContain('Projects/Alpha/docs/decisions.md:2:Ship v2 in December');
    expect(counts.readFile).toBe(6);
  });

  it("with the watcher trusted too, a search after a runaway pattern reads the files again (the plan of the lost workers is not used)", async () => {
    const h = harness({ files: { 'Projects/Alpha/evil.md': `${'a'.repeat(40)}!\n` }, ctx: { searchTimeoutMs: ROOMY_MS } });
    watched(h);
    await lines(h, 'Ship');
    await lines(h, 'Ship');
    expect((await runaway(h)).isError).toBe(true);
    const counts = countFsCalls(h.vault.fs);
    expect(await lines(h, 'Ship')).toContain('Projects/Alpha/docs/decisions.md:2:Ship v2 in December');
    expect(counts.readFile).toBe(6);
  });

  it('a search while another one runs gets a worker of its own: it finishes first, and right', async () => {
    const h = harness({ files: { 'Projects/Alpha/evil.md': `${'a'.repeat(40)}!\n` }, ctx: { searchTimeoutMs: ROOMY_MS } });
    await lines(h, 'Ship');
    const done: string[] = [];
    // The runaway ends when the test ends it (its run aborted), not at a time limit: with a
    // short limit for both, the other search had to be quicker than it, which a loaded machine
    // may not be. A search takes its signal (and limit) from the context as it starts.
    const stop = new AbortController();
    h.ctx.signal = stop.signal;
    const runaway = h.call('search', { keywords: '(a+)+$' }).then((r) => (done.push('runaway'), r));
    delete h.ctx.signal;
    const normal = h.call('search', { keywords: 'Ship' }).then((r) => (done.push('normal'), r));
    expect((await normal).content).toContain('Projects/Alpha/docs/decisions.md:2:Ship v2 in December');
    expect(done).toEqual(['normal']);
    stop.abort(new Error('the test is done with the runaway search'));
    expect((await runaway).isError).toBe(true);
    expect(done).toEqual(['normal', 'runaway']);
  });

  it('Agent.SearchCacheMegabytes defaults to 256 and must not be negative', () => {
    expect(resolveConfig({ MeetingAssistant: {} }, { cwd: '/' }).settings.Agent.SearchCacheMegabytes).toBe(256);
    expect(() => resolveConfig({ MeetingAssistant: { Agent: { SearchCacheMegabytes: -1 } } }, { cwd: '/' })).toThrow(ConfigError);
    expect(() => resolveConfig({ MeetingAssistant: { Agent: { SearchCacheMegabytes: -1 } } }, { cwd: '/' })).toThrow(/MeetingAssistant\.Agent\.SearchCacheMegabytes/);
  });
});

import { afterAll, describe, expect, it } from 'vitest';
import { SUMMARY, closeHarnessCaches, harness, summaryNote } from '../helpers/tool-harness.js';

afterAll(closeHarnessCaches);

describe('search', () => {
  it('finds matches in the scoped project files and in past summaries of the same projects, as path:line:text', async () => {
    const h = harness({ files: { [SUMMARY]: summaryNote('Weekly Sync', '2026-11-30', ['Alpha', 'Beta'], 'done', 'release of the current meeting\n') } });
    const r = await h.call('search', { keywords: ['(?i)release', 'Ship v\\d'] });
    expect(r.isError).toBe(false);
    expect(r.content.split('\n')).toEqual([
      '4 matching lines in Alpha, Beta (3 project files, 2 past summaries searched):',
      'Projects/Alpha/docs/decisions.md:2:Ship v2 in December',
      'Projects/Beta/roadmap.md:2:release in Q1',
      'Meetings/Summaries/2026-11-16 Beta Review.md:8:Planned the release.',
      'Meetings/Summaries/2026-11-23 Alpha Sync.md:8:Planned the release.',
    ]);
    // Never another project's files, a Z summary, or the current summary.
    expect(r.content).not.toContain('Gamma');
    expect(r.content).not.toContain('current meeting');
  });

  it('is case-sensitive unless the keyword starts with (?i)', async () => {
    const h = harness();
    expect((await h.call('search', { keywords: 'RELEASE' })).content).toMatch(/^No matches in Alpha, Beta/);
    expect((await h.call('search', { keywords: '(?i)RELEASE' })).content).toMatch(/^3 matching lines/);
  });

  it('narrows the scope to requested projects, and past summaries to those projects', async () => {
    const h = harness();
    const r = await h.call('search', { keywords: ['release'], projects: ['beta'] });
    expect(r.content.split('\n')).toEqual([
      '2 matching lines in Beta (1 project files, 1 past summaries searched):',
      'Projects/Beta/roadmap.md:2:release in Q1',
      'Meetings/Summaries/2026-11-16 Beta Review.md:8:Planned the release.',
    ]);
  });

  it('refuses a project not assigned to the meeting', async () => {
    const h = harness();
    const r = await h.call('search', { keywords: ['release'], projects: ['Gamma'] });
    expect(r.isError).toBe(true);
    expect(r.content).toMatch(/^Error: project "Gamma" is not assigned to this meeting/);
  });

  it('counts lines over the whole file, frontmatter included', async () => {
    const h = harness();
    const r = await h.call('search', { keywords: '^title: Alpha' });
    expect(r.content).toContain('Meetings/Summaries/2026-11-23 Alpha Sync.md:2:title: Alpha Sync');
  });

  it('answers an invalid pattern and unsupported syntax with an Error', async () => {
    const h = harness();
    const bad = await h.call('search', { keywords: ['ok', '(unclosed'] });
    expect(bad.isError).toBe(true);
    expect(bad.content).toMatch(/^Error: invalid regular expression "\(unclosed"/);
    const atomic = await h.call('search', { keywords: '(?>a+)b' });
    expect(atomic.content).toMatch(/^Error: .*atomic group/);
    expect((await h.call('search', { keywords: [] })).content).toMatch(/^Error: give at least one non-empty keyword/);
  });

  it('caps results at SearchMaxResults with a final line saying how many more', async () => {
    const many = Array.from({ length: 30 }, (_, i) => `item ${i + 1}`).join('\n');
    const h = harness({ files: { 'Projects/Alpha/items.md': many }, config: { Agent: { SearchMaxResults: 5 } } });
    const lines = (await h.call('search', { keywords: 'item' })).content.split('\n');
    expect(lines[0]).toBe('30 matching lines in Alpha, Beta (4 project files, 2 past summaries searched):');
    expect(lines.slice(1, 6)).toEqual(['Projects/Alpha/items.md:1:item 1', 'Projects/Alpha/items.md:2:item 2', 'Projects/Alpha/items.md:3:item 3', 'Projects/Alpha/items.md:4:item 4', 'Projects/Alpha/items.md:5:item 5']);
    expect(lines[6]).toBe('… 25 more matches not shown (limit 5); narrow the keywords or the projects.');
    expect(lines).toHaveLength(7);
  });

  it('streams a large project through the worker in batches, keeping the cap and the total across batches', async () => {
    const files: Record<string, string> = {};
    const body = Array.from({ length: 60 }, (_, i) => `filler line ${i} ${'z'.repeat(20)}`).join('\n');
    for (let i = 0; i < 1500; i++) files[`Projects/Alpha/bulk/${String(i).padStart(4, '0')}.md`] = `${body}\nneedle ${i}\n`;
    const h = harness({ files });
    const lines = (await h.call('search', { keywords: '^needle \\d+$', projects: 'Alpha' })).content.split('\n');
    expect(lines[0]).toBe('1500 matching lines in Alpha (1502 project files, 1 past summaries searched):');
    expect(lines[1]).toBe('Projects/Alpha/bulk/0000.md:61:needle 0');
    expect(lines[200]).toBe('Projects/Alpha/bulk/0199.md:61:needle 199');
    expect(lines[201]).toBe('… 1300 more matches not shown (limit 200); narrow the keywords or the projects.');
  });

  it('skips binary files and reads only the files in scope', async () => {
    const h = harness({ files: { 'Projects/Alpha/blob.bin': 'release\0binary', 'Projects/Gamma/more.md': 'release' } });
    // The summaries' frontmatter is read once, by the shared index; the search itself reads only the scope.
    await h.ctx.pastSummaries.all();
    const read: string[] = [];
    const readFile = h.vault.fs.readFile.bind(h.vault.fs);
    h.vault.fs.readFile = async (file: string) => {
      read.push(file);
      return readFile(file);
    };
    const r = await h.call('search', { keywords: 'release' });
    expect(r.content).not.toContain('blob.bin');
    expect(read.filter((f) => f.includes('/Projects/Gamma/'))).toEqual([]);
    expect(read.filter((f) => f.includes('Gamma Plan'))).toEqual([]);
  });

  it('a catastrophic pattern returns an Error within the time limit while the main thread keeps ticking', async () => {
    const h = harness({ files: { 'Projects/Alpha/evil.md': `${'a'.repeat(40)}!\n` }, ctx: { searchTimeoutMs: 500 } });
    let ticks = 0;
    const timer = setInterval(() => ticks++, 20);
    try {
      const r = await h.call('search', { keywords: '(a+)+$' });
      expect(r.isError).toBe(true);
      expect(r.content).toMatch(/^Error: the search ran longer than 0.5 s and was stopped \(Agent.SearchTimeoutSeconds\)/);
      expect(ticks).toBeGreaterThan(3);
    } finally {
      clearInterval(timer);
    }
    // The next search gets a fresh worker (a roomy limit: starting one on a loaded machine takes time).
    h.ctx.searchTimeoutMs = 30_000;
    expect((await h.call('search', { keywords: 'Ship' })).content).toContain('Ship v2 in December');
  });

  it('uses Agent.SearchTimeoutSeconds from the settings', async () => {
    const h = harness({ files: { 'Projects/Alpha/evil.md': `${'a'.repeat(40)}!\n` }, config: { Agent: { SearchTimeoutSeconds: 0.3 } } });
    const r = await h.call('search', { keywords: '(a+)+$' });
    expect(r.content).toMatch(/^Error: the search ran longer than 0.3 s/);
  });

  it('says so when the meeting has no projects', async () => {
    const h = harness({ meeting: { projects: [] } });
    const r = await h.call('search', { keywords: 'x' });
    expect(r).toEqual({ isError: false, content: 'This meeting has no projects, so there is nothing to search.' });
  });
});

import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { closeSearchWorkers } from '../../src/tools/search-worker.js';
import { harness } from './helpers.js';

afterAll(closeSearchWorkers);

/** The real kepano-obsidian vault, copied whole (every file, not only Markdown) as one project. */
const FIXTURE = '/work/shared/fixtures/kepano-obsidian';

function allFiles(dir: string, rel = ''): Record<string, string> {
  const out: Record<string, string> = {};
  for (const entry of readdirSync(path.join(dir, rel), { withFileTypes: true })) {
    if (entry.name.startsWith('.')) continue;
    const child = rel ? `${rel}/${entry.name}` : entry.name;
    if (entry.isDirectory()) Object.assign(out, allFiles(dir, child));
    else if (entry.isFile()) out[child] = readFileSync(path.join(dir, child), 'utf8');
  }
  return out;
}

const fixture = allFiles(FIXTURE);
const asProject = Object.fromEntries(Object.entries(fixture).map(([rel, text]) => [`Projects/Kepano/${rel}`, text]));

describe('tools on the real kepano-obsidian vault as a project', () => {
  it('lists every file of the project, sorted', async () => {
    const h = harness({ files: asProject, meeting: { projects: ['Kepano'] } });
    const lines = (await h.call('list_projectfiles', { project: 'Kepano' })).content.split('\n');
    expect(lines[0]).toBe(`Files of project Kepano (Projects/Kepano/): ${Object.keys(fixture).length}`);
    expect(lines.slice(1)).toEqual(Object.keys(fixture).sort());
  });

  it('reads a real note with its frontmatter, line numbers over the whole file', async () => {
    const h = harness({ files: asProject, meeting: { projects: ['Kepano'] } });
    const note = fixture['Notes/2023-09-12 Meeting with Steph.md']!;
    const r = await h.call('read_projectfile', { project: 'Kepano', path: 'Notes/2023-09-12 Meeting with Steph.md', from: 11, to: 11 });
    expect(r.content).toBe(`Projects/Kepano/Notes/2023-09-12 Meeting with Steph.md (lines 11-11 of ${note.split('\n').length - (note.endsWith('\n') ? 1 : 0)})\n    11\t  - "[[Steph Ango]]"`);
  });

  it('finds every line that links a person, as path:line:text', async () => {
    const h = harness({ files: asProject, meeting: { projects: ['Kepano'] } });
    const expected: string[] = [];
    for (const [rel, text] of Object.entries(fixture).sort(([a], [b]) => (a < b ? -1 : 1))) {
      text.split(/\r?\n/).forEach((line, i) => {
        if (/\[\[Steph Ango\]\]/.test(line)) expected.push(`Projects/Kepano/${rel}:${i + 1}:${line}`);
      });
    }
    expect(expected.length).toBeGreaterThan(3);
    const lines = (await h.call('search', { keywords: '\\[\\[Steph Ango\\]\\]' })).content.split('\n');
    expect(lines.slice(1)).toEqual(expected);
  });

  it('appends to a real note, audited as added lines only', async () => {
    const h = harness({ files: asProject, meeting: { projects: ['Kepano'] } });
    await h.call('write_projectfile', { project: 'Kepano', path: 'Notes/2023-09-12 Meeting with Steph.md', content: '- follow-up from the weekly sync' });
    const section = h.ctx.audit.render(new Date(0));
    const changed = section.split('\n').filter((l) => l.startsWith('+') || l.startsWith('-'));
    expect(changed).toEqual(['+- follow-up from the weekly sync']);
  });
});

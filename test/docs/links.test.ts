import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { headingAnchors, relativeLinks } from '../helpers/markdown-links.js';

/**
 * The README and the guide behind it (docs/, BENCHMARKS.md) as a reader follows them: every
 * relative link leads to a file of the repository, and every `#anchor` to a heading of that
 * file, as GitHub names headings (issue #35).
 */
const ROOT = path.resolve(import.meta.dirname, '../..');
const pages = ['README.md', 'BENCHMARKS.md', ...readdirSync(path.join(ROOT, 'docs')).filter((f) => f.endsWith('.md')).map((f) => `docs/${f}`)];

describe('links of the README and the guide', () => {
  it.each(pages)('%s: every relative link and anchor leads somewhere', (page) => {
    const text = readFileSync(path.join(ROOT, page), 'utf8');
    const broken: string[] = [];
    for (const { target, line } of relativeLinks(text)) {
      const [file, anchor] = target.split('#') as [string, string | undefined];
      const to = file === '' ? path.join(ROOT, page) : path.resolve(path.dirname(path.join(ROOT, page)), decodeURI(file));
      if (!existsSync(to)) {
        broken.push(`line ${line}: ${target} (no such file)`);
        continue;
      }
      if (anchor === undefined || statSync(to).isDirectory()) continue;
      if (!to.endsWith('.md')) continue;
      if (!headingAnchors(readFileSync(to, 'utf8')).includes(anchor)) broken.push(`line ${line}: ${target} (no such heading)`);
    }
    expect(broken).toEqual([]);
  });

  it('every page of docs/ is linked from the README', () => {
    const readme = readFileSync(path.join(ROOT, 'README.md'), 'utf8');
    const linked = new Set(relativeLinks(readme).map(({ target }) => target.split('#')[0]));
    const unlinked = pages.filter((p) => p.startsWith('docs/') && !linked.has(p));
    expect(unlinked).toEqual([]);
  });

  it('the README is a front door: at most 300 lines', () => {
    expect(readFileSync(path.join(ROOT, 'README.md'), 'utf8').split('\n').length).toBeLessThanOrEqual(300);
  });

  it('finds what it checks: a broken link and a missing anchor in a sample are reported', () => {
    const sample = '# Top\n\n## Two words\n\n```\n## not a heading\n```\n[a](#two-words) [b](other.md#x) [c](https://example.com) [d](#not-a-heading)\n';
    expect(headingAnchors(sample)).toEqual(['top', 'two-words']);
    expect(relativeLinks(sample).map((l) => l.target)).toEqual(['#two-words', 'other.md#x', '#not-a-heading']);
  });
});

import { afterAll, describe, expect, it } from 'vitest';
import { translateDotNetRegex } from '../../../src/tools/search/dotnet-regex.js';
import { FileWatch } from '../../../src/tools/cache/file-cache.js';
import { type SearchFile, SearchWorkerPool, scannable, searchPattern } from '../../../src/tools/search/worker-pool.js';
import { memoryVault } from '../../helpers/memfs.js';

const pool = new SearchWorkerPool(new FileWatch(memoryVault()));
afterAll(() => pool.close());

/**
 * The worker scans whole texts for candidate lines and confirms each on the line alone; these
 * tests hold it to the plain definition: split on \r?\n (a final line ending ends the last
 * line), a line matches when any keyword matches it.
 */
function perLine(files: SearchFile[], keywords: string[]): { lines: string[]; count: number } {
  const regexes = keywords.map((k) => {
    const t = translateDotNetRegex(k);
    return new RegExp(t.source, t.flags);
  });
  const lines: string[] = [];
  for (const file of files) {
    const split = file.text.split(/\r?\n/);
    if (split.length > 0 && split[split.length - 1] === '') split.pop();
    split.forEach((line, i) => {
      if (regexes.some((re) => re.test(line))) lines.push(`${file.id}:${i + 1}:${line}`);
    });
  }
  return { lines, count: lines.length };
}

async function scanned(files: SearchFile[], keywords: string[]): Promise<{ lines: string[]; count: number }> {
  async function* all(): AsyncGenerator<SearchFile> {
    yield* files;
  }
  const result = await pool.matchLines(all(), {
    patterns: keywords.map((k) => searchPattern(k, translateDotNetRegex(k))),
    maxResults: 1_000_000,
    timeoutMs: 10_000,
    deadline: Date.now() + 10_000,
  });
  return { lines: result.matches.map((m) => `${m.file}:${m.line}:${m.text}`), count: result.count };
}

async function expectSame(files: SearchFile[], keywords: string[]): Promise<void> {
  expect(await scanned(files, keywords), JSON.stringify(keywords)).toEqual(perLine(files, keywords));
}

describe('whole-text scanning finds exactly the lines a line-by-line search finds', () => {
  it('does not report a match that spans two lines', async () => {
    const files = [{ id: 'a.md', text: 'release\ndate\nrelease date\n' }];
    expect((await scanned(files, ['release\\s+date'])).lines).toEqual(['a.md:3:release date']);
    expect((await scanned(files, ['(?s)release.*date'])).lines).toEqual(['a.md:3:release date']);
    expect((await scanned(files, ['e[^x]+d'])).lines).toEqual(['a.md:3:release date']);
  });

  it('anchors ^ and $ at every line, with \\n and \\r\\n endings, without (?m)', async () => {
    const files = [{ id: 'a.md', text: 'end\r\nstart end\r\nstart\nmid start mid\n' }];
    await expectSame(files, ['^start']);
    await expectSame(files, ['end$']);
    expect((await scanned(files, ['^start$'])).lines).toEqual(['a.md:3:start']);
  });

  it('a keyword that matches the empty string matches every line, but no line after the final line ending', async () => {
    await expectSame([{ id: 'a.md', text: 'one\n\nthree\n' }], ['x*']);
    expect((await scanned([{ id: 'a.md', text: 'one\n\nthree\n' }], ['^$'])).lines).toEqual(['a.md:2:']);
    expect((await scanned([{ id: 'a.md', text: '' }], ['^'])).count).toBe(0);
    expect((await scanned([{ id: 'a.md', text: 'no final newline' }], ['$'])).lines).toEqual(['a.md:1:no final newline']);
  });

  it('judges lookaround within the line (such keywords are tested line by line)', async () => {
    expect(scannable('(?<!a)b')).toBe(false);
    expect(scannable('a(?=b)')).toBe(false);
    expect(scannable('(?x) a ( ?= b )')).toBe(false);
    expect(scannable('a\\bb')).toBe(true);
    const files = [{ id: 'a.md', text: 'xa\nb\nab\nfoo\nfoo bar\n' }];
    expect((await scanned(files, ['(?<!a)b'])).lines).toEqual(['a.md:2:b', 'a.md:5:foo bar']);
    expect((await scanned(files, ['foo(?![\\s\\S])'])).lines).toEqual(['a.md:4:foo']);
  });

  it('counts line numbers over the whole file and keeps a lone \\r inside a line', async () => {
    const files = [{ id: 'a.md', text: '---\ntitle: x\n---\nab\rcd\n\nneedle\nlast\r' }];
    expect((await scanned(files, ['needle', 'b\\rc', 't\\r$'])).lines).toEqual(['a.md:4:ab\rcd', 'a.md:6:needle', 'a.md:7:last\r']);
  });

  it('agrees with the line-by-line search on random texts and a wide range of keywords', async () => {
    let seed = 42;
    const rand = (): number => {
      seed = (seed * 1103515245 + 12345) % 2 ** 31;
      return seed / 2 ** 31;
    };
    const pieces = ['a', 'b', 'ab', ' ', '\n', '\r\n', '\r', 'x', 'é', '_', '1', 'A', 'release', 'date'];
    const files: SearchFile[] = [];
    for (let f = 0; f < 150; f++) {
      let text = '';
      const n = Math.floor(rand() * 40);
      for (let i = 0; i < n; i++) text += pieces[Math.floor(rand() * pieces.length)];
      files.push({ id: `f${f}.md`, text });
    }
    const keywords = [
      'a', 'ab', '^a', 'a$', '^$', 'b*', '\\s+b', '[^x]+b', '(?s)a.*b', 'a\\b', '\\bb', '\\Bb', '(?<!a)b', 'a(?!b)',
      '(a)\\1', '(?i)A B', 'é', '\\wé', '\\d', '\\D$', 'a\\z', '\\Aa', '\\r', '\\n', '.$', '^.{3}$', '(?m)^b', 'x|^$',
      '\\s$', '(?x) a b # comment', '\\W', '[\\s\\S]{2}', 'release date', '(?i)RELEASE', '(?n)(a|b)+x', 'a{2,}',
    ];
    for (const k of keywords) await expectSame(files, [k]);
    await expectSame(files, ['^a', 'b$', '\\r']);
  });
});

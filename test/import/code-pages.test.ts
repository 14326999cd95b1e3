import { readFileSync, readdirSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import iconv from 'iconv-lite';
import { describe, expect, it } from 'vitest';
import { ImportError } from '../../src/import/cues.js';
import { decodeText } from '../../src/import/formats/text-decode.js';
import { readTranscript } from '../../src/import/formats/index.js';
import { ReadReport } from '../../src/import/read-report.js';

const FIXTURES = path.join(path.dirname(fileURLToPath(import.meta.url)), '..', 'fixtures', 'import');
const REAL = path.join(FIXTURES, 'code-pages');

/** `uchardet-ru-koi8-r.txt` → `koi8-r`: the encoding its project's own tests expect (README.md there). */
const encodingOf = (name: string) => /-((?:windows|iso|koi8)-[\w-]+)\.txt$/.exec(name)![1]!;

/**
 * docs/design.md §9, "Files as they really are": every 8-bit code page §9 names imports with
 * its words right, checked on real files from two encoding detectors' test data (not text we
 * encoded ourselves): the text is the file decoded in the encoding its project labels it with
 * (not node's TextDecoder, which on node 20 reads Windows-1252 as Latin-1).
 */
describe('legacy code pages, on real files', () => {
  const files = readdirSync(REAL).filter((name) => name.endsWith('.txt') && !name.includes('-iso-2022-'));

  it('cover Windows-1250 to -1258, KOI8-R and the ISO-8859 pages the detector knows', () => {
    expect(new Set(files.map(encodingOf))).toEqual(
      new Set(['windows-1250', 'windows-1251', 'windows-1252', 'windows-1253', 'windows-1254', 'windows-1255', 'windows-1256', 'windows-1257', 'windows-1258', 'koi8-r', 'iso-8859-2', 'iso-8859-5', 'iso-8859-6', 'iso-8859-7', 'iso-8859-8', 'iso-8859-9', 'iso-8859-15']),
    );
  });

  it.each(files)('%s reads as its code page', (name) => {
    const bytes = readFileSync(path.join(REAL, name));
    const expected = iconv.decode(bytes, encodingOf(name));
    expect(expected).not.toMatch(/\uFFFD/);
    expect(decodeText({ name, bytes })).toBe(expected);
  });

  it('an Arabic SubRip file in Windows-1256 whose cues stretch words with tatweel only (`ـــ`) imports', async () => {
    const cues = await readTranscript({ name: 'cp1256-tatweel.srt', bytes: readFileSync(path.join(FIXTURES, 'cp1256-tatweel.srt')) }, new ReadReport());
    expect(cues.map((c) => c.text)).toEqual(['ــــ مرحبا بكم ــــ', 'ـــ لنبدأ الاجتماع']);
  });
});

/**
 * docs/design.md §9 (issue 43, point 9): ISO-2022-JP is 7-bit and valid UTF-8, which read as
 * UTF-8 made `$B$3$s$K$A$O!"(B` of it. Its escapes tell it; node's decoder reads it. The
 * other members of the family, which nothing here reads, are an import error.
 */
describe('ISO-2022', () => {
  it('a real ISO-2022-JP file reads as Japanese', () => {
    const name = 'uchardet-ja-iso-2022-jp.txt';
    const bytes = readFileSync(path.join(REAL, name));
    const text = decodeText({ name, bytes });
    expect(text).toBe(new TextDecoder('iso-2022-jp', { fatal: true }).decode(bytes));
    expect(text).toMatch(/\p{Script=Han}/u);
    expect(text).not.toMatch(/\$B|\(B/);
  });

  it('a SubRip file in ISO-2022-JP: its speakers and words, no escape garbage', async () => {
    const cues = await readTranscript({ name: 'iso-2022-jp.srt', bytes: readFileSync(path.join(FIXTURES, 'iso-2022-jp.srt')) }, new ReadReport());
    expect(cues.map((c) => [c.speaker, c.text])).toEqual([
      ['山田', 'こんにちは、会議を始めます'],
      ['佐藤', 'よろしくお願いします'],
    ]);
  });

  it('a real ISO-2022-KR file is an import error that says so, never a transcript of garbage', () => {
    const name = 'uchardet-ko-iso-2022-kr.txt';
    expect(() => decodeText({ name, bytes: readFileSync(path.join(REAL, name)) })).toThrow(ImportError);
    expect(() => decodeText({ name, bytes: readFileSync(path.join(REAL, name)) })).toThrow(/ISO-2022-KR or ISO-2022-CN, which cannot be imported/);
  });

  it('ISO-2022-JP escapes with bytes that are not ISO-2022-JP: an import error', () => {
    const bytes = Buffer.concat([Buffer.from('\x1b$B'), Buffer.from([0xe3, 0x81, 0x82]), Buffer.from('\x1b(B\n')]);
    expect(() => decodeText({ name: 'odd.txt', bytes })).toThrow(/odd\.txt looks like ISO-2022-JP \(Japanese\) but cannot be read as it/);
  });
});

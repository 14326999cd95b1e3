import { readFileSync, readdirSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import iconv from 'iconv-lite';
import { describe, expect, it } from 'vitest';
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
  const files = readdirSync(REAL).filter((name) => name.endsWith('.txt'));

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

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

  it('cover Windows-1250 to -1258, KOI8-R and the ISO-8859 pages, those the detector does not know too', () => {
    expect(new Set(files.map(encodingOf))).toEqual(
      new Set([
        ...['windows-1250', 'windows-1251', 'windows-1252', 'windows-1253', 'windows-1254', 'windows-1255', 'windows-1256', 'windows-1257', 'windows-1258', 'koi8-r'],
        ...['iso-8859-2', 'iso-8859-3', 'iso-8859-4', 'iso-8859-5', 'iso-8859-6', 'iso-8859-7', 'iso-8859-8', 'iso-8859-9', 'iso-8859-10', 'iso-8859-13', 'iso-8859-15', 'iso-8859-16'],
      ]),
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
 * docs/design.md §9 (issue 45, point 2): the Latin ISO-8859 pages chardet has no statistics
 * for (-3, -4, -10, -13, -16) are tried after the Windows ones, and told apart by the
 * alphabet their letters fall in. Before, each of these real files was refused or read as a
 * neighbour (`Pranc¾zija`, `kaþnomo`, `şi` for `și`).
 */
describe('the ISO-8859 pages the detector does not know, on real files', () => {
  const read = (name: string) => decodeText({ name, bytes: readFileSync(path.join(REAL, name)) });

  it.each([
    ['uchardet-mt-iso-8859-3.txt', ['uffiċjali', 'wieħed', 'għandu', 'ġej', 'Iżda', 'proċess', 'San Ġwann']], // Maltese
    ['uchardet-eo-iso-8859-3.txt', ['kaŝnomo', 'disvastiĝi', 'ĉi tiun', 'naskiĝtago', 'neŭtralan', 'anstataŭigi']], // Esperanto
    ['uchardet-lt-iso-8859-4.txt', ['Prancūzija', 'olandų']], // Lithuanian
    ['uchardet-lv-iso-8859-10.txt', ['nīderlandiešu', 'jūlijā', 'gleznotājs', 'zīmējumu un skiču', 'viņš', 'pēdējo', 'ietekmējis']], // Latvian
    ['uchardet-et-iso-8859-13.txt', ['„Anton Pavlovitš Tšehhov“', 'eelkõige', 'näidendid', 'psühholoogilised']], // Estonian
    ['uchardet-ro-iso-8859-16.txt', ['și două țări', 'Țara constă', 'insulițe', '„Arhipelagul Danez”', 'învecinându-se']], // Romanian
  ])('%s: its words', (name, words) => {
    const text = read(name);
    for (const word of words) expect(text).toContain(word);
  });

  it('Romanian in ISO-8859-16 keeps its comma below (`ș`, `ț`), never the cedilla of ISO-8859-2 (`ş`, `ţ`)', () => {
    expect(read('uchardet-ro-iso-8859-16.txt')).not.toMatch(/[şţŞŢ]/);
  });

  it('ISO-8859-13 with its quotes (`„`, `“`: bytes Windows-1257 leaves undefined or reads as `´`) is read as ISO-8859-13', () => {
    const name = 'uchardet-et-iso-8859-13.txt';
    expect(read(name)).toBe(iconv.decode(readFileSync(path.join(REAL, name)), 'iso-8859-13'));
    expect(read(name)).not.toMatch(/´/);
  });

  it('Lithuanian in ISO-8859-13 with its quotes and `’` (text of ours): not Windows-1256 (`iًëjo`), not Windows-1252 (`dÿArtanjanas`)', () => {
    for (const line of ['Jis sakė: „Labas“, ir išėjo.\n', 'Jis sakė: “Labas”, ir išėjo į Prancūziją.\n', 'Vincentas van Gogas, olandų tapytojas, d’Artanjanas ir Prancūzija.\n']) {
      expect(decodeText({ name: 'lt.txt', bytes: iconv.encode(line, 'iso-8859-13') })).toBe(line);
    }
  });

  it('an accented capital after a small first letter is still a word: Irish `hÉireann`, `nÉirinn` in Windows-1252', () => {
    const irish = 'Fáilte romhaibh go léir go hÉirinn.\nTá Uachtarán na hÉireann anseo i mBaile Átha Cliath, agus i nÉirinn ar fad.\n';
    expect(decodeText({ name: 'ga.txt', bytes: iconv.encode(irish, 'windows-1252') })).toBe(irish);
  });

  it('a real file imported as a `.txt` transcript: its paragraphs with their words', async () => {
    const cues = await readTranscript({ name: 'maltese.txt', bytes: readFileSync(path.join(REAL, 'uchardet-mt-iso-8859-3.txt')) }, new ReadReport());
    expect(cues).toHaveLength(1);
    expect(cues[0]!.text).toMatch(/^Il-Malti huwa l-ilsien nazzjonali tar-Repubblika ta' Malta\. Huwa l-ilsien uffiċjali flimkien mal-Ingliż;/);
    expect(cues[0]!.text).toContain('Għarbija');
  });

  it('Latin-9 (ISO-8859-15) whose only sign of it is the euro beside an amount reads `€`, not `¤`; Windows-1252 with its own `€` (0x80) stays Windows-1252', () => {
    const french = 'Le devis est de 1 250 € HT, soit 25€ de plus que prévu.\nÀ régler avant la fin du mois, €12 d\'acompte compris.\n';
    expect(decodeText({ name: 'fr-latin9.txt', bytes: iconv.encode(french, 'iso-8859-15') })).toBe(french);
    const windows = 'Le devis est de 1 250 € HT, soit 25€ de plus que prévu.\n';
    expect(decodeText({ name: 'fr-1252.txt', bytes: iconv.encode(windows, 'windows-1252') })).toBe(windows);
    // The generic sign away from any figure does not make a file Latin-9.
    const sign = 'Le symbole ¤ désigne une monnaie quelconque, dit-il à l’équipe.\n';
    expect(decodeText({ name: 'fr-sign.txt', bytes: iconv.encode(sign, 'windows-1252') })).toBe(sign);
  });

  it('Northern Sámi in ISO-8859-10 (text of ours: no detector has a Sámi file) reads with `đ`, `č`, `š`', () => {
    const sami = 'Buorre beaivi! Giitu go bođiidet.\nČoahkkin álgá dál, ja mii ságastallat ođđa šiehtadusa birra.\n';
    expect(decodeText({ name: 'sami.txt', bytes: iconv.encode(sami, 'iso-8859-10') })).toBe(sami);
  });

  it('one short line that reads as a language in two code pages is an import error that says so, not a guess', () => {
    // In ISO-8859-4, Windows-1250 reads it alike (Sámi) and Windows-1257 as `bošiidet, čoahkkin įlgį`;
    // in ISO-8859-10, ISO-8859-4 reads `bošiidet, čoahkkin` (Czech letters). Before, Windows-1252's `boðiidet, èoahkkin`.
    for (const encoding of ['iso-8859-4', 'iso-8859-10']) {
      const bytes = iconv.encode('Giitu go bođiidet, čoahkkin álgá dál.\n', encoding);
      expect(() => decodeText({ name: 'short.txt', bytes }), encoding).toThrow(/short\.txt is not UTF-8, and its encoding cannot be told/);
    }
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

import { analyse } from 'chardet';
import iconv from 'iconv-lite';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { type CodePageDetector, decodeCodePage } from '../../src/import/formats/code-page.js';
import { decodeText } from '../../src/import/formats/text-decode.js';

/**
 * docs/design.md §9, "Files as they really are": the code page of a file is told on a sample
 * of its lines that hold bytes above 0x7F, 64 KB of them, and the file is decoded once in the
 * code page told. A file of one long line (a `.txt` transcript as one paragraph, a minified
 * JSON, old Mac line ends, CR alone) was one sample of its whole size: chardet read all of it
 * and every code page tried decoded all of it, each decode kept at once (26 s and 400 MB for
 * 4 MB). Counted here by what chardet and iconv-lite are given, not by a clock.
 */

const chardetInputs: number[] = [];
/** chardet, counting what it is given (passed in: a module mock would not hold in a worker shared by test files). */
const countingDetector: CodePageDetector = (bytes) => {
  chardetInputs.push(bytes.length);
  return analyse(bytes);
};
/** The text decodeCodePage tells (decodeText's way for a file that is not UTF-8), with countingDetector. */
const decoded = (bytes: Uint8Array) => decodeCodePage(bytes, countingDetector)?.text;

/** Far above the sample (64 KB and one piece of a line), far below the files below. */
const SAMPLE_MAX = 80 * 1024;

afterEach(() => {
  chardetInputs.length = 0;
  vi.restoreAllMocks();
});

/** The sizes of what iconv-lite decodes while `run` runs. */
function decodedSizes(run: () => void): number[] {
  const sizes: number[] = [];
  const decode = iconv.decode.bind(iconv);
  const spy = vi.spyOn(iconv, 'decode').mockImplementation((bytes, encoding, options) => {
    sizes.push(bytes.length);
    return decode(bytes, encoding, options);
  });
  try {
    run();
  } finally {
    spy.mockRestore();
  }
  return sizes;
}

const FRENCH = 'Nous allons commencer la réunion à neuf heures, très bien, merci à tous. ';
const POLISH = 'Dzień dobry, zaczynamy spotkanie; proszę o uwagę, to ważne. ';

describe('the sample a code page is told on', () => {
  it.each([
    ['one line', ' '],
    ['old Mac line ends (CR alone)', '\r'],
  ])('a 1 MB Windows-1252 file of %s: chardet reads at most the sample, and the whole file is decoded once', (_, separator) => {
    const text = Array.from({ length: 14_000 }, () => FRENCH.trimEnd()).join(separator) + '\n';
    const bytes = iconv.encode(text, 'windows-1252');
    expect(bytes.length).toBeGreaterThan(1_000_000);
    let read: string | undefined;
    const sizes = decodedSizes(() => (read = decoded(bytes)));
    expect(read).toBe(text);
    expect(decodeText({ name: 'long.txt', bytes })).toBe(text);
    expect(chardetInputs.length).toBeGreaterThan(0);
    expect(Math.max(...chardetInputs)).toBeLessThanOrEqual(SAMPLE_MAX);
    expect(sizes.filter((size) => size > SAMPLE_MAX)).toEqual([bytes.length]);
  });

  it('a long line whose accents come late (Polish in Windows-1250 after 300 KB of ASCII) is told by them', () => {
    const text = 'Meeting notes, agenda and plain words. '.repeat(8_000) + POLISH.repeat(40) + '\n';
    const bytes = iconv.encode(text, 'windows-1250');
    expect(decoded(bytes)).toBe(text);
    expect(decodeText({ name: 'late.txt', bytes })).toBe(text);
    expect(Math.max(...chardetInputs)).toBeLessThanOrEqual(SAMPLE_MAX);
  });

  it('a long Shift_JIS line is cut between characters: it still reads as Japanese', () => {
    const sentence = '本日の会議を始めます。議題は予算と日程です、よろしくお願いします。 ';
    const text = sentence.repeat(3_000) + '\n';
    const bytes = iconv.encode(text, 'Shift_JIS');
    expect(decoded(bytes)).toBe(text);
    expect(decodeText({ name: 'ja.txt', bytes })).toBe(text);
    expect(Math.max(...chardetInputs)).toBeLessThanOrEqual(SAMPLE_MAX);
  });
});

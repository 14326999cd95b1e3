import { ImportError, type SourceFile } from '../cues.js';
import { decodeCodePage } from './code-page.js';
import { mixedUtf8 } from './utf8-mixed.js';

/**
 * The text of a transcript file (docs/design.md §9, "Files as they really are"): by its BOM
 * (UTF-8, UTF-16 and UTF-32 in either byte order, as Windows tools write them), else UTF-16
 * by its pattern of NUL bytes, else UTF-8 when it is valid UTF-8, else UTF-8 with a few stray
 * Windows-1252 bytes (utf8-mixed.ts), else the 8-bit code page code-page.ts detects; 7-bit
 * ISO-2022-JP, told by its escapes, before UTF-8 (it is valid UTF-8, as garbage). A file
 * with NUL bytes and no such BOM is binary; one whose code page cannot be told is an import
 * error, never a transcript of replacement characters. Control characters (a NUL past the
 * probe, a bell, an escape) are no words and never reach a note.
 */
const BOMS: [number[], string][] = [
  [[0xff, 0xfe, 0x00, 0x00], 'utf-32le'],
  [[0x00, 0x00, 0xfe, 0xff], 'utf-32be'],
  [[0xef, 0xbb, 0xbf], 'utf-8'],
  [[0xff, 0xfe], 'utf-16le'],
  [[0xfe, 0xff], 'utf-16be'],
];

// eslint-disable-next-line no-control-regex -- the control characters are what it finds
const CONTROL = /[\u0000-\u0008\u000B\u000C\u000E-\u001F\u007F]/;

export function decodeText(file: SourceFile): string {
  const text = decodeBytes(file);
  return CONTROL.test(text) ? text.replace(new RegExp(CONTROL.source, 'g'), '') : text;
}

function decodeBytes(file: SourceFile): string {
  const b = file.bytes;
  for (const [bom, encoding] of BOMS) {
    if (b.length >= bom.length && bom.every((byte, i) => b[i] === byte)) return decodeUnicode(file, b.subarray(bom.length), encoding);
  }
  const probe = b.subarray(0, 8192);
  if (probe.includes(0)) {
    const utf16 = bomlessUtf16(probe);
    if (utf16) return decodeUnicode(file, b, utf16);
    throw new ImportError(`${file.name} is a binary file, not a text transcript; export the transcript as text (.vtt, .srt, .txt or .json)`);
  }
  const iso2022 = iso2022Of(b);
  if (iso2022) return decodeIso2022(file, iso2022);
  try {
    return new TextDecoder('utf-8', { fatal: true }).decode(b);
  } catch {
    const mixed = mixedUtf8(b);
    if (mixed !== undefined && !/[\uFFFD\u0080-\u009F]/.test(mixed)) return mixed;
    const decoded = decodeCodePage(b);
    if (decoded) return decoded.text;
    throw new ImportError(
      `${file.name} is not UTF-8, and its encoding cannot be told (it matches no code page well enough)`,
      'save the file again as UTF-8 (most subtitle editors and text editors offer "Save with encoding"), then tick retry',
    );
  }
}

/**
 * ISO-2022 (docs/design.md §9): 7-bit text whose other scripts are switched on by escape
 * sequences, so it is valid UTF-8, and read as UTF-8 it is garbage (`$B$3$s$K$A$O!"(B`). The
 * escapes tell it: `ESC $ @`, `ESC $ B` or `ESC $ ( D` (JIS X 0208, 0212) and `ESC ( I`
 * (half-width katakana) are ISO-2022-JP's; `ESC $ ) C` (ISO-2022-KR) and `ESC $ ) A` / `G`
 * (ISO-2022-CN) are other members of the family.
 */
function iso2022Of(bytes: Uint8Array): 'jp' | 'other' | undefined {
  // Every escape in the file is looked at (an ANSI colour code may come first), four bytes each.
  for (let at = bytes.indexOf(0x1b); at !== -1; at = bytes.indexOf(0x1b, at + 1)) {
    const sequence = String.fromCharCode(...bytes.subarray(at + 1, at + 4));
    if (/^(?:\$[@B]|\$\(D|\(I)/.test(sequence)) return 'jp';
    if (/^\$[)*+][A-Z]/.test(sequence)) return 'other';
  }
  return undefined;
}

/**
 * ISO-2022-JP by node's own decoder (iconv-lite has none; node's, through ICU, is in every
 * official build); the others, which no decoder here reads, refused.
 */
function decodeIso2022(file: SourceFile, kind: 'jp' | 'other'): string {
  const again = 'save the file again as UTF-8 (most subtitle editors and text editors offer "Save with encoding"), then tick retry';
  if (kind === 'other') throw new ImportError(`${file.name} is in ISO-2022-KR or ISO-2022-CN, which cannot be imported`, again);
  try {
    return new TextDecoder('iso-2022-jp', { fatal: true }).decode(file.bytes);
  } catch {
    // A node without ICU's ISO-2022-JP (a RangeError), or bytes that are not ISO-2022-JP.
    throw new ImportError(`${file.name} looks like ISO-2022-JP (Japanese) but cannot be read as it`, again);
  }
}

/**
 * UTF-16 written without a BOM (a few Windows tools): text has a NUL in the high byte of each
 * ASCII character, and almost none in the others. Binary files do not, or read as control
 * characters.
 */
function bomlessUtf16(probe: Uint8Array): 'utf-16le' | 'utf-16be' | undefined {
  const pairs = Math.floor(probe.length / 2);
  if (pairs < 4) return undefined;
  let even = 0;
  let odd = 0;
  for (let i = 0; i + 1 < probe.length; i += 2) {
    if (probe[i] === 0) even++;
    if (probe[i + 1] === 0) odd++;
  }
  // Text of another script has a NUL only in its ASCII characters (spaces, digits, timing
  // lines): a third of them will do, if what it reads as holds no control character.
  const encoding = odd >= 0.3 * pairs && even <= 0.02 * pairs ? 'utf-16le' : even >= 0.3 * pairs && odd <= 0.02 * pairs ? 'utf-16be' : undefined;
  if (encoding === undefined) return undefined;
  const text = new TextDecoder(encoding).decode(probe.subarray(0, probe.length - (probe.length % 2)));
  // Binary data (small 16-bit numbers) reads as control characters; the last one may be cut.
  return /[\u0000-\u0008\u000E-\u001F\u007F\uFFFD]/.test(text.slice(0, -1)) ? undefined : encoding;
}

function decodeUnicode(file: SourceFile, bytes: Uint8Array, encoding: string): string {
  try {
    // TextDecoder knows no UTF-32: four bytes a character, by hand.
    return encoding.startsWith('utf-32') ? utf32(bytes, encoding === 'utf-32le') : new TextDecoder(encoding, { fatal: true }).decode(bytes);
  } catch {
    throw new ImportError(`${file.name} begins with a ${encoding.toUpperCase()} byte order mark, but what follows is not ${encoding.toUpperCase()}`, 'save the file again as UTF-8, then tick retry');
  }
}

function utf32(bytes: Uint8Array, littleEndian: boolean): string {
  if (bytes.length % 4 !== 0) throw new RangeError('not whole characters');
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const parts: string[] = [];
  for (let i = 0; i < bytes.length; i += 4096 * 4) {
    const chars: number[] = [];
    for (let j = i; j < Math.min(bytes.length, i + 4096 * 4); j += 4) {
      const code = view.getUint32(j, littleEndian);
      if (code > 0x10ffff || (code >= 0xd800 && code <= 0xdfff)) throw new RangeError('no character');
      chars.push(code);
    }
    parts.push(String.fromCodePoint(...chars));
  }
  return parts.join('');
}

/** Lines without their endings, whichever the file uses (LF, CRLF, CR). */
export function splitLines(text: string): string[] {
  return text.split(/\r\n|\r|\n/);
}

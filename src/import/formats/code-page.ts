import { analyse } from 'chardet';
import iconv from 'iconv-lite';

/**
 * The text of a file that is neither UTF-8 nor marked by a BOM (docs/design.md §9, "Files as
 * they really are"): the 8-bit code pages subtitle files still come in (Windows-1252, -1250,
 * -1251, -1256, ISO-8859-x, KOI8-R), and the CJK ones when the detector is sure of them.
 *
 * chardet (a port of ICU's detector: statistics of each code page's languages) proposes;
 * iconv-lite decodes; a proposal whose decoding holds replacement or control characters is
 * no answer. Tried on short samples (three subtitle lines), chardet names -1250, -1251, -1252
 * and -1256 right, but reports Windows-1252 as ISO-8859-1 (decoded as Windows-1252, as the
 * WHATWG encoding standard does: the two differ only in bytes 0x80–0x9F, control characters
 * in ISO-8859-1) and on one short line often nothing at all. For that one case a fallback:
 * Windows-1252 when every byte above 0x7F reads as a Latin letter or a common sign inside
 * mostly-ASCII words (`Café crème`, `£5,000`); Cyrillic or Arabic read that way would be
 * words of accented letters only, which no Western text is. Anything else is undefined: the
 * import says the encoding cannot be told (never a transcript of U+FFFD).
 */

const SINGLE_BYTE = /^(?:ISO-8859-\d+|windows-125\d|KOI8-R)$/;
const MULTI_BYTE = /^(?:Shift_JIS|EUC-JP|EUC-KR|GB18030|Big5)$/;
/** ISO-8859-x that a file with bytes 0x80–0x9F cannot be: those bytes are its Windows sibling's letters. */
const WINDOWS_SIBLING: Record<string, string> = {
  'ISO-8859-1': 'windows-1252',
  'ISO-8859-2': 'windows-1250',
  'ISO-8859-5': 'windows-1251',
  'ISO-8859-6': 'windows-1256',
  'ISO-8859-7': 'windows-1253',
  'ISO-8859-8': 'windows-1255',
  'ISO-8859-9': 'windows-1254',
};
/** Below this chardet's single-byte answers on random bytes (they reach 7). */
const SINGLE_BYTE_CONFIDENCE = 10;
/** CJK answers on random high bytes reach 37; a real Shift_JIS line gets 100. */
const MULTI_BYTE_CONFIDENCE = 60;
const SAMPLE_BYTES = 64 * 1024;

export interface DecodedText {
  text: string;
  encoding: string;
}

export function decodeCodePage(bytes: Uint8Array): DecodedText | undefined {
  const sample = nonAsciiLines(bytes);
  const c1 = sample.some((b) => b >= 0x80 && b <= 0x9f);
  const proposals = analyse(sample)
    .filter((m) => (SINGLE_BYTE.test(m.name) && m.confidence >= SINGLE_BYTE_CONFIDENCE) || (MULTI_BYTE.test(m.name) && m.confidence >= MULTI_BYTE_CONFIDENCE))
    .map((m) => ({ confidence: m.confidence, encoding: m.name === 'ISO-8859-1' || c1 ? (WINDOWS_SIBLING[m.name] ?? m.name) : m.name }))
    // On a tie, the commonest code page of subtitle files first.
    .sort((a, b) => b.confidence - a.confidence || Number(b.encoding === 'windows-1252') - Number(a.encoding === 'windows-1252'));
  // Each proposal is tried on the sample first: a 100 MB file is decoded once, not per proposal.
  const whole = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  for (const { encoding } of proposals) {
    if (!readable(iconv.decode(sample, encoding))) continue;
    const text = iconv.decode(whole, encoding);
    if (readable(text)) return { text, encoding };
  }
  if (!westernWords(iconv.decode(sample, 'windows-1252'))) return undefined;
  const western = iconv.decode(whole, 'windows-1252');
  return readable(western) && westernWords(western) ? { text: western, encoding: 'windows-1252' } : undefined;
}

/** Up to 64 KB of the lines that hold a byte above 0x7F: where the code pages differ. */
function nonAsciiLines(bytes: Uint8Array): Buffer {
  const parts: Uint8Array[] = [];
  let size = 0;
  let from = 0;
  let high = false;
  for (let i = 0; i <= bytes.length && size < SAMPLE_BYTES; i++) {
    const b = i < bytes.length ? bytes[i]! : 0x0a;
    if (b >= 0x80) high = true;
    if (b !== 0x0a) continue;
    if (high) {
      parts.push(bytes.subarray(from, i + 1));
      size += i + 1 - from;
    }
    from = i + 1;
    high = false;
  }
  return Buffer.concat(parts);
}

/** No replacement character, no control character but tab, line ends and form feed. */
function readable(text: string): boolean {
  return !/[\uFFFD\u0000-\u0008\u000B\u000E-\u001F\u007F-\u009F]/.test(text);
}

const LATIN_LETTER = /[À-ÖØ-öø-ÿŒœŠšŽžŸƒ]/;
const SIGN = /[£€¥¢©®°±·§¶«»‘’‚“”„–—…•™¿¡×÷¼½¾¹²³ªº ´¨¸¯]/;

/** Every non-ASCII character a Latin letter or a common sign, and accented letters a minority of each word. */
function westernWords(text: string): boolean {
  for (const word of text.match(/[^\s\x21-\x2f\x3a-\x40\x5b-\x60\x7b-\x7e]*[^\x00-\x7f][^\s\x21-\x2f\x3a-\x40\x5b-\x60\x7b-\x7e]*/g) ?? []) {
    let accented = 0;
    let letters = 0;
    for (const ch of word) {
      letters++;
      if (ch <= '\x7f') continue;
      if (LATIN_LETTER.test(ch)) accented++;
      else if (!SIGN.test(ch)) return false;
    }
    if (accented * 2 > letters) return false;
  }
  return true;
}

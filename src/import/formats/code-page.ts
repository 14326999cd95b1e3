import { analyse } from 'chardet';
import iconv from 'iconv-lite';

/**
 * The text of a file that is neither UTF-8 nor marked by a BOM (docs/design.md §9, "Files as
 * they really are"): the 8-bit code pages subtitle files still come in (Windows-1252, -1250,
 * -1251, -1256, ISO-8859-x, KOI8-R), and the CJK ones when the detector is sure of them.
 *
 * chardet (a port of ICU's detector: statistics of each code page's languages) proposes;
 * iconv-lite decodes. Tried on short samples (three subtitle lines), chardet names -1250,
 * -1251, -1252 and -1256 right, but reports Windows-1252 as ISO-8859-1 (decoded as
 * Windows-1252, as the WHATWG encoding standard does: the two differ only in bytes 0x80–0x9F,
 * control characters in ISO-8859-1), and on one short line it often proposes nothing, or a
 * neighbour (Windows-1257 for a Polish line). So a proposal counts only when its text holds
 * no replacement or control character and reads as words (plausible(), below); when none
 * does, the commonest code pages are tried, and taken when exactly one reads as words, or
 * Windows-1252 when it is among several (`Café crème` reads as words in most Latin ones).
 * Anything else is undefined: the import says the encoding cannot be told (never a
 * transcript of U+FFFD, nor of `Za¿ó³æ`).
 *
 * The Latin ISO-8859 pages chardet has no statistics for (-3 Maltese, Esperanto; -4 and -13
 * Baltic; -10 Nordic with Sámi; -16 Romanian) are among the tries, and told apart by the
 * alphabet their letters fall in: their letters sit where the others have other letters or
 * signs (`Pranc¾zija`, `kaþnomo`, `T¹ehhov`). A text ISO-8859-13 and Windows-1257 read alike
 * is Windows-1257 (chardet's name for it; the letters are the same); it is ISO-8859-13 when it
 * holds its quotes `”` or `„` (0xA1, 0xA5, undefined in Windows-1257) or its `’` (0xFF,
 * Windows-1257's `˙`). Romanian whose letters sit alike in ISO-8859-2, Windows-1250 and -16
 * (`ş`/`ș` at 0xBA) keeps the cedilla chardet's ISO-8859-2 gives it; -16's own `„` `”` or
 * Polish letters tell -16.
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

/** chardet's proposals for some bytes (its `analyse`); a test passes one that counts what it is given. */
export type CodePageDetector = (bytes: Uint8Array) => { name: string; confidence: number }[];

export function decodeCodePage(bytes: Uint8Array, detect: CodePageDetector = analyse): DecodedText | undefined {
  const sample = nonAsciiLines(bytes);
  const c1 = sample.some((b) => b >= 0x80 && b <= 0x9f);
  const proposals = detect(sample)
    .filter((m) => (SINGLE_BYTE.test(m.name) && m.confidence >= SINGLE_BYTE_CONFIDENCE) || (MULTI_BYTE.test(m.name) && m.confidence >= MULTI_BYTE_CONFIDENCE))
    .map((m) => ({ confidence: m.confidence, encoding: m.name === 'ISO-8859-1' || c1 ? (WINDOWS_SIBLING[m.name] ?? m.name) : m.name }))
    // On a tie, the commonest code page of subtitle files first.
    .sort((a, b) => b.confidence - a.confidence || Number(b.encoding === 'windows-1252') - Number(a.encoding === 'windows-1252'));
  // Each proposal is tried on the sample first: a 100 MB file is decoded once, not per proposal.
  const whole = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  // An ISO-8859-x proposal is followed by its Windows sibling: a Hebrew file with vowel points
  // (bytes ISO-8859-8 leaves undefined) is proposed as ISO-8859-8 but is Windows-1255.
  const proposed = proposals.flatMap((p) => [p.encoding, ...(WINDOWS_SIBLING[p.encoding] ? [WINDOWS_SIBLING[p.encoding]!] : [])]);
  const tried = [...new Set([...proposed, ...FALLBACKS])];
  const texts = new Map(tried.map((encoding) => [encoding, iconv.decode(sample, encoding)]));
  const plausibleOnes = distinct(tried.filter((encoding) => readable(texts.get(encoding)!) && plausible(texts.get(encoding)!)), texts);
  // chardet's best plausible proposal; else, of the commonest code pages, the one that reads as
  // words, or Windows-1252 among several (a short Western line reads as words in most of them).
  // Those whose accented letters are one language's come first: on a short Czech line chardet
  // proposes Windows-1252 before -1250, and 'Dìkuji, pøišli' reads as words, but in no language.
  // Several that are each one language's, none proposed nor Windows-1252, cannot be told: a
  // short Sámi line in ISO-8859-4 is Sámi in -1250 and `bošiidet, čoahkkin įlgį` in -1257.
  const oneLanguage = plausibleOnes.filter((encoding) => inOneAlphabet(texts.get(encoding)!));
  const picked = oneLanguage.length > 1 ? pick(oneLanguage, proposals) : (pick(oneLanguage, proposals) ?? pick(plausibleOnes, proposals));
  if (picked === undefined) return undefined;
  const chosen = picked === 'windows-1252' && !c1 && latin9Signs(sample) ? 'ISO-8859-15' : picked === 'ISO-8859-7' && greekTonos(sample) ? 'windows-1253' : picked;
  const text = iconv.decode(whole, chosen);
  return readable(text) ? { text, encoding: chosen } : undefined;
}

/** chardet's best proposal among `candidates`; else the one candidate, or Windows-1252 among several. */
function pick(candidates: string[], proposals: { encoding: string }[]): string | undefined {
  // Latin-9 is Windows-1252's variant here (latin9Signs): chardet names neither apart.
  const proposed = (e: string) => proposals.some((p) => p.encoding === e || (e === 'ISO-8859-15' && p.encoding === 'windows-1252'));
  return candidates.find(proposed) ?? (candidates.length === 1 ? candidates[0] : candidates.find((e) => e === 'windows-1252'));
}

/**
 * The encodings whose text differs: of code pages that read the sample alike (a Lithuanian
 * line in ISO-8859-13 and Windows-1257, a Latvian one in ISO-8859-4 and -10 when its letters
 * sit where both put them), the first tried stands for all, so they do not count as several.
 */
function distinct(encodings: string[], texts: Map<string, string>): string[] {
  return encodings.filter((encoding, i) => !encodings.slice(0, i).some((earlier) => texts.get(earlier) === texts.get(encoding)));
}

/**
 * The accented Latin letters of the languages the 8-bit code pages serve; text in another
 * script is no matter here. A text whose accented letters no one alphabet holds (`ì`, `ø` and
 * `š` in one line) is no language's: a code page read as its neighbour.
 */
const ALPHABETS = [
  'àâæçéèêëîïôœùûüÿ', // French
  'äöüß', // German
  'áéíñóúü', // Spanish
  'áâãàçéêíóôõú', // Portuguese
  'àèéìíîòóùú', // Italian
  'áéëïóöüíú', // Dutch
  'àçèéíïòóúü', // Catalan
  'åäöéüšž', // Swedish, Finnish
  'æøåéóàèêòô', // Danish, Norwegian
  'áéíóúýþðæö', // Icelandic
  'áíóúýæøð', // Faroese
  'ąćęłńóśźż', // Polish
  'áäčďéěíĺľňóôŕřšťúůýž', // Czech, Slovak
  'áéíóöőúüű', // Hungarian
  'ăâîșşțţ', // Romanian
  'čćđšž', // Croatian, Slovene, Bosnian
  'âçğıîöşüû', // Turkish
  'ąčęėįšųūž', // Lithuanian
  'āčēģīķļņšūž', // Latvian
  'äõöüšž', // Estonian
  'çë', // Albanian
  'áéíóúýàèìòù', // Irish, Welsh vowels
  'àèìòùċġħż', // Maltese
  'ĉĝĥĵŝŭ', // Esperanto
  'áâäčđŋšŧž', // Sámi (Northern, Inari)
];

function inOneAlphabet(text: string): boolean {
  const accented = new Set((text.toLowerCase().match(/\p{Script=Latin}/gu) ?? []).filter((letter) => letter > '\x7f'));
  if (accented.size === 0) return true;
  return ALPHABETS.some((alphabet) => [...accented].every((letter) => alphabet.includes(letter)));
}

/**
 * The code pages subtitle files come in, tried when chardet proposes none that reads as words
 * (chardet knows neither Windows-1258 nor Thai, nor ISO-8859-3, -4, -10, -13, -16; on a short
 * Hebrew or KOI8-R file it may propose nothing; Latin-9 it names ISO-8859-1). A text that
 * reads as words in several of them is no one's: the caller picks chardet's or Windows-1252,
 * or nothing.
 */
const FALLBACKS = ['windows-1252', 'ISO-8859-15', 'windows-1250', 'windows-1251', 'windows-1256', 'windows-1253', 'windows-1254', 'windows-1257', 'windows-1255', 'windows-1258', 'KOI8-R', 'windows-874', 'ISO-8859-13', 'ISO-8859-4', 'ISO-8859-10', 'ISO-8859-3', 'ISO-8859-16'];

/**
 * Whether a text taken for ISO-8859-7 is Windows-1253, which puts `Ά` where ISO-8859-7 has `’`:
 * a quote straight before a Greek letter (`’λλες`) is the capital.
 */
function greekTonos(sample: Buffer): boolean {
  return /’\p{Script=Greek}/u.test(iconv.decode(sample, 'ISO-8859-7'));
}

/**
 * Whether a text taken for Windows-1252 is ISO-8859-15 (Latin-9), which puts €, œ, Œ, š, Š, ž,
 * Ž and Ÿ where Windows-1252 has ¤, ½, ¼, ¨, ¦, ¸, ´ and ¾: one of those signs inside or at the
 * edge of a word (`½uf`, `Pavlovit¨`) is the letter, and ¤ beside a figure (`25 ¤`, `¤12`) is
 * the euro: the generic currency sign is next to never written with an amount. ´ alone (an
 * apostrophe typed as an accent) does not tell. A file with bytes 0x80–0x9F is not Latin-9
 * (those are its control characters; Windows-1252's `€` is 0x80).
 */
function latin9Signs(sample: Buffer): boolean {
  const text = iconv.decode(sample, 'windows-1252');
  return /\p{L}[½¼¨¦¸¾]|[½¼¨¦¸¾]\p{L}|\d[ \u00a0]?¤|¤[ \u00a0]?\d/u.test(text);
}

/**
 * A line longer than this is looked at in pieces, each ended after a byte below 0x30 (a space,
 * a sign, a control), which no multi-byte character of Shift_JIS, EUC, GB18030 or Big5 holds:
 * a piece ends between characters. A file of one line (a `.txt` transcript as one paragraph, a
 * minified JSON, old Mac line ends) was one sample of its whole size, decoded in every code
 * page tried: 26 s for 4 MB, and the memory of each decode kept at once.
 */
const PIECE_BYTES = 4096;

/**
 * Up to 64 KB (and one piece more) of the lines, or pieces of long lines, that hold a byte above
 * 0x7F: where the code pages differ. A line ends at LF or CR.
 */
function nonAsciiLines(bytes: Uint8Array): Buffer {
  const parts: Uint8Array[] = [];
  let size = 0;
  let from = 0;
  let high = false;
  for (let i = 0; i <= bytes.length && size < SAMPLE_BYTES; i++) {
    const b = i < bytes.length ? bytes[i]! : 0x0a;
    if (b >= 0x80) high = true;
    const length = i + 1 - from;
    // A piece with no such byte in SAMPLE_BYTES is cut where it stands (text has spaces and signs).
    if (b !== 0x0a && b !== 0x0d && !(b < 0x30 && length >= PIECE_BYTES) && length < SAMPLE_BYTES) continue;
    if (high) {
      parts.push(bytes.subarray(from, Math.min(i + 1, bytes.length)));
      size += length;
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

/** Scripts a word keeps to; Chinese, Japanese and Korean words mix theirs. */
const SCRIPTS: [string, RegExp][] = [
  ['Latin', /\p{Script=Latin}/u],
  ['Cyrillic', /\p{Script=Cyrillic}/u],
  ['Greek', /\p{Script=Greek}/u],
  ['Arabic', /\p{Script=Arabic}/u],
  ['Hebrew', /\p{Script=Hebrew}/u],
  ['Thai', /\p{Script=Thai}/u],
  ['CJK', /[\p{Script=Han}\p{Script=Hiragana}\p{Script=Katakana}\p{Script=Hangul}]/u],
];

/**
 * Whether decoded text reads as words: in each word holding a non-ASCII character, every
 * character inside it (its edges aside: `£5`, `«Oui»`) is a letter, a digit or an apostrophe;
 * its letters are of one script; a Latin word of three letters or more has one unaccented
 * letter at least (`Zażółć`, `říční`, `đặc`; a word of one or two may be all accented: `à`),
 * unlike the `Äîáðûé` every other script makes in a Latin code page; and a word of another script does not
 * switch from small to capital letters (`дНАПШИ`, Windows-1251 read as KOI8-R).
 */
function plausible(text: string): boolean {
  // Words end at ASCII punctuation and at CJK's own (`、`, `。`, `，`, `・`, fullwidth signs).
  // Dashes, typographic quotes and the ellipsis part words too (`1990—1991`, `2016–7E16`).
  for (const raw of text.split(/[\s!-/:-@[-`{-~\u2010-\u2015\u2018-\u201f\u2026\u3000-\u303f\u30fb\uff01-\uff0f\uff1a-\uff20\uff3b-\uff40\uff5b-\uff65]+/)) {
    if (!/[^\x00-\x7f]/.test(raw)) continue;
    const word = raw.replace(/^[^\p{L}\p{N}]+|[^\p{L}\p{N}]+$/gu, '');
    if (word === '') continue;
    if (/[^\p{L}\p{M}\p{N}'’·]/u.test(word)) return false;
    const scripts = SCRIPTS.filter(([, letters]) => letters.test(word));
    // A word of no script may hold modifier letters only: Arabic's tatweel (`ـــ`, a stretch
    // subtitles draw), the Japanese long-vowel mark.
    if (scripts.length !== 1) return scripts.length === 0 && !/[^\P{L}\p{Lm}]/u.test(word);
    // A fraction or superscript between letters is a letter of another code page (`Pranc¾zija`, `T¹ehhov`).
    if (/\p{L}\p{No}+\p{L}/u.test(word)) return false;
    if (scripts[0]![0] === 'Latin') {
      if (word.length >= 3 && !/[A-Za-z]/.test(word)) return false;
      // Latin letters take Latin accents only (Vietnamese in Windows-1258 writes them apart),
      // not Arabic's vowel signs: `iًëjo` is Lithuanian `išėjo` read as Windows-1256.
      if (/\p{Script=Latin}(?![\u0300-\u036f])\p{M}/u.test(word)) return false;
      // `McDonald` and `iPhone` are words, and Irish `nÉireann` (a small first letter before the
      // capital); an accented capital after a small letter further in is not (`PrancŸzija`).
      if (/.\p{Ll}[^\x00-\x7f\P{Lu}]/u.test(word)) return false;
    } else if (/\p{Ll}\p{Lu}/u.test(word)) return false;
  }
  return true;
}

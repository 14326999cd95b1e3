import { readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { type Cue, ImportError } from '../../src/import/cues.js';
import { readTranscript } from '../../src/import/formats/index.js';
import { ReadReport } from '../../src/import/read-report.js';
import { transcriptLines } from '../../src/import/transcript-lines.js';

/**
 * The readers against random and mutated files (issue 33, deliver 3): a fixed seed, a few
 * thousand cases. Whatever the bytes, a reader returns cues or throws an ImportError; no line
 * of the transcript holds NaN, Infinity, an impossible hour, a tag, an ASS override or U+FFFD.
 * Generated files (every word a unique token) must come through with every word once, in
 * order, save the cues the report names: never a silent loss.
 */
const FIXTURES = path.join(path.dirname(fileURLToPath(import.meta.url)), '..', 'fixtures', 'import');

function random(seed: number) {
  let s = seed >>> 0;
  const next = () => {
    s = (s + 0x6d2b79f5) >>> 0;
    let t = s;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
  const int = (n: number) => Math.floor(next() * n);
  return { next, int, pick: <T>(list: readonly T[]): T => list[int(list.length)]!, chance: (p: number) => next() < p };
}
type Random = ReturnType<typeof random>;

const TOKENS = ['-->', ' --> ', ':', ': ', '\n', '\r\n', '\n\n', '\r', '<v Ann>', '</v>', '<c>', '<00:00:01.000>', '{\\an8}', '<b>', '&amp;', '&#0;', '&#x110000;',
  '99:99:99.999', '-00:00:01.000', '1e308', '-1', '0:0:0', 'WEBVTT', 'NOTE', '**', '@0:00 - ', '  0:05', '[00:00:01]', '"', '{', '}', '[', ']', '\u0000', '\uFEFF', 'é', '\u00ff'];

function mutate(r: Random, bytes: Uint8Array): Uint8Array {
  let b = Buffer.from(bytes);
  for (let n = 1 + r.int(4); n > 0; n--) {
    const at = r.int(b.length + 1);
    switch (r.int(6)) {
      case 0:
        b = Buffer.concat([b.subarray(0, at), b.subarray(Math.min(b.length, at + 1 + r.int(40)))]);
        break;
      case 1:
        b = Buffer.concat([b.subarray(0, at), Buffer.from(r.pick(TOKENS)), b.subarray(at)]);
        break;
      case 2:
        if (at < b.length) b[at] = r.int(256);
        break;
      case 3:
        b = b.subarray(0, at);
        break;
      case 4: {
        const from = r.int(b.length + 1);
        b = Buffer.concat([b.subarray(0, at), b.subarray(from, from + r.int(80)), b.subarray(at)]);
        break;
      }
      default:
        b = Buffer.concat([b.subarray(0, at), Buffer.from(Array.from({ length: r.int(8) }, () => r.int(256))), b.subarray(at)]);
    }
  }
  return b;
}

/** Tags and ASS overrides the subtitle readers remove (a plain-text file's `<b>` is text it was given). */
const MARKUP = /<\/?(?:v|c|b|i|u|font|ruby|rt|lang)\b[^>]*>|<\d{1,3}:\d\d(?::\d\d)?[.,]\d+>|\{\\[^{}]*\}/;

const ODD_VALUES = [1e308, -1e308, -1, 0, Number.MAX_SAFE_INTEGER, '99:99:99,999', '', ' ', null, true, [], {}, '1e308', '\u0000'];

/** A few leaves of a parsed JSON file replaced by odd values, or removed. */
function mutateJson(r: Random, value: unknown): unknown {
  if (Array.isArray(value)) return value.map((item) => (r.chance(0.15) ? r.pick(ODD_VALUES) : mutateJson(r, item))).filter(() => !r.chance(0.03));
  if (value && typeof value === 'object') {
    const out: Record<string, unknown> = {};
    for (const [key, item] of Object.entries(value)) if (!r.chance(0.03)) out[key] = r.chance(0.1) ? r.pick(ODD_VALUES) : mutateJson(r, item);
    return out;
  }
  return value;
}

/** What no transcript line may hold, whatever came in. */
function expectClean(name: string, lines: string[], cues: Cue[]): void {
  for (const cue of cues) {
    expect(Number.isFinite(cue.start) && Number.isFinite(cue.end) && cue.start >= 0 && cue.end >= cue.start).toBe(true);
    if (/\.(vtt|srt)$/.test(name) && MARKUP.test(cue.text)) throw new Error(`markup left in ${JSON.stringify(cue.text)}`);
  }
  for (const line of lines) {
    if (!/^\[(\d{2,3}):[0-5]\d:[0-5]\d\] /.test(line) || /NaN|Infinity|\uFFFD|[\r\n]/.test(line)) throw new Error(`not a clean line: ${JSON.stringify(line)}`);
  }
}

async function readSafely(name: string, bytes: Uint8Array) {
  const report = new ReadReport();
  try {
    const cues = await readTranscript({ name, bytes }, report);
    const lines = transcriptLines(cues);
    expectClean(name, lines, cues);
    return { cues, lines, report };
  } catch (err) {
    if (!(err instanceof ImportError)) throw new Error(`${name}: ${(err as Error).stack ?? String(err)}`);
    return undefined;
  }
}

const FORMATS: Record<string, string[]> = {
  '.vtt': ['teams-voice-tags.vtt', 'teams-open-voice-unpadded.vtt', 'zoom-numbered-prefix.vtt', 'inline-markup.vtt', 'youtube-rolling.vtt', 'impossible-times.vtt', 'blocks-and-header.vtt'],
  '.srt': ['names.srt', 'whisperx.srt', 'tinydiarize.srt', 'no-blank-before-timing.srt', 'ass-override-tags.srt', 'cp1252.srt', 'utf32le-bom.srt'],
  '.txt': ['otter.txt', 'names-times.txt', 'plain.txt', 'fathom.txt', 'plain-paragraphs.txt'],
  '.md': ['otter-markdown.md'],
};

describe('mutated fixtures', () => {
  it.each(Object.entries(FORMATS))('%s: an ImportError or clean cues, never a crash', async (ext, names) => {
    const r = random(32 + ext.length);
    const fixtures = names.map((name) => readFileSync(path.join(FIXTURES, name)));
    let read = 0;
    for (let i = 0; i < 600; i++) if (await readSafely(`fuzz${ext}`, mutate(r, r.pick(fixtures)))) read++;
    // Most mutations still leave a transcript: the readers are not merely refusing everything.
    expect(read).toBeGreaterThan(300);
  });

  it('.json: values changed at random (and now and then a byte): an ImportError or clean cues', async () => {
    const r = random(34);
    const names = ['whispercpp-oj.json', 'whispercpp-ojf-speakers.json', 'whisperx.json', 'impossible-times.json', 'whisperx-odd-segments.json'];
    const fixtures = names.map((name) => JSON.parse(readFileSync(path.join(FIXTURES, name), 'utf8')) as unknown);
    let read = 0;
    for (let i = 0; i < 600; i++) {
      const text = JSON.stringify(mutateJson(r, structuredClone(r.pick(fixtures))));
      const bytes = r.chance(0.1) ? mutate(r, Buffer.from(text)) : Buffer.from(text);
      if (await readSafely('fuzz.json', bytes)) read++;
    }
    expect(read).toBeGreaterThan(300);
  });

  it('.docx: a damaged Word file is an ImportError, never a crash', async () => {
    const r = random(33);
    const docx = readFileSync(path.join(FIXTURES, 'teams-transcript.docx'));
    let refused = 0;
    for (let i = 0; i < 60; i++) if (!(await readSafely('fuzz.docx', mutate(r, docx)))) refused++;
    // A zip with a changed byte fails its checksum: most are refused, each with an ImportError.
    expect(refused).toBeGreaterThan(30);
  });
});

const NAMES = ['Ann Lee', 'anand sharma', 'John & Marie McKinney', 'Saurabh’s iPad', 'Dana (Guest)', 'SPEAKER_00', 'Bob'];

/**
 * `n` cues of words (`w0`, `w1` …) and the quirks real files have; in `repeats` of them a cue
 * says again what the cue before said (a chorus of `Yes.`, a sentence said twice), by the
 * same speaker or another: words said twice are there twice.
 */
function generatedCues(r: Random, n: number, repeats = 0) {
  let word = 0;
  let t = r.int(5);
  let previous: string[] = [];
  return Array.from({ length: n }, () => {
    const words = previous.length > 0 && r.chance(repeats) ? previous : Array.from({ length: 1 + r.int(6) }, () => `w${word++}`);
    previous = words;
    const start = t;
    t += 0.2 + r.next() * 5;
    return { start, end: t, words, speaker: r.pick(NAMES) };
  });
}

function clock(r: Random, seconds: number, comma: boolean): string {
  const h = Math.floor(seconds / 3600);
  const m = Math.floor((seconds % 3600) / 60);
  const s = seconds % 60;
  const pad = (x: number, w: number) => (r.chance(0.3) ? String(x) : String(x).padStart(w, '0'));
  const frac = r.chance(0.3) ? String(Math.floor((s % 1) * 10)) : String(Math.floor((s % 1) * 1000)).padStart(3, '0');
  return `${pad(h, 2)}:${pad(m, 2)}:${pad(Math.floor(s), 2)}${comma ? ',' : '.'}${frac}`;
}

function subtitleFile(r: Random, webvtt: boolean): { text: string; words: string[]; said: string[] } {
  const cues = generatedCues(r, 5 + r.int(30), r.pick([0, 0, 0.2, 0.6]));
  const prefixed = r.chance(0.5);
  const nl = r.chance(0.3) ? '\r\n' : '\n';
  const out: string[] = webvtt ? ['WEBVTT', ''] : [];
  const voices: boolean[] = [];
  cues.forEach((cue, i) => {
    if (r.chance(0.7)) out.push(String(i + 1));
    out.push(`${clock(r, cue.start, !webvtt)} --> ${clock(r, cue.end, !webvtt)}${r.chance(0.2) ? ' align:start position:0%' : ''}`);
    const words = cue.words.map((w) => (r.chance(0.15) ? `<i>${w}</i>` : r.chance(0.1) ? `{\\i1}${w}{\\i0}` : w));
    voices[i] = webvtt && !prefixed && r.chance(0.5);
    const text = voices[i] ? `<v ${cue.speaker}>${words.join(' ')}</v>` : `${prefixed ? `${cue.speaker}: ` : ''}${words.join(' ')}`;
    out.push(text);
    // A timing line right after the text, as YouTube and hand-edited files have it.
    if (r.chance(0.8)) out.push('');
  });
  const voiced = (i: number) => prefixed || voices[i];
  const said = cues.flatMap((c, i) => c.words.map((w) => `${voiced(i) ? c.speaker : '-'}|${w}`));
  return { text: (r.chance(0.2) ? '\uFEFF' : '') + out.join(nl) + nl, words: cues.flatMap((c) => c.words), said };
}

function jsonFile(r: Random): { text: string; words: string[]; broken: number } {
  const cues = generatedCues(r, 3 + r.int(20));
  const cpp = r.chance(0.5);
  const odd = [1e308, -5, '12.5', null, 'x'];
  let broken = 0;
  const words: string[] = [];
  const segments = cues.map((cue) => {
    if (r.chance(0.05)) {
      broken++;
      return r.chance(0.5) ? null : { start: cue.start, text: { words: cue.words } };
    }
    words.push(...cue.words);
    const start = r.chance(0.1) ? r.pick(odd) : cue.start;
    const text = ` ${cue.words.join(' ')}`;
    if (cpp) return { offsets: { from: typeof start === 'number' ? start * 1000 : start, to: cue.end * 1000 }, text };
    return { start, end: cue.end, text, ...(r.chance(0.5) ? { speaker: 'SPEAKER_01' } : {}) };
  });
  return { text: JSON.stringify(cpp ? { transcription: segments } : { segments }), words, broken };
}

function textFile(r: Random): { text: string; words: string[] } {
  const cues = generatedCues(r, 3 + r.int(20));
  const layout = r.int(4);
  const m = (s: number) => `${Math.floor(s / 60)}:${String(Math.floor(s % 60)).padStart(2, '0')}`;
  const out = cues.map((cue) => {
    const said = cue.words.join(' ');
    if (layout === 0) return `${cue.speaker}: ${said}`;
    if (layout === 1) return `**${cue.speaker}**  ${m(cue.start)}\n${said}\n`;
    if (layout === 2) return `@${m(cue.start)} - ${cue.speaker}\n${said}\n`;
    return said;
  });
  return { text: out.join('\n'), words: cues.flatMap((c) => c.words) };
}

/** Every word once, in order: the words of the transcript lines against what was written. */
const wordsOf = (lines: string[]) => lines.join(' ').match(/\bw\d+\b/g) ?? [];

describe('generated files: every word once, in order', () => {
  it.each([
    ['.vtt', true],
    ['.srt', false],
  ])('%s', async (ext, webvtt) => {
    const r = random(ext === '.vtt' ? 1 : 2);
    for (let i = 0; i < 500; i++) {
      const { text, words, said } = subtitleFile(r, webvtt);
      const read = await readSafely(`gen${ext}`, Buffer.from(text));
      expect(read, text).toBeDefined();
      expect(wordsOf(read!.lines), text).toEqual(words);
      // And each word under the name of who said it.
      expect(read!.cues.flatMap((c) => (c.text.match(/\bw\d+\b/g) ?? []).map((w) => `${c.speaker ?? '-'}|${w}`)), text).toEqual(said);
    }
  });

  it('.json: the words of every readable segment; the others named by the report', async () => {
    const r = random(3);
    for (let i = 0; i < 500; i++) {
      const { text, words, broken } = jsonFile(r);
      const read = await readSafely('gen.json', Buffer.from(text));
      if (words.length === 0) continue;
      expect(wordsOf(read!.lines), text).toEqual(words);
      expect(read!.report.unread, text).toHaveLength(broken);
    }
  });

  it('.txt', async () => {
    const r = random(4);
    for (let i = 0; i < 500; i++) {
      const { text, words } = textFile(r);
      const read = await readSafely('gen.txt', Buffer.from(text));
      expect(wordsOf(read!.lines), text).toEqual(words);
    }
  });
});

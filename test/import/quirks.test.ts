import { readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { ImportError } from '../../src/import/cues.js';
import { readTranscript } from '../../src/import/formats/index.js';
import { ReadReport } from '../../src/import/read-report.js';
import { attendeesOf, transcriptLines } from '../../src/import/transcript-lines.js';

// Files as they really are (docs/design.md §9): one fixture of our own per quirk, read as the
// transcript note shows it, with what the import reports.
const FIXTURES = path.join(path.dirname(fileURLToPath(import.meta.url)), '..', 'fixtures', 'import');

async function imported(name: string) {
  const report = new ReadReport();
  const cues = await readTranscript({ name, bytes: readFileSync(path.join(FIXTURES, name)) }, report);
  return { lines: transcriptLines(cues), cues, said: report.sentences() };
}

describe('timings', () => {
  it('old Teams and Stream exports: every field unpadded (0:0:3.0 --> 0:0:5.550)', async () => {
    const { lines, said } = await imported('teams-unpadded-fields.vtt');
    expect(lines).toEqual(['[00:00:03] Ann Lee: Hello there.', '[00:00:52] Bob Stone: Really.']);
    expect(said).toEqual([]);
  });

  it('SubRip with unpadded seconds and a short fraction (00:00:0,500 --> 00:00:2,00)', async () => {
    const { cues } = await imported('unpadded-fields.srt');
    expect(cues.map((c) => [c.start, c.end, c.text])).toEqual([
      [0.5, 2, 'We start now.'],
      [3.5, 4.25, 'And we go on.'],
    ]);
  });

  it('a timing line straight after cue text starts the next cue; the index above it is no text', async () => {
    const { cues } = await imported('no-blank-before-timing.srt');
    expect(cues.map((c) => [c.start, c.text])).toEqual([
      [1, 'First line.'],
      [5, 'Second line.'],
      [7, 'Third, arrow without spaces.'],
      [9, 'Fourth, a long arrow.'],
    ]);
  });

  it('mm:ss,mmm timings in a SubRip file without blank lines', async () => {
    const { cues } = await imported('no-blank-mmss.srt');
    expect(cues.map((c) => [c.start, c.text])).toEqual([
      [3.56, 'started to'],
      [11.224, 'say more.'],
    ]);
  });

  it('text after a blank line inside a cue stays with that cue', async () => {
    const { cues, said } = await imported('blank-inside-cue.srt');
    expect(cues.map((c) => c.text)).toEqual(['First part of the cue. Second part after a blank line.', 'Next cue.']);
    expect(said).toEqual([]);
  });

  it('a blank line between the timing line and its text (webvtt-py #46, #74): the text is still that cue\'s', async () => {
    const { cues, said } = await imported('blank-after-timing.vtt');
    expect(cues.map((c) => [c.start, c.text])).toEqual([
      [2715.64, 'Did anyone mention it?'],
      [2716.96, 'Haddock saw it on deck 4 and asked what I thought.'],
      [2720.92, 'Who is Haddock?'],
    ]);
    expect(said).toEqual([]);
  });

  it('an index parted from its timing line by a blank line is no text and no loss', async () => {
    const { cues, said } = await imported('index-then-blank.srt');
    expect(cues.map((c) => [c.start, c.text])).toEqual([
      [1, 'Hello.'],
      [3, 'Again.'],
    ]);
    expect(said).toEqual([]);
  });

  it('text before the first SubRip cue is no cue, and the import says so', async () => {
    const { cues, said } = await imported('text-before-first-cue.srt');
    expect(cues.map((c) => c.text)).toEqual(['The cue.']);
    expect(said).toEqual(['1 cue could not be read: line 1 of the file']);
  });
});

describe('impossible times (docs/design.md §9, Limits)', () => {
  it('99:99:99.999 and -00:00:01.000 keep their words at the cue before, said by the import', async () => {
    const { lines, said } = await imported('impossible-times.vtt');
    expect(lines).toEqual(['[00:00:01] Ann: First. Second.', '[00:00:01] Bob: Third. Fourth.', '[00:00:06] Ann: Fifth.']);
    expect(said).toEqual(['2 cues had a time that cannot be a time, their words are kept at the time of the cue before: lines 6, 9 of the file']);
  });

  it('a converter\'s `NaN:NaN:NaN --> NaN:NaN:NaN line:-1 …` is a timing line: its cue\'s words at the time before, said by the import, the line itself no speech', async () => {
    const { lines, said } = await imported('nan-timings.vtt');
    expect(lines).toEqual(['[00:01:10] Ann: We ship on Friday.', '[00:01:10] Bob: And the docs?', '[00:01:15] Ann: Monday, A --> B as planned.']);
    expect(lines.join('\n')).not.toMatch(/NaN|position:|^\[[^\]]*\] 2[34]/m);
    // Cue 23's `: ` holds no words: no line, nothing to keep.
    expect(said).toEqual(['1 cue had a time that cannot be a time, its words are kept at the time of the cue before: line 12 of the file']);
  });

  it('the same in SubRip: `NaN:NaN:NaN,NaN --> NaN:NaN:NaN,NaN`', async () => {
    const { lines, said } = await imported('nan-timings.srt');
    expect(lines).toEqual(['[00:01:10] Ann: We ship on Friday.', '[00:01:10] Bob: And the docs?', '[00:01:15] Ann: Monday.']);
    expect(said).toEqual(['1 cue had a time that cannot be a time, its words are kept at the time of the cue before: line 6 of the file']);
  });

  it('whisper JSON offsets of 1e308 or below zero: no NaN, no 300-digit hour', async () => {
    const { cues, lines, said } = await imported('impossible-times.json');
    expect(lines).toEqual(['[00:00:00] First. Second. Third.']);
    expect(cues.map((c) => [c.start, c.end])).toEqual([
      [0, 1],
      [0, 0],
      [3, 3],
    ]);
    expect(said).toEqual(['2 cues had a time that cannot be a time, their words are kept at the time of the cue before: segments 2, 3 of the file']);
  });

  it('WhisperX segments that are no segment are named; numeric strings are times', async () => {
    const { lines, said } = await imported('whisperx-odd-segments.json');
    expect(lines).toEqual(['[00:00:00] SPEAKER_00: First.', '[00:00:02] Second, times as strings.', '[00:00:04] SPEAKER_01: Third.']);
    expect(said).toEqual(['2 cues could not be read: segments 2, 4 of the file']);
  });
});

describe("YouTube's rolling auto-captions", () => {
  it('the words as spoken, once', async () => {
    const { lines } = await imported('youtube-rolling.vtt');
    expect(lines).toEqual(['[00:00:00] we ship on monday then tag it yes yes indeed']);
  });

  it('rolling without inline times, recognised by the repeated lines', async () => {
    const { lines } = await imported('rolling-no-inline-times.srt');
    expect(lines).toEqual(['[00:00:00] we ship on monday then tag it and done']);
  });

  it('two cues saying the same in a file that does not roll are both kept', async () => {
    const { lines } = await imported('repeated-words.srt');
    expect(lines).toEqual(['[00:00:01] Yes. Yes. No.']);
  });
});

describe('encodings', () => {
  it.each([
    ['cp1252.srt', ['Café crème for everyone', 'It costs £5,000, déjà vu', 'La Pietà è bella']],
    ['cp1252-one-line.srt', ['Café crème']],
    ['cp1250.srt', ['Dobrý den všem', 'Děkuji, že jste přišli', 'Začněme rozpočtem']],
    // chardet proposes Windows-1257 for this line alone; only Windows-1250 reads as words.
    ['cp1250-one-line.srt', ['Zażółć gęślą jaźń.']],
    ['cp1251.srt', ['Добрый день, коллеги', 'Спасибо, что пришли', 'Начнём с бюджета']],
    ['cp1256.srt', ['مرحبا بكم في الاجتماع', 'شكرا لكم على الحضور', 'لنبدأ بالميزانية']],
  ])('%s: the code page is detected, never U+FFFD', async (name, texts) => {
    const { cues } = await imported(name);
    expect(cues.map((c) => c.text)).toEqual(texts);
  });

  it('UTF-32 (either byte order) and UTF-16 big-endian with a BOM', async () => {
    expect((await imported('utf32le-bom.srt')).lines).toEqual(['[00:00:01] Ann: Grüße, 𝄞 music']);
    expect((await imported('utf32be-bom.vtt')).lines).toEqual(['[00:00:01] Ann: Grüße']);
    expect((await imported('utf16be-bom.srt')).lines).toEqual(['[00:00:01] Ann: Grüße']);
  });

  it('UTF-16 without a BOM, told by its NUL bytes (a binary file still is refused)', async () => {
    expect((await imported('utf16le-no-bom.srt')).lines).toEqual(['[00:00:01] Ann: Grüße aus Köln']);
  });

  it('one short Cyrillic line reads as words in Windows-1251 and in Windows-1253 (Greek): ambiguous, so an error, not a guess', async () => {
    await expect(imported('cp1251-one-line-ambiguous.srt')).rejects.toThrow(/encoding cannot be told/);
  });

  it('a file whose encoding cannot be told is an import error that says so', async () => {
    const error = await imported('undecodable.txt').catch((err: unknown) => err);
    expect(error).toBeInstanceOf(ImportError);
    expect((error as ImportError).message).toMatch(/undecodable\.txt is not UTF-8, and its encoding cannot be told/);
    expect((error as ImportError).hint).toMatch(/UTF-8/);
  });
});

describe('markup', () => {
  it('ASS override tags and font tags go, the words stay', async () => {
    const { cues } = await imported('ass-override-tags.srt');
    expect(cues.map((c) => c.text)).toEqual(['Top text', 'Slanted and yellow placed']);
  });
});

describe('speakers', () => {
  it('Zoom display names as people type them are the speakers; no cue joins another speaker', async () => {
    const { lines, cues } = await imported('zoom-display-names.vtt');
    expect(lines).toEqual([
      '[00:00:01] anand sharma: Hello all.',
      '[00:00:03] John & Marie McKinney: Hi from both of us.',
      '[00:00:05] Saurabh’s iPad: Can you hear me?',
      '[00:00:07] Dana (Guest): Yes.',
      '[00:00:09] pulla sai durga prasad: We meet at 10:30: fine.',
      '[00:00:11] anand sharma: Good.',
    ]);
    expect(attendeesOf(cues)).toEqual(['anand sharma', 'John & Marie McKinney', 'Saurabh’s iPad', 'Dana (Guest)', 'pulla sai durga prasad']);
  });

  it('a cue in which two people speak is one line per voice, each under its own name', async () => {
    const { lines } = await imported('two-voices-one-cue.vtt');
    expect(lines).toEqual(['[00:00:01] Ann Lee: Shall we ship?', '[00:00:01] Bob Stone: Yes, on Monday. Then tag it.']);
  });

  it('in a file that mostly carries no prefix, a lowercase "word: " stays text', async () => {
    const { lines } = await readTranscript({
      name: 'few.srt',
      bytes: Buffer.from('1\n00:00:01,000 --> 00:00:02,000\nso here is the thing: it works\n\n2\n00:00:03,000 --> 00:00:04,000\nand it ships\n\n3\n00:00:05,000 --> 00:00:06,000\non monday\n'),
    }).then((cues) => ({ lines: transcriptLines(cues) }));
    expect(lines).toEqual(['[00:00:01] so here is the thing: it works and it ships on monday']);
  });
});

describe('other layouts', () => {
  it("Otter's Markdown export: **Name**  0:00 above the text", async () => {
    const { lines } = await imported('otter-markdown.md');
    expect(lines).toEqual([
      '[00:00:00] # Weekly Sync',
      '[00:00:00] Alice Example: Good morning everyone.',
      '[00:00:12] Bob Builder: The build is green. Second line of Bob.',
      '[01:02:03] Alice Example: Wrapping up.',
    ]);
  });

  it("Fathom's .txt: @0:00 - Name above the text; the header kept as a line of its own", async () => {
    const { lines } = await imported('fathom.txt');
    expect(lines).toEqual([
      '[00:00:00] Weekly Sync - December 2 VIEW RECORDING - 32 mins (No highlights): https://fathom.video/share/example',
      '[00:00:00] Alice Example: Good morning everyone.',
      '[00:00:12] Bob Builder (Acme Corp): The build is green.',
      '[01:02:03] Alice Example: Wrapping up.',
    ]);
  });

  it("Fathom's .docx", async () => {
    const { lines } = await imported('fathom.docx');
    expect(lines).toEqual(['[00:00:00] Weekly Sync - December 2', '[00:00:00] Alice Example: Good morning everyone.', '[00:00:12] Bob Builder: The build is green.']);
  });

  it('plain text without times keeps one transcript line per line', async () => {
    const { lines } = await imported('plain-lines.txt');
    expect(lines).toEqual(['[00:00:00] We met to plan the release.', '[00:00:00] The build is green.', '[00:00:00] We ship on Monday.']);
  });

  it('plain text with blank lines between paragraphs keeps one line per paragraph', async () => {
    const { lines } = await imported('plain-paragraphs.txt');
    expect(lines).toEqual([
      '[00:00:00] We met to plan the release, and this paragraph is wrapped over two lines.',
      '[00:00:00] The build is green.',
      '[00:00:00] We ship on Monday.',
    ]);
  });
});

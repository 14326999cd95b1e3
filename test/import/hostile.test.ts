import iconv from 'iconv-lite';
import { describe, expect, it } from 'vitest';
import { readTranscript } from '../../src/import/formats/index.js';
import { ReadReport } from '../../src/import/read-report.js';
import { attendeesOf, transcriptLines } from '../../src/import/transcript-lines.js';

// Small hostile inputs from the review of issue 32 (docs/design.md §9): each a way a word was
// lost, doubled or misread. Our own text, written here.

async function read(name: string, content: string | Buffer) {
  const report = new ReadReport();
  const bytes = typeof content === 'string' ? Buffer.from(content) : content;
  const cues = await readTranscript({ name, bytes }, report);
  return { lines: transcriptLines(cues), said: report.sentences() };
}

/** A SubRip file of one cue per text, a second apart. */
const srt = (...texts: string[]) => texts.map((t, i) => `${i + 1}\n00:00:0${i},000 --> 00:00:0${i + 1},000\n${t}\n`).join('\n');

describe('a real repetition is no rolling caption', () => {
  it('a chorus of "Yes." in SubRip keeps every one', async () => {
    const { lines } = await read('chorus.srt', srt('Yes.', 'Yes.', 'Yes.', 'No.'));
    expect(lines).toEqual(['[00:00:00] Yes. Yes. Yes. No.']);
  });

  it('a person saying the same sentence three times keeps all three', async () => {
    const { lines } = await read('again.srt', srt('I agree.', 'I agree.', 'I agree.'));
    expect(lines).toEqual(['[00:00:00] I agree. I agree. I agree.']);
  });

  it('three people answering "Yes." in a Teams file keep their own words', async () => {
    const vtt = 'WEBVTT\n\n' + ['Ann', 'Bob', 'Cy'].map((n, i) => `00:00:0${i}.000 --> 00:00:0${i + 1}.000\n<v ${n}>Yes.</v>\n`).join('\n');
    const { lines } = await read('teams.vtt', vtt);
    expect(lines).toEqual(['[00:00:00] Ann: Yes.', '[00:00:01] Bob: Yes.', '[00:00:02] Cy: Yes.']);
  });
});

describe('SubRip identifiers are numbers', () => {
  it('a line of words after a blank line inside a cue is no identifier of the next cue', async () => {
    const { lines, said } = await read('blank.srt', '1\n00:00:01,000 --> 00:00:02,000\nHello\n\nworld\n00:00:03,000 --> 00:00:04,000\nNext\n');
    expect(lines).toEqual(['[00:00:01] Hello world Next']);
    expect(said).toEqual([]);
  });
});

describe('encodings that were guessed wrongly with confidence', () => {
  it('a UTF-8 file with one stray Windows-1252 byte keeps its UTF-8 letters', async () => {
    const bytes = Buffer.concat([Buffer.from('1\n00:00:01,000 --> 00:00:02,000\nJosé said caf'), Buffer.from([0xe9]), Buffer.from(' is open\n')]);
    const { lines } = await read('mixed.srt', bytes);
    expect(lines).toEqual(['[00:00:01] José said café is open']);
  });

  it('a UTF-8 file full of accents with one bad byte is read, not refused', async () => {
    const bytes = Buffer.concat([Buffer.from(srt('Café crème déjà vu, naïve façade, Zürich', 'Ok')), Buffer.from([0xe9, 0x0a])]);
    const { lines } = await read('mixed2.srt', bytes);
    expect(lines).toEqual(['[00:00:00] Café crème déjà vu, naïve façade, Zürich Ok é']);
  });

  it('one short Czech line in Windows-1250 is not read as Windows-1252 (Dìkuji, pøišli)', async () => {
    const { lines } = await read('czech.srt', iconv.encode(srt('Děkuji, že jste přišli'), 'windows-1250'));
    expect(lines).toEqual(['[00:00:00] Děkuji, že jste přišli']);
  });
});

describe('no control character reaches a note', () => {
  it('NUL and other C0 controls past the binary probe are dropped', async () => {
    const bytes = Buffer.concat([Buffer.from(srt('a'.repeat(9000), 'bell')), Buffer.from([0x07, 0x00, 0x1b]), Buffer.from(' here\n')]);
    const { lines } = await read('ctrl.srt', bytes);
    expect(lines.join('\n')).not.toMatch(/[\u0000-\u0008\u000B-\u001F\u007F]/);
    expect(lines.at(-1)).toMatch(/bell here$/);
  });
});

describe('a timing line cut short', () => {
  it('a timing line without its end time starts a cue: no index or arrow reaches a note', async () => {
    const { lines } = await read('cut.srt', '1\n00:00:01,000 --> 00:00:02,000\nHello\n\n2\n00:00:03,000 -->\nthere\n');
    expect(lines).toEqual(['[00:00:01] Hello there']);
  });

  it('words with an arrow in them stay words', async () => {
    const { lines } = await read('arrow.srt', '1\n00:00:01,000 --> 00:00:02,000\nstep 10 --> the next step\n');
    expect(lines).toEqual(['[00:00:01] step 10 --> the next step']);
  });
});

describe('an impossible time in a text transcript', () => {
  it("an Otter head with an impossible time is still the head: Bob's words are not Ann's", async () => {
    const { lines, said } = await read('otter.txt', 'Ann Lee  0:01\nhi there\n\nBob Stone  0:99\nhello\n\nAnn Lee  0:07\nbye\n');
    expect(lines).toEqual(['[00:00:01] Ann Lee: hi there', '[00:00:01] Bob Stone: hello', '[00:00:07] Ann Lee: bye']);
    expect(said).toEqual(['1 cue had a time that cannot be a time, its words are kept at the time of the cue before: line 4 of the file']);
  });

  it('a Fathom head with an impossible time likewise', async () => {
    const { lines, said } = await read('fathom.txt', '@0:01 - Ann Lee\nhi there\n\n@0:99 - Bob Stone\nhello\n\n@0:07 - Ann Lee\nbye\n');
    expect(lines).toEqual(['[00:00:01] Ann Lee: hi there', '[00:00:01] Bob Stone: hello', '[00:00:07] Ann Lee: bye']);
    expect(said).toHaveLength(1);
  });

  it('a line time stamp that cannot be a time is reported, with its line in the file after the frontmatter', async () => {
    const { lines, said } = await read('lines.md', '---\ntitle: x\n---\n[00:00:01] Ann: hi\n[99:99:99] Bob: hello\n[00:00:05] Ann: bye\n');
    expect(lines).toEqual(['[00:00:01] Ann: hi', '[00:00:01] Bob: hello', '[00:00:05] Ann: bye']);
    expect(said).toEqual(['1 cue had a time that cannot be a time, its words are kept at the time of the cue before: line 5 of the file']);
  });
});

describe('CJK code pages the detector is sure of', () => {
  it.each([
    ['Shift_JIS', 'こんにちは、今日の会議を始めます。'],
    ['gb18030', '大家好，我们开始开会吧。'],
  ])('a %s line with its own punctuation (、，。) is read, not refused', async (encoding, line) => {
    const { lines } = await read('cjk.srt', iconv.encode(srt(line), encoding));
    expect(lines).toEqual([`[00:00:00] ${line}`]);
  });
});

describe('labels of meeting minutes are no speakers', () => {
  it('a .txt of minutes (Attendees:, Date:, Budget:, Owner:, Deadline:) puts no label among the attendees', async () => {
    const text = 'Attendees: Ann, Bob\nDate: 2 December\nBudget: ten thousand\nOwner: Ann\nDeadline: Friday\nDecisions: we ship\n';
    const cues = await readTranscript({ name: 'minutes.txt', bytes: Buffer.from(text) });
    expect(attendeesOf(cues)).toEqual([]);
    expect(transcriptLines(cues)).toHaveLength(6);
  });
});

describe('a number at the end of a cue', () => {
  it('is the next index only when it is one: the cue before said "42"', async () => {
    const { lines } = await read('n.srt', '1\n00:00:01,000 --> 00:00:02,000\nThe answer is\n42\n2\n00:00:03,000 --> 00:00:04,000\nok\n');
    expect(lines).toEqual(['[00:00:01] The answer is 42 ok']);
  });

  it('in a file without indices a number before a timing line is what was said', async () => {
    const { lines } = await read('n.srt', '00:00:01,000 --> 00:00:02,000\nThe answer is\n42\n00:00:03,000 --> 00:00:04,000\nok\n');
    expect(lines).toEqual(['[00:00:01] The answer is 42 ok']);
  });
});

describe('UTF-16 without a BOM', () => {
  it('of Cyrillic text (a NUL only in the ASCII characters\u2019 bytes) is read, not refused as binary', async () => {
    const text = srt('Добрый день, как дела у всех сегодня', 'Хорошо, спасибо, начнём обсуждение');
    const { lines } = await read('ru.srt', Buffer.from(text, 'utf16le'));
    expect(lines).toEqual(['[00:00:00] Добрый день, как дела у всех сегодня Хорошо, спасибо, начнём обсуждение']);
  });

  it('a binary file of small 16-bit numbers stays refused', async () => {
    const bytes = Buffer.alloc(4000);
    for (let i = 0; i < 2000; i++) bytes.writeUInt16LE((i * 37) % 200, i * 2);
    await expect(read('data.txt', bytes)).rejects.toThrow(/binary/);
  });
});

describe('a sentence with a colon in a file of Name: lines', () => {
  it('is no speaker when its prefix is no name and never recurs', async () => {
    const cues = await readTranscript({ name: 'chat.txt', bytes: Buffer.from('Ann: hi\nBob: hello\nthe plan is simple: we ship\nanand sharma: ok\nanand sharma: good\n') });
    expect(cues.map((c) => c.speaker)).toEqual(['Ann', 'Bob', undefined, 'anand sharma', 'anand sharma']);
    expect(transcriptLines(cues)[2]).toBe('[00:00:00] the plan is simple: we ship');
  });
});

import { readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { type Cue, ImportError } from '../../src/import/cues.js';
import { readTranscript } from '../../src/import/formats/index.js';

const FIXTURES = path.join(path.dirname(fileURLToPath(import.meta.url)), '..', 'fixtures', 'import');

/** The cues without where they are in the file (`line`, for the import's report: tested in quirks.test.ts). */
const placeless = (cues: Cue[]) => cues.map(({ line: _line, ...cue }) => cue);
const read = async (name: string) => placeless(await readTranscript({ name, bytes: readFileSync(path.join(FIXTURES, name)) }));
const inline = async (name: string, text: string | Uint8Array) => placeless(await readTranscript({ name, bytes: typeof text === 'string' ? Buffer.from(text) : text }));

describe('WebVTT', () => {
  it('Teams: cue ids, the speaker in a voice tag', async () => {
    expect(await read('teams-voice-tags.vtt')).toEqual([
      { start: 5.12, end: 8.4, speaker: 'Alice Example', text: "Good morning, let's start with the release." },
      { start: 8.4, end: 11, speaker: 'Alice Example', text: 'The notes are in the channel.' },
      { start: 12, end: 15.5, speaker: 'Bob Builder', text: 'The build is green since Friday.' },
    ]);
  });

  it('Teams: a voice tag left open and unpadded hours', async () => {
    expect(await read('teams-open-voice-unpadded.vtt')).toEqual([
      { start: 5.12, end: 8.4, speaker: 'Alice Example', text: 'We ship on Monday' },
      { start: 3723, end: 3726.25, speaker: 'Bob Builder', text: 'Agreed, Monday it is' },
    ]);
  });

  it("Zoom: numbered cues and a Name: prefix, not fooled by a colon inside the text", async () => {
    const cues = await read('zoom-numbered-prefix.vtt');
    expect(cues.map((c) => [c.speaker, c.text])).toEqual([
      ['Alice Example', 'The plan is simple.'],
      ['Bob', 'We meet at 10:30 tomorrow.'],
      [undefined, 'Note: this line has a colon but no speaker.'],
    ]);
  });

  it('a BOM, CRLF and mm:ss.ttt timings without hours', async () => {
    expect(await read('bom-crlf-mmss.vtt')).toEqual([
      { start: 1, end: 3.5, speaker: 'Alice', text: 'Short timings without hours.' },
      { start: 4, end: 6, speaker: 'Bob', text: 'And CRLF line ends.' },
    ]);
  });

  it('header metadata, STYLE, REGION and NOTE blocks are dropped; cue settings ignored', async () => {
    expect(await read('blocks-and-header.vtt')).toEqual([{ start: 1, end: 3, speaker: 'Alice', text: 'Only this is speech.' }]);
  });

  it('inline markup, inline time stamps, ruby and entities become plain text', async () => {
    expect(await read('inline-markup.vtt')).toEqual([
      { start: 15, end: 20, speaker: 'Alice', text: 'Look at this, bold, italic and underlined text with 漢 & <tags> gone.' },
    ]);
  });

  it('a multi-line cue is one cue with every line', async () => {
    expect((await read('multiline-cue.vtt'))[0]!.text).toBe('The first line of the cue and its second line and a third.');
  });

  it('a file that is not WebVTT says so', async () => {
    await expect(inline('x.vtt', '1\n00:00:01,000 --> 00:00:02,000\nhi\n')).rejects.toThrow(/does not start with "WEBVTT".*\.srt/);
  });
});

describe('SubRip', () => {
  it('WhisperX [SPEAKER_00]: prefixes; a bracketed sound is text', async () => {
    expect((await read('whisperx.srt')).map((c) => [c.start, c.speaker, c.text])).toEqual([
      [0, 'SPEAKER_00', 'Hello there.'],
      [2.5, 'SPEAKER_01', 'Hi, how are you?'],
      [5, undefined, '[Music] plays in the background.'],
    ]);
  });

  it('whisper.cpp (speaker 0) prefixes', async () => {
    expect((await read('whispercpp-diarize.srt')).map((c) => [c.speaker, c.text])).toEqual([
      ['Speaker 0', 'We start with the budget.'],
      ['Speaker 1', 'The budget is fine.'],
    ]);
  });

  it('Name: prefixes, the first colon only', async () => {
    expect((await read('names.srt')).map((c) => [c.speaker, c.text])).toEqual([
      ['Alice Example', 'First point: the roadmap.'],
      ['Bob', 'Second point.'],
    ]);
  });

  it("whisper.cpp's [SPEAKER_TURN] starts a new turn", async () => {
    const cues = await read('tinydiarize.srt');
    expect(cues.map((c) => [c.text, c.turn])).toEqual([
      ['Is the build green?', undefined],
      ['Yes it is.', true],
    ]);
  });
});

describe('JSON', () => {
  it('whisper.cpp -oj: offsets in ms, text trimmed, no speakers', async () => {
    expect(await read('whispercpp-oj.json')).toEqual([
      { start: 0, end: 4.12, text: 'And so my fellow Americans,' },
      { start: 4.12, end: 7.5, text: 'ask not what your country can do for you.' },
    ]);
  });

  it('whisper.cpp -ojf with tokens and -di speakers ("?" is no speaker)', async () => {
    expect((await read('whispercpp-ojf-speakers.json')).map((c) => [c.speaker, c.text])).toEqual([
      ['Speaker 0', 'Hello.'],
      ['Speaker 1', 'Hi back.'],
      [undefined, 'Unclear.'],
    ]);
  });

  it('whisper.cpp -tdrz speaker_turn_next marks the next segment as a new turn', async () => {
    expect((await read('whispercpp-tdrz.json')).map((c) => c.turn)).toEqual([undefined, true, undefined]);
  });

  it('whisper.cpp with only the timestamps strings', async () => {
    const json = JSON.stringify({ transcription: [{ timestamps: { from: '00:01:00,500', to: '00:01:02,000' }, text: ' hi' }] });
    expect(await inline('a.json', json)).toEqual([{ start: 60.5, end: 62, text: 'hi' }]);
  });

  it('WhisperX segments in seconds, with and without speaker', async () => {
    expect((await read('whisperx.json')).map((c) => [c.start, c.end, c.speaker, c.text])).toEqual([
      [0.031, 2.5, 'SPEAKER_00', 'Welcome everyone.'],
      [2.6, 5, 'SPEAKER_01', 'Thanks, Carol here.'],
      [5.1, 6, undefined, 'No speaker on this one.'],
    ]);
  });

  it('JSON of another shape, and broken JSON, say what was expected', async () => {
    await expect(inline('a.json', '{"foo": []}')).rejects.toThrow(/transcription.*segments/);
    await expect(inline('a.json', '{"foo": ')).rejects.toThrow(/not valid JSON/);
  });
});

describe('plain text', () => {
  it("Otter's blocks: Name  m:ss or h:mm:ss, then the text; the footer dropped", async () => {
    expect(await read('otter.txt')).toEqual([
      { start: 5, end: 5, speaker: 'Alice Example', text: "Good morning everyone. Let's start." },
      { start: 42, end: 42, speaker: 'Bob Builder', text: "The build is green. Second line of Bob's paragraph." },
      { start: 3723, end: 3723, speaker: 'Alice Example', text: 'Wrapping up after an hour.' },
    ]);
  });

  it('Name: text lines with [00:01:02], 00:01:02, (1:02) or no time stamp; bold names', async () => {
    expect((await read('names-times.txt')).map((c) => [c.start, c.speaker, c.text])).toEqual([
      [62, 'Alice', 'The first point.'],
      [90, 'Bob', 'We meet at 10:30.'],
      [125, 'Alice', 'Fine.'],
      [125, 'Carol', 'Bold names work too.'],
    ]);
  });

  it('anything else is one speakerless paragraph per line', async () => {
    expect((await read('plain.txt')).map((c) => [c.speaker, c.text])).toEqual([
      [undefined, 'This is just a paragraph without any speaker.'],
      [undefined, 'And here is another one: with a colon.'],
    ]);
  });

  it('a .md note: its frontmatter is not speech', async () => {
    expect(await inline('n.md', '---\ntitle: x\n---\nAlice: hello\n')).toEqual([{ start: 0, end: 0, speaker: 'Alice', text: 'hello' }]);
  });

  it('UTF-16 with a BOM (Windows tools) is read', async () => {
    const bytes = Buffer.concat([Buffer.from([0xff, 0xfe]), Buffer.from('Alice: hallo\n', 'utf16le')]);
    expect(await inline('w.txt', bytes)).toEqual([{ start: 0, end: 0, speaker: 'Alice', text: 'hallo' }]);
  });
});

describe('Word', () => {
  it("a Teams .docx: paragraphs alternating 'Name  0:01:23' and the text", async () => {
    expect(await read('teams-transcript.docx')).toEqual([
      { start: 0, end: 0, text: 'Weekly Sync transcript', turn: true },
      { start: 3, end: 3, speaker: 'Alice Example', text: 'Good morning, the release is ready.' },
      { start: 75, end: 75, speaker: 'Bob Builder', text: 'Then we ship on Monday.' },
    ]);
  });

  it('a .docx that is no Word document is an import error', async () => {
    await expect(inline('bad.docx', 'not a zip')).rejects.toThrow(ImportError);
  });
});

describe('what cannot be imported', () => {
  it('an unknown extension, an empty file, a binary file, a file without cues', async () => {
    await expect(inline('a.pdf', 'x')).rejects.toThrow(/"\.pdf" is not a format the import reads; accepted: \.vtt/);
    await expect(inline('a.vtt', '')).rejects.toThrow(/a\.vtt is empty/);
    await expect(inline('a.txt', new Uint8Array([1, 0, 2, 0, 3]))).rejects.toThrow(/binary file/);
    await expect(inline('a.vtt', 'WEBVTT\n\nNOTE nothing\n')).rejects.toThrow(/holds no cue/);
    await expect(inline('a.txt', '\n\n  \n')).rejects.toThrow(ImportError);
  });
});

describe('WebVTT without a blank line after the header', () => {
  it('keeps the first cue', async () => {
    expect(await inline('x.vtt', 'WEBVTT\n00:00:01.000 --> 00:00:02.000\n<v A>first\n\n00:00:03.000 --> 00:00:04.000\n<v A>second\n')).toHaveLength(2);
  });
});

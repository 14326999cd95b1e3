import { type Cue, ImportError, type SourceFile } from '../cues.js';
import type { ReadReport } from '../read-report.js';
import { plainCueText } from './markup.js';
import { hasInlineTimes, unrolled } from './rolling.js';
import { attributePrefixes } from './speaker-prefix.js';
import { subtitleBlocks } from './subtitle-blocks.js';
import { decodeText } from './text-decode.js';

/**
 * WebVTT (docs/design.md §9), written by hand rather than with a WebVTT library: the
 * variants Teams and Zoom write are what matters, and a strict parser refuses them (an
 * unpadded hour `0:00:05.120` is no valid WebVTT timestamp, a `<v>` left open is an error).
 * Teams names the speaker in a voice tag; Zoom writes `Name: text`; YouTube rolls its
 * auto-captions (rolling.ts).
 */
export function readVtt(file: SourceFile, report: ReadReport): Cue[] {
  const text = decodeText(file);
  if (!/^WEBVTT([ \t\r\n]|$)/.test(text)) {
    throw new ImportError(`${file.name} does not start with "WEBVTT": it is no WebVTT file; if it is SubRip, name it .srt`);
  }
  const read = [];
  for (const raw of subtitleBlocks(text, { webvtt: true, report })) {
    const lines = raw.text.split('\n').map((line) => plainCueText(line).text).filter((line) => line !== '');
    read.push({ inlineTimes: hasInlineTimes(raw.text), lines, cue: { start: raw.start, end: raw.end, line: raw.line, speaker: plainCueText(raw.text).speaker } });
  }
  const fresh = unrolled(read);
  const cues: Cue[] = [];
  read.forEach(({ cue: { speaker, ...cue } }, i) => {
    const said = fresh[i]!.join(' ');
    if (said !== '') cues.push({ ...cue, ...(speaker ? { speaker } : {}), text: said });
  });
  return attributePrefixes(cues);
}

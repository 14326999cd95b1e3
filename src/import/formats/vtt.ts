import { type Cue, ImportError, type SourceFile } from '../cues.js';
import type { ReadReport } from '../read-report.js';
import { plainLines, voiceOf, WEBVTT_TAGS } from './markup.js';
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
  const cues: Cue[] = [];
  const multiLine = new Map<Cue, string[]>();
  let inlineTimes = false;
  for (const raw of subtitleBlocks(text, { webvtt: true, report })) {
    for (const part of voices(raw.text)) {
      const lines = plainLines(part, WEBVTT_TAGS);
      if (lines.length === 0) continue;
      const speaker = voiceOf(part);
      const cue: Cue = { start: raw.start, end: raw.end, line: raw.line, ...(speaker ? { speaker } : {}), text: lines.join(' ') };
      cues.push(cue);
      if (lines.length > 1) multiLine.set(cue, lines);
    }
    inlineTimes ||= hasInlineTimes(raw.text);
  }
  return attributePrefixes(unrolled(cues, multiLine, inlineTimes));
}

const VOICE = /<v(?:\.[^\s<>]*)?\s+[^<>]+>/gi;

/**
 * A cue in which two people speak (`<v Ann>Yes.</v>\n<v Bob>No.</v>`, as WebVTT allows and
 * some editors write) is one cue per voice: each person's words under their own name.
 */
function voices(raw: string): string[] {
  // One voice tag, as in every cue of a Teams file: nothing to split.
  const first = raw.indexOf('<v');
  if (first < 0 || raw.indexOf('<v', first + 2) < 0) return [raw];
  const starts = [...raw.matchAll(VOICE)].map((m) => m.index);
  if (starts.length < 2) return [raw];
  const parts = starts[0]! > 0 ? [raw.slice(0, starts[0])] : [];
  starts.forEach((at, i) => parts.push(raw.slice(at, starts[i + 1])));
  return parts;
}

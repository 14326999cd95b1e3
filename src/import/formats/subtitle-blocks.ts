import { parseClock } from './clock-time.js';

/**
 * The block structure WebVTT and SubRip share: blocks separated by blank lines, a cue block
 * being an optional identifier line (Teams: a GUID or `…/12-0`; SubRip and Zoom: a number),
 * a timing line `start --> end [settings]`, then the text lines. A block without a timing
 * line is no cue (WebVTT's header, NOTE, STYLE and REGION blocks, stray text).
 */
export interface RawCue {
  start: number;
  end: number;
  /** The text lines as written, joined with `\n`. */
  text: string;
}

const TIMING = /^\s*(\S+)\s+-->\s+(\S+)(?:\s.*)?$/;

export function subtitleBlocks(lines: string[]): RawCue[] {
  const cues: RawCue[] = [];
  let i = 0;
  while (i < lines.length) {
    while (i < lines.length && lines[i]!.trim() === '') i++;
    const begin = i;
    while (i < lines.length && lines[i]!.trim() !== '') i++;
    const block = lines.slice(begin, i);
    if (block.length === 0) continue;
    const t = block.findIndex((line) => line.includes('-->'));
    // A timing line is the first or the second line (after an identifier); a NOTE may mention "-->" later.
    if (t < 0 || t > 1 || /^(NOTE|STYLE|REGION|WEBVTT)\b/.test(block[0]!)) continue;
    const m = TIMING.exec(block[t]!);
    const start = m ? parseClock(m[1]!) : undefined;
    const end = m ? parseClock(m[2]!) : undefined;
    if (start === undefined) continue;
    cues.push({ start, end: end ?? start, text: block.slice(t + 1).join('\n') });
  }
  return cues;
}

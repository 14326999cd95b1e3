import { parseClock } from './clock-time.js';

/**
 * The block structure WebVTT and SubRip share: blocks separated by blank lines, a cue block
 * being an optional identifier line (Teams: a GUID or `…/12-0`; SubRip and Zoom: a number),
 * a timing line `start --> end [settings]`, then the text lines. A block without a timing
 * line is no cue (WebVTT's header, NOTE, STYLE and REGION blocks, stray text).
 *
 * A generator over the text, one block at a time: a 3-hour meeting has 20,000 cues, and
 * neither its lines nor its raw cues are kept all at once (bench/import.mjs, peak memory).
 */
export interface RawCue {
  start: number;
  end: number;
  /** The text lines as written, joined with `\n`. */
  text: string;
}

const TIMING = /^\s*(\S+)\s+-->\s+(\S+)(?:\s.*)?$/;
/** A run of blank lines, whatever the line endings (a CRLF is one line end, never a CR and an LF). */
const BLANK = /(?:\r\n|\r(?!\n)|\n)(?:[ \t]*(?:\r\n|\r(?!\n)|\n))+/g;

function* blocks(text: string): Generator<string> {
  const blank = new RegExp(BLANK.source, 'g');
  let from = 0;
  for (let m = blank.exec(text); m; m = blank.exec(text)) {
    yield text.slice(from, m.index);
    from = m.index + m[0].length;
  }
  yield text.slice(from);
}

export function* subtitleBlocks(text: string): Generator<RawCue> {
  for (const raw of blocks(text)) {
    const block = raw.split(/\r\n|\r|\n/).filter((line) => line.trim() !== '');
    if (block.length === 0) continue;
    const t = block.findIndex((line) => line.includes('-->'));
    // A timing line is the first or the second line (after an identifier, or right after a
    // WEBVTT line that a generator did not follow by a blank line); a NOTE may mention "-->" later.
    if (t < 0 || t > 1 || /^(NOTE|STYLE|REGION)\b/.test(block[0]!)) continue;
    const m = TIMING.exec(block[t]!);
    const start = m ? parseClock(m[1]!) : undefined;
    const end = m ? parseClock(m[2]!) : undefined;
    if (start === undefined) continue;
    yield { start, end: end ?? start, text: block.slice(t + 1).join('\n') };
  }
}

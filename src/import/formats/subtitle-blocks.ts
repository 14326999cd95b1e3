import type { ReadReport } from '../read-report.js';
import { parseClock } from './clock-time.js';

/**
 * The cue structure WebVTT and SubRip share (docs/design.md §9): an optional identifier line
 * (Teams: a GUID or `…/12-0`; SubRip and Zoom: a number), a timing line `start --> end
 * [settings]`, then the text lines, up to a blank line or the next timing line.
 *
 * Read as the WebVTT parsing rules read it rather than block by block: a timing line ends
 * the cue before it even without a blank line (YouTube and yt-dlp auto-captions, hand-edited
 * `.srt`), and a number right above it is its index, not text. Text after a blank line that
 * no timing line follows (a blank line inside a SubRip cue) belongs to the cue before, so no
 * word is lost; before the first cue it is WebVTT's header (or a NOTE, STYLE or REGION block,
 * dropped anywhere) and in SubRip a loss the report names.
 *
 * A generator over the text, one line at a time: a 3-hour meeting has 20,000 cues, and
 * neither its lines nor its raw cues are kept all at once (bench/import.mjs, peak memory).
 */
export interface RawCue {
  /** Seconds; NaN when the timing line's time cannot be a time (docs/design.md §9, Limits). */
  start: number;
  end: number;
  /** The text lines as written, joined with `\n`. */
  text: string;
  /** 1-based line of the timing line in the file. */
  line: number;
}

export interface SubtitleOptions {
  /** WebVTT: a header block first, and NOTE, STYLE and REGION blocks that are no speech. */
  webvtt: boolean;
  report: ReadReport;
}

/**
 * Two times around `-->` (hand-edited files also write `--->`), with or without spaces, cue
 * settings after; any other line with an arrow in it is text.
 */
const TIMING = /^\s*(-?[\d:.,]+)\s*-{2,}>\s*(-?[\d:.,]+)(?:[ \t].*)?$/;
/** A timing line cut short after its arrow (`00:00:03,000 -->`): a cue that ends where it starts. */
const CUT_TIMING = /^\s*(-?\d[\d.,]*:[\d:.,]*)\s*-{2,}>\s*$/;
/**
 * A timing line whose times are none (a converter's `NaN:NaN:NaN --> NaN:NaN:NaN line:-1`):
 * one word with a colon or a digit before the arrow. WebVTT's parser takes any line with `-->`
 * for a timing line; a sentence that says `A --> B` (words before the arrow) stays text here,
 * so that no words are lost. Its cue keeps its words at the time of the cue before, and the
 * import says so (docs/design.md §9, Limits); the line itself is no speech.
 */
const UNREADABLE_TIMING = /^\s*\S*[\d:]\S*\s*-{2,}>/;
const INDEX = /^\s*\d+\s*$/;
const COMMENT = /^(?:NOTE|STYLE|REGION)(?:[ \t]|$)/;

function* lines(text: string): Generator<string> {
  const end = /\r\n|\r|\n/g;
  let from = 0;
  for (let m = end.exec(text); m; m = end.exec(text)) {
    yield text.slice(from, m.index);
    from = m.index + m[0].length;
  }
  yield text.slice(from);
}

interface Open {
  start: number;
  end: number;
  line: number;
  text: string[];
  /** Whether an identifier stood above its timing line. */
  identified: boolean;
}

export function* subtitleBlocks(text: string, options: SubtitleOptions): Generator<RawCue> {
  let cue: Open | undefined;
  /** Lines after a blank line that no timing line has claimed yet, with the first one's number. */
  let block: string[] = [];
  let blockLine = 0;
  let blank = true;
  let comment = false;
  let header = options.webvtt;
  let n = 0;
  const settle = () => {
    // A block no timing line followed: the cue before goes on, else it is header or a loss.
    // A lone number is an index whose timing line got lost or sits after a blank line: no words.
    if (block.length === 0 || (block.length === 1 && INDEX.test(block[0]!))) {
      block = [];
      return;
    }
    if (cue) cue.text.push(...block);
    else if (!header) options.report.lost(blockLine);
    block = [];
  };
  for (const line of lines(text)) {
    n++;
    if (line.trim() === '') {
      if (!comment) settle();
      blank = true;
      comment = false;
      header = false;
      continue;
    }
    if (comment) continue;
    const timing = line.includes('->') ? (TIMING.exec(line) ?? CUT_TIMING.exec(line) ?? unreadable(line)) : null;
    if (timing) {
      // The line just above is the identifier: the last line of a fresh block (in SubRip only
      // a number: a line of words there is text after a blank line inside the cue before),
      // or an index number at the end of the cue before (no blank line between the cues).
      // A number at the end of the cue before is an index only in a file of indices (that cue
      // had one): elsewhere it is what was said (`The answer is` / `42`).
      let identified = false;
      if (block.length > 0 && (options.webvtt || INDEX.test(block.at(-1)!))) identified = block.pop() !== undefined;
      else if (cue?.identified && cue.text.length > 0 && INDEX.test(cue.text.at(-1)!)) identified = cue.text.pop() !== undefined;
      settle();
      if (cue) yield done(cue);
      const start = (timing[1] === undefined ? undefined : parseClock(timing[1])) ?? NaN;
      cue = { start, end: (timing[2] === undefined ? undefined : parseClock(timing[2])) ?? start, line: n, text: [], identified };
      blank = false;
      header = false;
      continue;
    }
    if (blank && options.webvtt && block.length === 0 && COMMENT.test(line)) {
      comment = true;
      continue;
    }
    if (blank || header) {
      if (block.length === 0) blockLine = n;
      block.push(line);
    } else cue?.text.push(line);
  }
  settle();
  if (cue) yield done(cue);
}

/** An unreadable timing line as a match with no times in it (both then NaN). */
function unreadable(line: string): string[] | null {
  return UNREADABLE_TIMING.test(line) ? [line] : null;
}

function done(cue: Open): RawCue {
  return { start: cue.start, end: cue.end, line: cue.line, text: cue.text.join('\n') };
}

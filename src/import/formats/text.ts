import { type Cue, ImportError, type SourceFile } from '../cues.js';
import { parseClock } from './clock-time.js';
import { looksLikeName, splitSpeaker } from './speaker-prefix.js';
import { decodeText, splitLines } from './text-decode.js';

/**
 * Plain-text transcripts (`.txt`, `.md`; docs/design.md §9):
 * - Otter's blocks and a Teams `.docx`'s paragraphs: a line `Name  0:05` (or `Name  1:02:03`),
 *   then the text, up to the next such line;
 * - lines `Name: text`, optionally after a time stamp (`[00:01:02]`, `00:01:02`, `(1:02)`);
 *   our own transcript lines `[00:00:05] **Alice**: text` are of this kind;
 * - anything else: one speakerless paragraph per line.
 */

/** `Alice Example  0:05`: a speaker's name, then the time it starts speaking. */
const BLOCK_HEAD = /^(\S.{0,60}?)\s+(\d{1,2}:\d{2}(?::\d{2})?)\s*$/;
const LEADING_TIME = /^\s*(?:\[(\d{1,3}:\d{2}(?::\d{2})?(?:[.,]\d{1,3})?)\]|\((\d{1,3}:\d{2}(?::\d{2})?)\)|(\d{1,3}:\d{2}:\d{2}(?:[.,]\d{1,3})?))\s*[-–]?\s*(.*)$/s;
const OTTER_FOOTER = /^transcribed by (https?:\/\/)?otter\.ai\b/i;

export function readText(file: SourceFile): Cue[] {
  const text = withoutFrontmatter(decodeText(file));
  return textCues(splitLines(text));
}

/** A Markdown note's frontmatter is the note's properties, not what was said. */
function withoutFrontmatter(text: string): string {
  const m = /^---\r?\n[\s\S]*?\r?\n---[ \t]*(\r?\n|$)/.exec(text);
  return m ? text.slice(m[0].length) : text;
}

function blockHead(line: string): { speaker: string; start: number } | undefined {
  const m = BLOCK_HEAD.exec(line);
  if (!m || !looksLikeName(m[1]!)) return undefined;
  const start = parseClock(m[2]!);
  return start === undefined ? undefined : { speaker: m[1]!.trim(), start };
}

export function textCues(lines: string[]): Cue[] {
  const kept = lines.filter((line) => !OTTER_FOOTER.test(line.trim()));
  // Otter-style only when a head line is followed by text (a Word document puts a blank line
  // between paragraphs): a line that merely ends in a time stays text.
  const texts = kept.filter((line) => line.trim() !== '');
  const heads = texts.filter((line, i) => blockHead(line) && i + 1 < texts.length && !blockHead(texts[i + 1]!));
  return heads.length > 0 ? blockCues(kept) : lineCues(kept);
}

function blockCues(lines: string[]): Cue[] {
  const cues: Cue[] = [];
  let current: Cue | undefined;
  const flush = () => {
    if (current && current.text !== '') cues.push(current);
    current = undefined;
  };
  for (const line of lines) {
    const head = blockHead(line);
    if (head) {
      flush();
      current = { start: head.start, end: head.start, speaker: head.speaker, text: '' };
      continue;
    }
    const words = line.trim();
    if (words === '') continue;
    // Text before the first head (a title line) is kept as speakerless speech at 0.
    current ??= { start: cues.at(-1)?.start ?? 0, end: cues.at(-1)?.start ?? 0, text: '' };
    current.text = current.text === '' ? words : `${current.text} ${words}`;
  }
  flush();
  return cues;
}

function lineCues(lines: string[]): Cue[] {
  const cues: Cue[] = [];
  let last = 0;
  for (const line of lines) {
    let rest = line.trim();
    if (rest === '') continue;
    const timed = LEADING_TIME.exec(rest);
    if (timed) {
      last = parseClock((timed[1] ?? timed[2] ?? timed[3])!) ?? last;
      rest = timed[4]!.trim();
    }
    const said = splitSpeaker(rest);
    const text = (said?.text ?? rest).trim();
    if (text === '') continue;
    cues.push({ start: last, end: last, ...(said ? { speaker: said.speaker } : {}), text });
  }
  if (cues.length === 0) throw new ImportError('the file holds no text');
  return cues;
}

import { type Cue, ImportError, type SourceFile } from '../cues.js';
import { parseClock } from './clock-time.js';
import { attributePrefixes, isReasonableName, looksLikeName } from './speaker-prefix.js';
import { decodeText, splitLines } from './text-decode.js';

/**
 * Plain-text transcripts (`.txt`, `.md`; docs/design.md §9):
 * - blocks: a head line naming the speaker and the time, then the text up to the next head:
 *   Otter's `Name  0:05` (or `Name  1:02:03`), Otter's Markdown `**Name**  0:05`, Fathom's
 *   `@0:05 - Name` (also without the `@`), and a Teams `.docx`'s paragraphs;
 * - lines `Name: text`, optionally after a time stamp (`[00:01:02]`, `00:01:02`, `(1:02)`);
 *   our own transcript lines `[00:00:05] **Alice**: text` are of this kind;
 * - anything else: one speakerless transcript line per paragraph (lines that follow each
 *   other without a blank line are one paragraph when the file puts blank lines between its
 *   paragraphs, else each line is one).
 */

/** `Alice Example  0:05`: a speaker's name, then the time it starts speaking. */
const OTTER_HEAD = /^(\S.{0,60}?)\s+(\d{1,2}:\d{2}(?::\d{2})?)\s*$/;
/** Otter's Markdown export: `**Alice Example**  0:05` (the time also in brackets or inside the bold). */
const BOLD_HEAD = /^\*\*([^*]{1,60}?)\s*(?:\*\*\s*[[(]?|\s+)(\d{1,2}:\d{2}(?::\d{2})?)[\])]?\s*(?:\*\*)?\s*$/;
/** Fathom: `@0:05 - Alice Example` (`.txt` and `.docx`; older exports without the `@`). */
const FATHOM_HEAD = /^@?(\d{1,2}:\d{2}(?::\d{2})?)\s+[-–—]\s+(\S.{0,80}?)\s*$/;
const LEADING_TIME = /^\s*(?:\[(\d{1,3}:\d{2}(?::\d{2})?(?:[.,]\d{1,3})?)\]|\((\d{1,3}:\d{2}(?::\d{2})?)\)|(\d{1,3}:\d{2}:\d{2}(?:[.,]\d{1,3})?))\s*[-–]?\s*(.*)$/s;
const OTTER_FOOTER = /^transcribed by (https?:\/\/)?otter\.ai\b/i;
/** A Markdown rule between the header of an export and its transcript: no words. */
const RULE = /^\s*(?:[-*_=]\s*){3,}$/;

export function readText(file: SourceFile): Cue[] {
  return textCues(splitLines(withoutFrontmatter(decodeText(file))));
}

/**
 * A Markdown note's frontmatter is the note's properties, not what was said: blank lines in
 * its place, so a line the report names is the line of the file.
 */
function withoutFrontmatter(text: string): string {
  const m = /^---\r?\n[\s\S]*?\r?\n---[ \t]*(\r?\n|$)/.exec(text);
  return m ? '\n'.repeat(m[0].split('\n').length - 1) + text.slice(m[0].length) : text;
}

function blockHead(line: string): { speaker: string; start: number } | undefined {
  const trimmed = line.trim();
  const bold = BOLD_HEAD.exec(trimmed);
  const fathom = bold ? undefined : FATHOM_HEAD.exec(trimmed);
  const otter = bold || fathom ? undefined : OTTER_HEAD.exec(trimmed);
  // Marked-up heads (bold, `@time - `) are heads by their shape; Otter's bare `Name  0:05`
  // only when the name looks like one, or a sentence ending in a time would be a head.
  const speaker = (bold?.[1] ?? fathom?.[2] ?? (otter && looksLikeName(otter[1]!) ? otter[1] : undefined))?.trim();
  const time = bold?.[2] ?? fathom?.[1] ?? otter?.[2];
  if (!speaker || time === undefined || !isReasonableName(speaker)) return undefined;
  // A head whose time cannot be a time (`0:99`) is a head all the same, or its speaker's words
  // would be the speaker's before; NaN, which the import reports (docs/design.md §9, Limits).
  return { speaker, start: parseClock(time) ?? NaN };
}

export function textCues(lines: string[]): Cue[] {
  const kept = lines.filter((line) => !OTTER_FOOTER.test(line.trim()));
  // Blocks only when a head line is followed by text (a Word document puts a blank line
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
  lines.forEach((line, i) => {
    const head = blockHead(line);
    if (head) {
      flush();
      current = { start: head.start, end: head.start, speaker: head.speaker, text: '', line: i + 1 };
      return;
    }
    const words = line.trim();
    if (words === '' || RULE.test(words)) return;
    // Text before the first head (a title line) is kept as speakerless speech at 0.
    current ??= { start: cues.at(-1)?.start ?? 0, end: cues.at(-1)?.start ?? 0, text: '', line: i + 1, turn: true };
    current.text = current.text === '' ? words : `${current.text} ${words}`;
  });
  flush();
  return cues;
}

function lineCues(lines: string[]): Cue[] {
  const cues: Cue[] = [];
  let last = 0;
  // Paragraphs are runs of lines when the file separates them with blank lines.
  const lastText = lines.findLastIndex((line) => line.trim() !== '');
  const wrapped = lines.some((line, i) => i > 0 && i < lastText && line.trim() === '' && lines[i - 1]!.trim() !== '');
  let blank = true;
  const untimed = new Set<Cue>();
  lines.forEach((line, i) => {
    let rest = line.trim();
    if (rest === '') {
      blank = true;
      return;
    }
    const timed = LEADING_TIME.exec(rest);
    const clock = timed ? parseClock((timed[1] ?? timed[2] ?? timed[3])!) : undefined;
    if (timed) {
      last = clock ?? last;
      rest = timed[4]!.trim();
    }
    if (rest === '') return;
    const previous = cues.at(-1);
    if (!timed && wrapped && !blank && previous && untimed.has(previous)) previous.text += ` ${rest}`;
    else {
      // A time stamp that cannot be a time: NaN, which the import reports.
      const start = timed && clock === undefined ? NaN : last;
      const cue: Cue = { start, end: start, text: rest, line: i + 1 };
      cues.push(cue);
      if (!timed) untimed.add(cue);
    }
    blank = false;
  });
  if (cues.length === 0) throw new ImportError('the file holds no text');
  attributePrefixes(cues);
  // A paragraph that names no speaker and no time is a transcript line of its own.
  for (const cue of cues) if (cue.speaker === undefined && untimed.has(cue)) cue.turn = true;
  return cues;
}

import { catLine } from '../../vault/format/lines.js';
import { countTokens } from '../../agent/window/tokens.js';

/**
 * Splitting a long transcript into parts that each fit one request, at speaker turns: a part
 * that ends in the middle of someone's turn leaves its notes without the end of the thought
 * and the next part's without its start.
 */

export interface LineRange {
  /** Inclusive, 1-based, counted over the whole transcript file (as read_transcript counts). */
  from: number;
  to: number;
}

/** `[00:01:02] Alice:` or `**Speaker 2**:` at the start of a line: the speaker, else undefined. */
const SPEAKER = /^\s*(?:\[[^\]]{1,20}\]\s*)?(?:\*\*)?([^:*\n[\]]{1,60}?)(?:\*\*)?\s*:/;

export function speakerOf(line: string): string | undefined {
  return SPEAKER.exec(line)?.[1]?.trim();
}

/** Tokens one line takes in a read result (`cat -n` line and its newline). */
export function lineTokens(n: number, text: string): number {
  return countTokens(catLine(n, text)) + 1;
}

/**
 * Parts of `lines` from line `from` to the end, each at most `maxTokens` (as `cat -n` lines;
 * a single line longer than that is a part of its own), each but the last as full as the room
 * allows. A part ends where a new speaker's turn starts, when one does in its second half; else
 * before a line that starts a turn; else where the room ends. Full parts, not parts of equal
 * size: where a part ends then depends only on the lines up to the first one that did not fit,
 * so the parts of a transcript still being written are cut where the finished transcript will
 * be cut, and their notes can be made while the meeting runs (docs/design.md §3 step 9).
 */
export function splitAtTurns(lines: readonly string[], from: number, maxTokens: number): LineRange[] {
  const start0 = Math.max(1, from);
  // after[n]: tokens of lines n..end.
  const after = new Array<number>(lines.length + 2).fill(0);
  for (let n = lines.length; n >= start0; n--) after[n] = after[n + 1]! + lineTokens(n, lines[n - 1] ?? '');
  const size = (n: number) => after[n]! - after[n + 1]!;
  const parts: LineRange[] = [];
  let start = start0;
  while (start <= lines.length) {
    const remaining = after[start]!;
    if (remaining <= maxTokens) {
      parts.push({ from: start, to: lines.length });
      break;
    }
    let used = 0;
    let n = start;
    while (n <= lines.length && (n === start || used + size(n) <= maxTokens)) used += size(n++);
    const cut = cutBefore(lines, start, n);
    parts.push({ from: start, to: cut - 1 });
    start = cut;
  }
  return parts;
}

/**
 * The parts from line `from` whose end can no longer move as lines are appended: every part
 * but the last, judged without the file's last line when it has no newline yet (a transcriber
 * may still be writing it).
 */
export function standingParts(lines: readonly string[], from: number, maxTokens: number, lastLineDone = true): LineRange[] {
  return splitAtTurns(lastLineDone ? lines : lines.slice(0, -1), from, maxTokens).slice(0, -1);
}

/** The line a part [start, end) should end before: the best turn boundary in its second half. */
function cutBefore(lines: readonly string[], start: number, end: number): number {
  const half = start + Math.floor((end - start) / 2);
  let anyTurn: number | undefined;
  for (let n = end; n > half && n > start; n--) {
    const speaker = speakerOf(lines[n - 1] ?? '');
    if (speaker === undefined) continue;
    if (speaker !== previousSpeaker(lines, n, start)) return n;
    anyTurn ??= n;
  }
  return anyTurn ?? end;
}

function previousSpeaker(lines: readonly string[], n: number, start: number): string | undefined {
  for (let m = n - 1; m >= start; m--) {
    const speaker = speakerOf(lines[m - 1] ?? '');
    if (speaker !== undefined) return speaker;
  }
  return undefined;
}

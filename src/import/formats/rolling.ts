import type { Cue } from '../cues.js';

/**
 * YouTube's rolling auto-captions (docs/design.md §9, "Files as they really are"): each cue
 * shows the line of the cue before again and adds a line of new words, and between them a
 * 10 ms cue shows a line once more. Of each cue only the lines the cue before did not end
 * with are new: the words as spoken, once.
 *
 * Only in a file that rolls: one with YouTube's inline word times (`<00:05:04.199><c>`), or
 * where at least a third of the cues show the line the cue before ended with and add a line
 * to it (a cue of one line that says what the cue before said is no evidence: a chorus of
 * `Yes.`, a sentence said twice). Elsewhere two cues saying the same (`Yes.`, `Yes.`) are two
 * things said, and both stay; and even in a file that rolls, a cue of another speaker is
 * never taken for a repetition of the cue before.
 */
const INLINE_TIME = /<\d{1,3}:\d{2}(?::\d{2})?[.,]\d{1,3}>/;

/** Whether a cue's raw text carries YouTube's inline word times. */
export function hasInlineTimes(raw: string): boolean {
  return raw.includes('<') && INLINE_TIME.test(raw);
}

/**
 * The cues as spoken: `lines` holds the plain lines of each cue of more than one line (a cue
 * not in it is the one line of its text; a 3-hour Teams file holds none, and nothing more is
 * kept for it); `inlineTimes` whether any cue had inline word times. A cue that brings no new
 * line goes: its words are in the cue before.
 */
export function unrolled(cues: Cue[], lines: ReadonlyMap<Cue, readonly string[]>, inlineTimes: boolean): Cue[] {
  const linesOf = (cue: Cue): readonly string[] => lines.get(cue) ?? [cue.text];
  let repeats = 0;
  for (let i = 1; i < cues.length; i++) {
    const own = linesOf(cues[i]!);
    if (own.length > 1 && own[0] === linesOf(cues[i - 1]!).at(-1)) repeats++;
  }
  if (!inlineTimes && !(repeats >= 2 && repeats * 3 >= cues.length)) return cues;
  const out: Cue[] = [];
  let previous: readonly string[] = [];
  let speaker: string | undefined;
  for (const cue of cues) {
    const own = linesOf(cue);
    const fresh = cue.speaker === speaker ? newLines(previous, own) : own;
    previous = own;
    speaker = cue.speaker;
    if (fresh.length === 0) continue;
    cue.text = fresh.join(' ');
    out.push(cue);
  }
  return out;
}

function newLines(previous: readonly string[], own: readonly string[]): readonly string[] {
  for (let k = Math.min(previous.length, own.length); k > 0; k--) {
    if (previous.slice(previous.length - k).every((line, j) => line === own[j])) return own.slice(k);
  }
  return own;
}

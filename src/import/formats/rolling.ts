/**
 * YouTube's rolling auto-captions (docs/design.md §9, "Files as they really are"): each cue
 * shows the line of the cue before again and adds a line of new words, and between them a
 * 10 ms cue shows a line once more. Of each cue only the lines the cue before did not end
 * with are new: the words as spoken, once.
 *
 * Only in a file that rolls: one with YouTube's inline word times (`<00:05:04.199><c>`), or
 * where at least a third of the cues start with the line the cue before ended with. Elsewhere
 * two cues saying the same (`Yes.`, `Yes.`) are two things said, and both stay.
 */
const INLINE_TIME = /<\d{1,3}:\d{2}(?::\d{2})?[.,]\d{1,3}>/;

/** Whether a cue's raw text carries YouTube's inline word times. */
export function hasInlineTimes(raw: string): boolean {
  return raw.includes('<') && INLINE_TIME.test(raw);
}

/** Each cue's new lines, given each cue's plain lines and whether it had inline word times. */
export function unrolled(cues: readonly { inlineTimes: boolean; lines: readonly string[] }[]): string[][] {
  let repeats = 0;
  for (let i = 1; i < cues.length; i++) if (cues[i]!.lines[0] !== undefined && cues[i]!.lines[0] === cues[i - 1]!.lines.at(-1)) repeats++;
  const rolls = (repeats >= 2 && repeats * 3 >= cues.length) || cues.some((cue) => cue.inlineTimes);
  if (!rolls) return cues.map((cue) => [...cue.lines]);
  return cues.map((cue, i) => {
    const previous = i > 0 ? cues[i - 1]!.lines : [];
    for (let k = Math.min(previous.length, cue.lines.length); k > 0; k--) {
      if (previous.slice(previous.length - k).every((line, j) => line === cue.lines[j])) return cue.lines.slice(k);
    }
    return [...cue.lines];
  });
}

import { createHash } from 'node:crypto';
import type { PartNotes, TranscriptNotesSection } from '../../vault/notes/transcript-notes-section.js';
import type { LineRange } from './parts.js';

/**
 * Which notes in the context note still describe the transcript as it is now (docs/design.md
 * §3 step 9). A part's notes carry the hash of its lines: they are reused while those lines
 * are unchanged, whatever happened elsewhere in the transcript (lines appended while the
 * meeting runs, a correction in another part). A part a person corrected, or whose speakers
 * were renamed, no longer matches and is noted again.
 */

/** The hash of a part's lines (`sha256:` and 16 hex digits, as the transcript's fingerprint). */
export function partHash(lines: readonly string[], part: LineRange): string {
  return `sha256:${createHash('sha256').update(lines.slice(part.from - 1, part.to).join('\n')).digest('hex').slice(0, 16)}`;
}

/**
 * The parts of `section` whose lines are unchanged, by their first line. Notes without a hash
 * (written before parts had one) count only when the whole transcript is the one they were
 * made from.
 */
export function knownParts(section: TranscriptNotesSection | undefined, lines: readonly string[], fingerprint: string): Map<number, PartNotes> {
  const known = new Map<number, PartNotes>();
  for (const part of section?.parts ?? []) {
    if (part.from < 1 || part.to > lines.length || part.from > part.to) continue;
    const same = part.hash !== undefined ? part.hash === partHash(lines, part) : section!.fingerprint === fingerprint;
    if (same) known.set(part.from, part);
  }
  return known;
}

/**
 * The condensed notes of `section` that cover the first parts of `done` exactly, one after
 * the other, each over parts whose notes were reused (the very objects `section` held): a
 * condensed note over a part noted again is stale.
 */
export function condensedPrefix(section: TranscriptNotesSection | undefined, done: readonly PartNotes[]): PartNotes[] {
  if (!section || section.condensed.length === 0 || done.length === 0) return [];
  const reused = new Set(section.parts);
  const out: PartNotes[] = [];
  let i = 0;
  for (const note of [...section.condensed].sort((a, b) => a.from - b.from)) {
    if (done[i]?.from !== note.from) break;
    let j = i;
    while (j < done.length && reused.has(done[j]!) && done[j]!.to < note.to) j++;
    if (j >= done.length || !reused.has(done[j]!) || done[j]!.to !== note.to) break;
    out.push(note);
    i = j + 1;
  }
  return out;
}

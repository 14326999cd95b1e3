/**
 * `Name: text` (Zoom's captions, SubRip and plain-text transcripts) against a colon that is
 * part of what was said (`Note: the build is green`, `we meet at 10:30`). A prefix is a
 * speaker when it looks like a name: at most five words of letters, each starting with a
 * capital or all in one label like `SPEAKER_00`, no sentence punctuation, and not one of the
 * words people start a sentence with before a colon. Anything else stays in the text, so a
 * word is never lost, at worst not attributed.
 */

const NOT_NAMES = new Set(
  [
    'note', 'notes', 'update', 'question', 'answer', 'summary', 'action', 'action item', 'warning', 'important', 'example',
    'reminder', 'agenda', 'decision', 'todo', 'fyi', 'ps', 'tip', 'next', 'next steps', 'result', 'problem', 'solution', 'idea',
    'so', 'well', 'also', 'okay', 'ok', 'yes', 'no', 'first', 'second', 'third', 'finally', 'edit', 'q', 'a', 'http', 'https',
  ].map((w) => w.toLowerCase()),
);

const WORD = /^(?:[\p{Lu}\p{Lt}][\p{L}\p{M}'’.-]*|[\p{L}\p{M}]+_\d+|\d+|(?:van|von|de|der|den|da|di|du|le|la|al|bin|ibn|y|e)|\([\p{L}\p{M}\s]+\))$/u;

export function looksLikeName(candidate: string): boolean {
  const name = candidate.trim();
  if (name === '' || name.length > 60 || NOT_NAMES.has(name.toLowerCase())) return false;
  if (/[,;!?"“”:]/.test(name) || /^\d+$/.test(name)) return false;
  const words = name.split(/\s+/);
  if (words.length > 5) return false;
  if (!/^[\p{L}]/u.test(words[0]!) || /^\p{Ll}/u.test(words[0]!)) return false;
  return words.every((w) => WORD.test(w));
}

/** `{ speaker, text }` when `line` starts with a speaker's name and a colon, else undefined. */
export function splitSpeaker(line: string): { speaker: string; text: string } | undefined {
  const m = /^\s*(?:\*\*([^*]{1,60}?)\*\*|([^:]{1,60}?))\s*:(?:\s+|$)(.*)$/su.exec(line);
  if (!m) return undefined;
  const speaker = (m[1] ?? m[2] ?? '').trim();
  if (!looksLikeName(speaker)) return undefined;
  return { speaker, text: m[3] ?? '' };
}

/**
 * `Name: text` (Zoom's captions, SubRip and plain-text transcripts) against a colon that is
 * part of what was said (`Note: the build is green`, `we meet at 10:30`); docs/design.md §9.
 *
 * Two rules, chosen per file:
 * - In a file whose cues mostly carry such a prefix (at least 60% of the cues that name no
 *   speaker otherwise, and at least two), the text before the first `: ` is the speaker
 *   whatever its case or characters (Zoom display names as people type them: `anand sharma`,
 *   `John & Marie McKinney`, `Saurabh’s iPad`, `Dana (Guest)`), within reason: at most 60
 *   characters and 6 words, not a URL, a time or a number, no `?`, `!`, `;` or quotes, not one
 *   of the words people start a sentence with before a colon, not words of a clause (`the
 *   plan is simple: …`). (Zoom writes the name before every cue, so there the first `: ` of a
 *   cue is the name's.)
 * - Elsewhere a prefix is a speaker only when it looks like a name: at most five words of
 *   letters, each starting with a capital or all in one label like `SPEAKER_00`.
 * Anything else stays in the text, so a word is never lost, at worst not attributed.
 */

const NOT_NAMES = new Set(
  [
    'note', 'notes', 'update', 'question', 'answer', 'summary', 'action', 'action item', 'warning', 'important', 'example',
    'reminder', 'agenda', 'decision', 'todo', 'fyi', 'ps', 'tip', 'next', 'next steps', 'result', 'problem', 'solution', 'idea',
    'so', 'well', 'also', 'okay', 'ok', 'yes', 'no', 'first', 'second', 'third', 'finally', 'edit', 'q', 'a', 'http', 'https',
    // The labels of meeting minutes and agendas pasted as a transcript.
    'attendees', 'participants', 'present', 'absent', 'date', 'time', 'location', 'place', 'subject', 'topic', 'topics', 'title',
    'agenda item', 'decisions', 'action items', 'actions', 'owner', 'owners', 'deadline', 'due', 'due date', 'budget', 'cost', 'status',
    'risk', 'risks', 'issue', 'issues', 'blocker', 'blockers', 'goal', 'goals', 'background', 'context', 'outcome', 'conclusion',
    'follow-up', 'follow up', 'next meeting', 'notes taken by', 'minutes', 'priority', 'comment', 'comments', 'feedback', 'recap',
  ].map((w) => w.toLowerCase()),
);

const WORD = /^(?:[\p{Lu}\p{Lt}][\p{L}\p{M}'’.-]*|[\p{L}\p{M}]+_\d+|\d+|(?:van|von|de|der|den|da|di|du|le|la|al|bin|ibn|y|e)|\([\p{L}\p{M}\s]+\))$/u;

export function looksLikeName(candidate: string): boolean {
  const name = candidate.trim();
  if (!isReasonableName(name)) return false;
  if (/[,:]/.test(name)) return false;
  const words = name.split(/\s+/);
  if (words.length > 5) return false;
  if (!/^[\p{L}]/u.test(words[0]!) || /^\p{Ll}/u.test(words[0]!)) return false;
  return words.every((w) => WORD.test(w));
}

/** What any speaker's name must be, in either rule (and a block head's, text.ts). */
export function isReasonableName(name: string): boolean {
  if (name === '' || name.length > 60 || NOT_NAMES.has(name.toLowerCase())) return false;
  if (/[;!?"“”<>{}[\]|\\]/.test(name) || /:\/\/|^www\./i.test(name)) return false;
  if (!/\p{L}/u.test(name) || /^[\d\s:.,-]+$/.test(name)) return false;
  return name.split(/\s+/).length <= 6;
}

/**
 * Words of a sentence, not of a display name: `the plan is simple: we ship` has a colon after
 * a clause. A name as typed (`anand sharma`, `Saurabh’s iPad`, `iPhone de Ana`) has none.
 */
const SENTENCE_WORDS = new Set(
  'the is are was were be been am we i it this that these those there here what how why when which who my our your their will would can could should must have has had do does did to for with not'.split(' '),
);

function isSentence(prefix: string): boolean {
  const words = prefix.toLowerCase().split(/\s+/);
  return words.length >= 2 && words.some((w) => SENTENCE_WORDS.has(w));
}

const PREFIX = /^\s*(?:\*\*([^*]{1,60}?)\*\*|([^:]{1,60}?))\s*:(?:\s+|$)(.*)$/su;

/** The prefix before the first `: ` and the text after it, whether or not it names anyone. */
function prefixOf(line: string): { speaker: string; text: string } | undefined {
  const m = PREFIX.exec(line);
  if (!m) return undefined;
  return { speaker: (m[1] ?? m[2] ?? '').trim(), text: m[3] ?? '' };
}

interface Speakable {
  speaker?: string;
  text: string;
}

/**
 * Takes the `Name: ` prefixes of a file's cues (those that name no speaker yet) as their
 * speakers, by the rule of the file as a whole (above); changes `cues` in place.
 */
export function attributePrefixes<T extends Speakable>(cues: T[]): T[] {
  const open = cues.filter((cue) => cue.speaker === undefined);
  const prefixes = open.map((cue) => prefixOf(cue.text));
  const reasonable = prefixes.map((p) => (p && isReasonableName(p.speaker) ? p : undefined));
  const carried = reasonable.filter(Boolean).length;
  const loose = carried >= 2 && carried >= 0.6 * open.length;
  open.forEach((cue, i) => {
    const p = reasonable[i];
    if (!p) return;
    const taken = (loose && !isSentence(p.speaker)) || looksLikeName(p.speaker);
    if (!taken || p.text.trim() === '') return;
    cue.speaker = p.speaker;
    cue.text = p.text;
  });
  return cues;
}

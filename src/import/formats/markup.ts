/**
 * Subtitle cue text to plain text (docs/design.md §9): the voice tag names the speaker; every
 * other tag (`<c.yellow>`, `<b>`, `<i>`, `<u>`, `<lang en>`, `<ruby>`, inline time stamps
 * `<00:00:17.500>`, closing tags, a `</v>` that Teams may leave out) goes; a ruby annotation
 * (`<rt>…</rt>`, the reading of the text before it) goes with its tag; entities are decoded.
 */

const NAMED: Record<string, string> = { amp: '&', lt: '<', gt: '>', nbsp: ' ', quot: '"', apos: "'", lrm: '', rlm: '' };

export function decodeEntities(text: string): string {
  return text.replace(/&(#x[0-9a-f]+|#\d+|[a-z]+);/gi, (whole, name: string) => {
    if (name[0] === '#') {
      const code = name[1] === 'x' || name[1] === 'X' ? parseInt(name.slice(2), 16) : parseInt(name.slice(1), 10);
      return Number.isFinite(code) && code > 0 && code <= 0x10ffff ? String.fromCodePoint(code) : whole;
    }
    return NAMED[name.toLowerCase()] ?? whole;
  });
}

/**
 * ASS/SSA override tags that subtitle editors leave in SubRip and WebVTT text (`{\an8}`,
 * `{\i1}`, `{\pos(10,20)}`): placement and style, never words (docs/design.md §9).
 */
const OVERRIDE = /\{\\[^{}]*\}/g;

/** WebVTT: every tag, and a ruby annotation (`<rt>…</rt>`, the reading of the text before it) with its tag. */
export const WEBVTT_TAGS = /<rt>[^<]*<\/rt>|<[^>]*>/gi;
/** SubRip: HTML-like tags (`<i>`, `<font color=…>`) and the inline word times converted auto-captions keep; a lone `<` is text. */
export const SUBRIP_TAGS = /<\/?[a-z][^>]*>|<\d{1,3}:\d{2}(?::\d{2})?[.,]\d{1,3}>/gi;

/**
 * A cue's text as plain lines: tags and overrides removed from the cue as a whole (a tag may
 * run over a line end), until none is left (`{\a{\b}}` leaves none behind); entities decoded;
 * blank lines dropped.
 */
export function plainLines(raw: string, tags: RegExp): string[] {
  let text = raw;
  // Most cues hold no tag and no entity: a 3-hour meeting is 20,000 of them.
  while (text.includes('<') || text.includes('{\\')) {
    const before = text;
    text = text.replace(tags, '').replace(OVERRIDE, '');
    if (text === before) break;
  }
  const lines: string[] = [];
  for (const line of text.split('\n')) {
    const plain = (line.includes('&') ? decodeEntities(line) : line).replace(/\s+/g, ' ').trim();
    // A lone `:` is an empty speaker prefix (a converter's cue with neither name nor words): no line.
    if (plain !== '' && plain !== ':') lines.push(plain);
  }
  return lines;
}

/**
 * The speaker a WebVTT voice tag names (`<v Alice Example>`, `<v.loud Bob>`); undefined
 * without one. The name stops at the next tag: a tag cut short names no one.
 */
export function voiceOf(raw: string): string | undefined {
  const voice = /<v(?:\.[^\s<>]*)?\s+([^<>]+)>/i.exec(raw);
  return voice ? decodeEntities(voice[1]!).replace(/\s+/g, ' ').trim() || undefined : undefined;
}

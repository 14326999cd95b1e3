/**
 * WebVTT cue text to plain text (docs/design.md §9): the voice tag names the speaker; every
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
export function withoutOverrideTags(text: string): string {
  return text.replace(/\{\\[^{}]*\}/g, '');
}

export interface CueText {
  speaker?: string;
  text: string;
}

export function plainCueText(raw: string): CueText {
  let speaker: string | undefined;
  const voice = /<v(?:\.[^\s>]*)?\s+([^>]+)>/i.exec(raw);
  if (voice) speaker = decodeEntities(voice[1]!).trim() || undefined;
  const text = decodeEntities(withoutOverrideTags(raw.replace(/<rt>[\s\S]*?<\/rt>/gi, '').replace(/<[^>]*>/g, '')))
    .replace(/\s+/g, ' ')
    .trim();
  return speaker ? { speaker, text } : { text };
}

import { inertExternalText } from '../vault/format/inert.js';

/**
 * An event's description as the context note's `agenda` (docs/design.md §12): plain text, the
 * HTML of Outlook's and Google's descriptions reduced, the join boilerplate of Teams, Zoom, Meet
 * and Webex left out (the join link has its own key), at most 2,000 characters, and inert: a
 * description is text written by whoever sent the invitation, so nothing in it may run in the
 * vault (a ```dataviewjs fence, Dataview's `$=`, Templater's `<%`).
 */

export const AGENDA_MAX_CHARS = 2_000;
/**
 * Only the start of a description is looked at: 5 MB of it cost seconds of regular expressions
 * for an agenda of 2,000 characters. Boilerplate cut out of this much still leaves enough.
 */
const READ_MAX_CHARS = 64_000;

export function agendaText(description: string): string {
  let text = description.slice(0, READ_MAX_CHARS).replace(/\r\n?/g, '\n');
  if (HTML_TAG.test(text)) text = htmlToText(text);
  text = withoutJoinBoilerplate(text);
  text = text
    .split('\n')
    .map((line) => line.replace(/[ \t\u00a0]+$/g, ''))
    .join('\n')
    .replace(/\n{3,}/g, '\n\n')
    .trim();
  // Made inert before the cap: an escape adds a character (`<%` → `<\%`), and cutting inert text
  // never makes it run (a cut only shortens a `text` fence, an escaped tag or span).
  return capped(inertExternalText(text), AGENDA_MAX_CHARS);
}

/** At most `max` characters, cut at a word when one ends near the limit, marked with an ellipsis. */
function capped(text: string, max: number): string {
  if (text.length <= max) return text;
  const cut = text.slice(0, max - 1);
  const space = cut.search(/\s\S*$/);
  return `${(space > max * 0.8 ? cut.slice(0, space) : cut).trimEnd()}…`;
}

/** The tags descriptions are written with; Outlook's `text<https://…>` links are no HTML. */
const HTML_TAG = /<\/?(?:p|div|br|span|a|b|i|u|ul|ol|li|html|body|head|table|tr|td|font|strong|em|h[1-6]|hr|img|meta|style|pre)\b[^>]*>/i;

const ENTITIES: Record<string, string> = { amp: '&', lt: '<', gt: '>', quot: '"', apos: "'", nbsp: ' ' };

function decodeEntities(text: string): string {
  return text.replace(/&(#x[0-9a-f]{1,6}|#\d{1,7}|[a-z]{2,6});/gi, (whole, name: string) => {
    if (name[0] === '#') {
      const code = name[1] === 'x' || name[1] === 'X' ? parseInt(name.slice(2), 16) : parseInt(name.slice(1), 10);
      return code > 0 && code <= 0x10ffff ? String.fromCodePoint(code) : '';
    }
    return ENTITIES[name.toLowerCase()] ?? whole;
  });
}

/** HTML as the lines a reader sees: blocks and breaks as new lines, list items as `- `, the rest of the markup gone. */
function htmlToText(html: string): string {
  return decodeEntities(
    html
      .replace(/<!--[\s\S]*?-->/g, '')
      .replace(/<(script|style|head|title)\b[^>]*>[\s\S]*?<\/\1\s*>/gi, '')
      // A link keeps its address when its text is not the address (the boilerplate filter drops join links).
      .replace(/<a\b[^>]*?href\s*=\s*["']([^"']*)["'][^>]*>([\s\S]*?)<\/a\s*>/gi, (_m, href: string, inner: string) => {
        const label = inner.replace(/<[^>]*>/g, '').trim();
        return label === '' || label === href || href.startsWith('mailto:') ? label || href : `${label} (${href})`;
      })
      .replace(/\n/g, ' ')
      .replace(/<li\b[^>]*>/gi, '\n- ')
      .replace(/<\/li\s*>/gi, '')
      .replace(/<(br|hr)\b[^>]*>/gi, '\n')
      .replace(/<\/?(p|div|ul|ol|tr|table|h[1-6]|blockquote|pre|section)\b[^>]*>/gi, '\n')
      .replace(/<[^>]*>/g, ''),
  )
    .split('\n')
    .map((line) => line.replace(/[ \t\u00a0]+/g, ' ').trim())
    .join('\n');
}

/** Separator lines: Teams' and Outlook's underscores, Zoom's dashes, Google's `-::~:~::~…::-`. */
const SEPARATOR = /^\s*(?:[_\-=~*]{3,}|-?(?::{1,2}~){3,}[:~]*-?)\s*$/;
const JOIN_HOSTS = /(?:teams\.microsoft\.com|teams\.live\.com|zoom\.us|zoomgov\.com|meet\.google\.com|webex\.com|aka\.ms\/JoinTeamsMeeting|dialin\.teams|tel:)/i;
/** Lines of the conferencing services' invitation text, in the wordings they use. */
const JOIN_LINE = new RegExp(
  [
    String.raw`^microsoft teams(?: meeting| need help\?)?\b`,
    String.raw`^join (?:on your computer|on the web|with a video conferencing device|with google meet|by phone|zoom meeting|the meeting|meeting|webex|from|by video system|using)`,
    String.raw`^click here to join`,
    String.raw`^(?:meeting|conference|video conference|phone conference|webinar) (?:id|number|password)\b`,
    String.raw`^(?:passcode|password|access code|meeting password|dial-?in|dial by your location|one tap mobile|or dial|or call in|find your local number|more phone numbers|learn more|meeting options|download teams|help|legal|need help)\b`,
    String.raw`^\S.* is inviting you to a scheduled zoom meeting`,
    String.raw`^(?:for organizers|alternate vtc|join by sip|sip:)`,
    // A dial-in number: `+1 323-849-4874,,123456789# United States`; a line of agenda starting with a date is not one.
    String.raw`^\+\d[\d\s().,#*-]{6,}`,
  ].join('|'),
  'i',
);

function isJoinLine(line: string): boolean {
  const trimmed = line.trim().replace(/^[-*•]\s*/, '');
  return trimmed !== '' && (JOIN_LINE.test(trimmed) || JOIN_HOSTS.test(trimmed));
}

/**
 * The description without the text the conferencing services add to an invitation: a block
 * between two separator lines (or from one to the end) that names a join link or a join
 * wording goes whole; elsewhere, the lines of that wording go one by one.
 */
function withoutJoinBoilerplate(text: string): string {
  const lines = text.split('\n');
  const kept: string[] = [];
  for (let i = 0; i < lines.length; i++) {
    if (SEPARATOR.test(lines[i]!)) {
      let close = i + 1;
      while (close < lines.length && !SEPARATOR.test(lines[close]!)) close++;
      const block = lines.slice(i + 1, close);
      if (block.some(isJoinLine)) {
        i = close;
        continue;
      }
      continue; // a bare separator says nothing in an agenda
    }
    if (!isJoinLine(lines[i]!)) kept.push(lines[i]!);
  }
  return kept.join('\n');
}

import { FrontmatterError, parseNote } from '../format/frontmatter.js';

/**
 * Speech lines of a transcript note (docs/design.md §1): `[timestamp] Speaker: text`, the label
 * plain or in bold. Shared by `override_speaker` (which relabels lines) and the pipeline (which
 * tells the agent which labels are not names yet).
 */

/** Where a line's speaker label is: offsets of the label text within the line. */
export interface SpeakerLabel {
  start: number;
  end: number;
  text: string;
}

/** `[timestamp] ` then the label, plain or bold (`**Alice**:` or `**Alice:**`), then the colon. */
export function speakerLabel(line: string): SpeakerLabel | undefined {
  const stamp = /^\s*\[[^\]\r\n]*\][ \t]*/.exec(line);
  if (!stamp) return undefined;
  const at = stamp[0].length;
  const rest = line.slice(at);
  if (rest.startsWith('**')) {
    const close = rest.indexOf('**', 2);
    if (close < 0) return undefined;
    const inner = rest.slice(2, close);
    if (inner.endsWith(':')) return label(at + 2, inner.slice(0, -1));
    return /^[ \t]*:/.test(rest.slice(close + 2)) ? label(at + 2, inner) : undefined;
  }
  const colon = rest.indexOf(':');
  return colon > 0 ? label(at, rest.slice(0, colon)) : undefined;
}

function label(start: number, raw: string): SpeakerLabel | undefined {
  const text = raw.trimEnd();
  if (text.trim() === '' || text.length > 120) return undefined;
  return { start, end: start + text.length, text };
}

/** A label compared the way `override_speaker` matches it: no bold, no colon, any case. */
export function normLabel(s: string): string {
  return s.replace(/\*\*/g, '').replace(/:$/, '').trim().toLowerCase();
}

/**
 * What transcribers and diarizers write when they do not know who spoke: `Speaker 2`,
 * `SPEAKER_01`, `Speaker A`, `Unknown speaker`, `Sprecher 1`, `Locuteur 3`, `S1`, `Guest`.
 */
const UNNAMED =
  /^(?:(?:speaker|spk|sprecher|locuteur|intervenant|hablante|orador|participant|person|voice|guest|unknown(?:[ _-]speaker)?|unidentified(?:[ _-]speaker)?)(?:[ _#-]*(?:\d{1,3}|[a-z]))?|s\d{1,3}|\?+)$/i;

export function isUnnamedLabel(text: string): boolean {
  return UNNAMED.test(text.replace(/\*\*/g, '').trim());
}

function bodyLines(noteText: string): string[] {
  let body = noteText;
  try {
    body = parseNote(noteText).body;
  } catch (err) {
    // A transcript whose frontmatter does not parse still has speech lines worth reading.
    if (!(err instanceof FrontmatterError)) throw err;
  }
  return body.split(/\r?\n/);
}

/** The distinct speaker labels of a transcript note's body, in order of first appearance. */
export function transcriptSpeakers(noteText: string): string[] {
  const seen = new Map<string, string>();
  for (const line of bodyLines(noteText)) {
    const found = speakerLabel(line);
    if (found && !seen.has(normLabel(found.text))) seen.set(normLabel(found.text), found.text);
  }
  return [...seen.values()];
}

/** What was said, without timestamps and labels: the first `maxChars` characters of it. */
export function transcriptSpeech(noteText: string, maxChars = 20_000): string {
  const parts: string[] = [];
  let length = 0;
  for (const line of bodyLines(noteText)) {
    if (length >= maxChars) break;
    const found = speakerLabel(line);
    if (!found) continue;
    const said = line.slice(found.end).replace(/^\**:?\**\s*/, '');
    parts.push(said);
    length += said.length + 1;
  }
  return parts.join('\n').slice(0, maxChars);
}

/** The labels that are not names yet (and are not already an attendee's name). */
export function unnamedSpeakers(noteText: string, attendees: readonly string[]): string[] {
  const named = new Set(attendees.map(normLabel));
  return transcriptSpeakers(noteText).filter((s) => isUnnamedLabel(s) && !named.has(normLabel(s)));
}

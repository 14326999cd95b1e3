import { countTokens } from '../../agent/window/tokens.js';
import { pastSummariesFor } from '../../tools/projects/past-meetings.js';
import { readTextFile } from '../../tools/define/read.js';
import type { ToolBinding } from '../../tools/binding/types.js';
import { parseNote } from '../../vault/format/frontmatter.js';
import { splitLines } from '../../vault/format/lines.js';

/**
 * What the agent would have read, gathered by the daemon for a summary made without tools
 * (docs/design.md §3 step 11): the meeting note with the user's notes, the agenda, the
 * glossary, and the latest earlier summary of the meeting's projects. Each is cut to its share
 * of `budget` tokens (the transcript, or its notes, takes the rest of the window), with a line
 * saying what was left out, so that a 4,096-token window still holds them all.
 */

export interface Material {
  /** The tag it is sent in, e.g. `meeting_note`. */
  tag: string;
  /** Where it comes from (vault-relative), or what it is. */
  source: string;
  text: string;
}

/** Shares of the budget, in the order the model is shown them; a share not used passes on. */
const SHARES: readonly { tag: string; share: number }[] = [
  { tag: 'meeting_note', share: 0.4 },
  { tag: 'agenda', share: 0.1 },
  { tag: 'glossary', share: 0.2 },
  { tag: 'earlier_summary', share: 0.3 },
];

export async function gatherMaterials(binding: ToolBinding, budget: number): Promise<Material[]> {
  const found = new Map<string, { source: string; text: string }>();
  for (const [tag, read] of Object.entries(READERS)) {
    // One that cannot be read (a binary glossary, a broken note) is left out, not the summary.
    const item = await read(binding).catch((err: unknown) => {
      binding.log.warn({ err, material: tag }, `without tools: the ${tag.replace('_', ' ')} could not be read; the summary is made without it`);
      return undefined;
    });
    if (item && item.text.trim() !== '') found.set(tag, item);
  }
  const out: Material[] = [];
  let left = Math.max(0, budget);
  let sharesLeft = SHARES.filter((s) => found.has(s.tag)).reduce((sum, s) => sum + s.share, 0);
  for (const { tag, share } of SHARES) {
    const item = found.get(tag);
    if (!item) continue;
    const allowed = Math.floor((left * share) / sharesLeft);
    sharesLeft -= share;
    const text = cutToTokens(item.text, allowed);
    left -= countTokens(text);
    if (text !== '') out.push({ tag, source: item.source, text });
  }
  return out;
}

type Reader = (binding: ToolBinding) => Promise<{ source: string; text: string } | undefined>;

const READERS: Record<string, Reader> = {
  // The whole note, as read_meetingnote shows it: its properties and the user's notes below them.
  async meeting_note({ vault, meeting }) {
    const text = await readTextFile(vault, meeting.meetingPath);
    return text === undefined ? undefined : { source: vault.rel(meeting.meetingPath), text };
  },
  async agenda({ vault, meeting }) {
    const text = await readTextFile(vault, meeting.contextPath);
    const agenda = text === undefined ? undefined : parseNote(text, vault.rel(meeting.contextPath)).data.agenda;
    return typeof agenda === 'string' ? { source: 'the context note\'s agenda', text: agenda } : undefined;
  },
  async glossary({ vault }) {
    const abs = vault.layout.files.glossary;
    const text = await readTextFile(vault, abs);
    return text === undefined ? undefined : { source: vault.rel(abs), text };
  },
  async earlier_summary(binding) {
    const past = await latestEarlierSummary(binding);
    if (!past) return undefined;
    const text = await readTextFile(binding.vault, past.path);
    return text === undefined ? undefined : { source: past.rel, text: parseNote(text, past.rel).body.trim() };
  },
};

/** The newest summary of the meeting's projects that is older than this meeting (when both have a start). */
async function latestEarlierSummary(binding: ToolBinding): Promise<{ path: string; rel: string } | undefined> {
  const start = binding.meeting.startTime === undefined ? NaN : Date.parse(binding.meeting.startTime);
  const newest = await pastSummariesFor(binding, binding.meeting.projects, 'newest');
  return newest.find((s) => Number.isNaN(start) || !Number.isFinite(s.startMs) || s.startMs < start);
}

/** The text's first lines within `tokens`, and a line saying how many were left out. */
export function cutToTokens(text: string, tokens: number): string {
  const trimmed = text.replace(/\s+$/, '');
  if (countTokens(trimmed) <= tokens) return trimmed;
  const lines = splitLines(trimmed);
  const kept: string[] = [];
  // The note of what was left out takes its own tokens (counted with the longest number it may hold).
  let used = countTokens(leftOut(lines.length)) + 1;
  for (const line of lines) {
    const cost = countTokens(line) + 1;
    if (used + cost > tokens) break;
    kept.push(line);
    used += cost;
  }
  if (kept.length === 0) return '';
  return `${kept.join('\n')}\n${leftOut(lines.length - kept.length)}`;
}

function leftOut(lines: number): string {
  return `(… ${lines} more lines not shown: the window has no room for them)`;
}

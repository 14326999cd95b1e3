import path from 'node:path';
import { mapLimit } from '../vault/files/concurrency.js';
import type { Vault } from '../vault/files/vault.js';
import { type ActionItem, parseActionItems } from '../vault/notes/action-items.js';
import { BEFORE_MEETING_HEADING, BEFORE_MEETING_LABEL } from '../vault/notes/before-meeting-label.js';
import { nameList } from '../vault/notes/meeting.js';
import { ACTION_HEADING, FENCE, HEADING, LANGUAGES, TASK_LINE } from '../vault/notes/summary-sections.js';
import { parseNote } from '../vault/format/frontmatter.js';
import { inertExternalText } from '../vault/format/inert.js';
import { formatLink, linkTarget } from '../vault/format/links.js';
import { readFrontmatterText } from '../vault/scan/note-head.js';
import { readConfinedText } from '../vault/files/real-place.js';

/**
 * The `## Before the meeting` section at the top of a note made ahead's context note
 * (docs/design.md §12, "Before the meeting"): written from the vault alone, no model. The
 * latest earlier summary of the same series (same `event` UID on the meeting notes), else of
 * the same projects, as a link with its decisions and next steps; the open action items of the
 * series' and the projects' earlier summaries, newest meetings first, at most 20; the agenda.
 * It says it was written before the meeting: text put where a meeting's notes are read makes a
 * summary report things nobody said, unless it is labelled as what it is.
 */

export const MAX_OPEN_ITEMS = 20;
/** Lines taken from one section of the last summary: a summary of 300 decisions is linked, not copied. */
const MAX_SECTION_LINES = 30;
const PARALLEL = 16;

export { BEFORE_MEETING_HEADING, BEFORE_MEETING_LABEL };

export interface BeforeMeetingInput {
  /** The event's UID (the series); '' when there is none. */
  uid: string;
  /** The instance's scheduled start: only meetings that started before it count. */
  start: Date;
  /** The projects the meeting gets (meeting-event/series-projects.ts). */
  projects: readonly string[];
  /** The agenda as the context note's `agenda` holds it (agenda-text.ts): already plain and inert. */
  agenda: string;
}

interface PastSummary {
  abs: string;
  startMs: number;
  date: string;
  title: string | undefined;
  series: boolean;
  project: boolean;
}

/** The section, ending with a newline; an empty vault still gets it (it says there is nothing earlier). */
export async function beforeMeetingSection(vault: Vault, input: BeforeMeetingInput): Promise<string> {
  const past = (await pastSummaries(vault, input)).sort((a, b) => b.startMs - a.startMs);
  const last = past.find((s) => s.series) ?? past.find((s) => s.project);
  const out = [BEFORE_MEETING_HEADING, '', BEFORE_MEETING_LABEL, ''];

  out.push('### Last time', '');
  if (last) {
    const body = await bodyOf(vault, last.abs);
    out.push(`${formatLink(vault, last.abs)}${last.date ? ` (${last.date})` : ''}${last.series ? '' : ', a meeting of the same projects'}`);
    for (const [label, lines] of [
      ['Decisions', sectionItems(body ?? '', isDecisionsHeading)],
      ['Next steps', sectionItems(body ?? '', (h) => ACTION_HEADING.test(h))],
    ] as const) {
      if (lines.length > 0) out.push('', `**${label}**`, '', ...lines);
    }
  } else {
    out.push('No earlier summary of this series or its projects.');
  }

  out.push('', '### Open action items', '');
  const items = await openItems(vault, past);
  out.push(...(items.length > 0 ? items : ['None in the earlier summaries of this series or its projects.']));

  out.push('', '### Agenda', '');
  out.push(input.agenda.trim() === '' ? 'The calendar gives none.' : input.agenda.trim());
  return `${inertExternalText(out.join('\n'))}\n`;
}

/** The earlier summaries (not failure reports) of the series' meeting notes and of the projects. */
async function pastSummaries(vault: Vault, input: BeforeMeetingInput): Promise<PastSummary[]> {
  const seriesMeetings = new Set<string>();
  if (input.uid !== '') {
    await mapLimit(await listOr(vault, 'Meetings'), PARALLEL, async (abs) => {
      const data = await headOf(vault, abs, input.uid);
      if (typeof data?.event === 'string' && data.event.trim() === input.uid) seriesMeetings.add(vault.rel(abs).toLowerCase());
    });
  }
  const projects = new Set(input.projects.map((p) => p.toLowerCase()));
  const out: PastSummary[] = [];
  await mapLimit(await listOr(vault, 'Summaries'), PARALLEL, async (abs) => {
    const data = await headOf(vault, abs);
    if (!data || data.status === 'failed') return;
    const startTime = data.start_time instanceof Date ? data.start_time.toISOString() : String(data.start_time ?? '');
    const startMs = Date.parse(startTime);
    if (!Number.isFinite(startMs) || startMs >= input.start.getTime()) return;
    const series = isSeriesMeeting(data.meeting, seriesMeetings);
    const project = nameList(data.projects).some((p) => projects.has(p.toLowerCase()));
    if (!series && !project) return;
    const title = typeof data.title === 'string' && data.title.trim() !== '' ? data.title.trim() : undefined;
    out.push({ abs, startMs, date: /^\d{4}-\d{2}-\d{2}/.exec(startTime)?.[0] ?? '', title, series, project });
  });
  return out;
}

/** A summary's `meeting` link names one of the series' meeting notes: its path, or a unique path suffix as Obsidian reads it. */
function isSeriesMeeting(link: unknown, seriesMeetings: ReadonlySet<string>): boolean {
  const target = linkTarget(link)?.replace(/^\/+/, '').toLowerCase();
  if (target === undefined || seriesMeetings.size === 0) return false;
  if (seriesMeetings.has(target)) return true;
  return [...seriesMeetings].some((rel) => rel.endsWith(`/${target}`));
}

/** `- Owner: text (due D) — [[summary]]`, plain bullets: a copied checkbox would be one more task in the vault's task queries. */
async function openItems(vault: Vault, past: readonly PastSummary[]): Promise<string[]> {
  const out: string[] = [];
  for (const summary of past) {
    if (out.length >= MAX_OPEN_ITEMS) break;
    const body = await bodyOf(vault, summary.abs);
    if (body === undefined) continue;
    for (const item of parseActionItems(body).filter((i) => !i.done)) {
      if (out.length >= MAX_OPEN_ITEMS) break;
      out.push(itemLine(vault, item, summary));
    }
  }
  return out;
}

function itemLine(vault: Vault, item: ActionItem, from: PastSummary): string {
  const owner = item.owner ? `${item.owner}: ` : '';
  const due = item.due ? ` (due ${item.due})` : '';
  const meeting = from.title ? `${from.title}${from.date ? `, ${from.date}` : ''}` : from.date;
  const link = `[[${vault.rel(from.abs).replace(/\.md$/i, '')}${meeting ? `|${meeting.replace(/[|\]]/g, ' ')}` : ''}]]`;
  return `- ${owner}${item.text}${due} — from ${link}`;
}

function isDecisionsHeading(heading: string): boolean {
  const lower = heading.toLowerCase();
  return Object.values(LANGUAGES).some((l) => lower === l.headings.decisions.toLowerCase());
}

/**
 * The list items under the first heading `wanted` accepts, to the next heading of the same or a
 * higher level; task lines become plain bullets (done ones left out) and fences are skipped.
 */
export function sectionItems(body: string, wanted: (heading: string) => boolean): string[] {
  const out: string[] = [];
  let level = 0;
  let inFence = false;
  for (const line of body.split(/\r?\n/)) {
    // A fenced block is no list: its lines, the fences included, are not copied.
    if (FENCE.test(line)) {
      inFence = !inFence;
      continue;
    }
    if (inFence) continue;
    const heading = HEADING.exec(line);
    if (heading) {
      const depth = /^#+/.exec(line)![0].length;
      if (level > 0 && depth <= level) break;
      if (level === 0 && wanted(heading[1]!.replace(/[*_]/g, '').trim())) level = depth;
      continue;
    }
    if (level === 0 || line.trim() === '') continue;
    if (TASK_LINE.test(line)) {
      const m = /^(\s*)(?:[-*+]|\d+[.)])\s+\[([^\]])\]\s+(.*)$/.exec(line);
      if (m && m[2] === ' ') out.push(`${m[1]}- ${m[3]}`);
    } else {
      out.push(line);
    }
    if (out.length >= MAX_SECTION_LINES) break;
  }
  return out;
}

async function listOr(vault: Vault, key: 'Meetings' | 'Summaries'): Promise<string[]> {
  try {
    return await vault.listNotesOf(key);
  } catch {
    return []; // no folder yet: nothing earlier
  }
}

/** A note's frontmatter; undefined when unreadable or broken (one bad note spoils no section). */
async function headOf(vault: Vault, abs: string, mustInclude?: string): Promise<Record<string, unknown> | undefined> {
  try {
    const head = await readFrontmatterText(vault.fs, abs);
    // Most meeting notes are of other series: theirs is not parsed (as series-projects.ts does).
    if (mustInclude !== undefined && !head.includes(mustInclude)) return undefined;
    return parseNote(head, path.basename(abs)).data;
  } catch {
    return undefined;
  }
}

async function bodyOf(vault: Vault, abs: string): Promise<string | undefined> {
  try {
    const text = await readConfinedText(vault, abs);
    return text === undefined ? undefined : parseNote(text, path.basename(abs)).body;
  } catch {
    return undefined;
  }
}

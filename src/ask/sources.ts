import { statIfExists } from '../vault/files/fs.js';
import type { MeetingIndex } from '../mcp/meeting-index.js';

/**
 * The notes an answer drew on (docs/design.md §11): those the run read through the tools
 * (read_meeting, the lines search_meetings showed, the items list_action_items showed), never
 * one the model only named. A transcript is cited by its meeting note (the line is
 * `[[<summary or meeting note>]]`), and a note that no longer exists is dropped. When the answer
 * names some of the notes read, only those are listed: a search that touched ten summaries
 * is not ten sources of a one-line answer.
 */

export interface AskSource {
  /** Vault-relative, with `.md`. */
  path: string;
  title: string | null;
  start_time: string | null;
}

export async function sourcesOf(index: MeetingIndex, readRels: readonly string[], answer: string): Promise<AskSource[]> {
  const { vault } = index;
  const found = new Map<string, AskSource>();
  for (const rel of readRels) {
    const source = await citedNote(index, vault.abs(rel));
    if (source && !found.has(source.path) && (await statIfExists(vault.fs, vault.abs(source.path)))?.isFile()) found.set(source.path, source);
  }
  const all = [...found.values()];
  const named = all.filter((s) => namedIn(answer, s.path));
  return named.length > 0 ? named : all;
}

async function citedNote(index: MeetingIndex, abs: string): Promise<AskSource | undefined> {
  const { vault } = index;
  const kind = vault.kindOf(abs);
  if (kind === 'summary' || kind === 'meeting') {
    const note = kind === 'summary' ? await index.summaries.get(abs) : await index.meetings.get(abs);
    return { path: vault.rel(abs), title: note?.title ?? null, start_time: note?.startTime ?? null };
  }
  if (kind !== 'transcript') return undefined;
  const known = new Set(await index.transcripts.list());
  const meeting = (await index.meetings.all()).find((m) => index.transcriptPathOf(m, known) === abs);
  if (meeting) return { path: meeting.rel, title: meeting.title ?? null, start_time: meeting.startTime ?? null };
  return { path: vault.rel(abs), title: null, start_time: null };
}

/** The answer names the note: its path or its name, with or without `.md`, as a link or not. */
function namedIn(answer: string, rel: string): boolean {
  const text = answer.toLowerCase();
  const bare = rel.replace(/\.md$/i, '').toLowerCase();
  const name = bare.slice(bare.lastIndexOf('/') + 1);
  return text.includes(bare) || text.includes(`[[${name}`) || text.includes(`[[${name}]]`);
}

/** `- [[<note>]] <title>, <date>`: the line the answer ends with, one per source. */
export function sourceLine(source: AskSource): string {
  // One line each, whatever a synced note's name or title holds: a line break in either would
  // print a forged `- [[…` line of its own under the sources' header.
  const oneLine = (text: string) => text.replace(/\s+/g, ' ');
  const link = `[[${oneLine(source.path).replace(/\.md$/i, '')}]]`;
  const date = source.start_time ? source.start_time.slice(0, 10) : undefined;
  const rest = [source.title ? oneLine(source.title) : undefined, date].filter((s) => s !== undefined).join(', ');
  return rest ? `- ${link} ${rest}` : `- ${link}`;
}

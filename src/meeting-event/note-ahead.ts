import path from 'node:path';
import type { CalendarEvent } from '../calendar/types.js';
import { mapLimit } from '../vault/files/concurrency.js';
import { UNCHANGED } from '../vault/files/update.js';
import type { Vault } from '../vault/files/vault.js';
import { parseNote, renderFrontmatter } from '../vault/format/frontmatter.js';
import { formatLink } from '../vault/format/links.js';
import { fileNameOfTitle, localIsoTime, sessionNoteStem } from '../vault/format/note-names.js';
import { createContextNote } from '../vault/notes/context.js';
import { readFrontmatterText } from '../vault/scan/note-head.js';
import { beforeMeetingSection } from './before-meeting.js';
import { eventTitle, newNoteEventKeys } from './event-keys.js';
import { newMeetingKeys } from './match-meeting.js';
import { readConfinedText } from '../vault/files/real-place.js';

/**
 * One note made ahead of its event (docs/design.md §12, "Before the meeting"): the meeting note
 * and the context note as `session start` makes them (sessions/sessions.ts), named by the
 * event's scheduled start and title, with what a match writes, the context note's body starting
 * with `## Before the meeting`. No transcript note: none is being written yet, and the meeting
 * note's `transcript` link names where the recording's will be.
 */

export type NotesAheadMode = 'projects' | 'all' | 'none';

export type NoteAheadOutcome =
  | { made: true; meeting: string; context: string }
  /** `exists`: the instance has a meeting note (by `event` + `event_start`) or the name is taken; `no-project`: mode `projects` and none. */
  | { made: false; why: 'exists' | 'no-project' | 'no-title' | 'off' };

const PARALLEL = 16;

/** Makes the notes of `event` unless its instance already has a meeting note. */
export async function makeNoteAhead(
  vault: Vault,
  deps: { projects: Readonly<Record<string, string>>; mode: NotesAheadMode },
  event: CalendarEvent,
): Promise<NoteAheadOutcome> {
  if (deps.mode === 'none') return { made: false, why: 'off' };
  const safe = fileNameOfTitle(event.title.trim());
  if (safe === '' || /^-+$/.test(safe)) return { made: false, why: 'no-title' };
  if (await hasMeetingNote(vault, event)) return { made: false, why: 'exists' };
  const keys = await newMeetingKeys(vault, deps, event, { start: event.start, attendees: [], projects: [] });
  const projects = (keys.meeting.projects as string[] | undefined) ?? [];
  if (deps.mode === 'projects' && projects.length === 0) return { made: false, why: 'no-project' };

  const name = `${sessionNoteStem(event.start, safe)}.md`;
  const { folders } = vault.layout;
  const meetingPath = path.join(folders.Meetings, name);
  const transcriptPath = path.join(folders.Transcripts, name);
  const contextPath = path.join(folders.Context, name);
  const summaryPath = path.join(folders.Summaries, name);
  // A note of that name (a session started this minute with this title) is the meeting's already.
  if ((await vault.exists(meetingPath)) || (await vault.exists(contextPath))) return { made: false, why: 'exists' };

  const title = eventTitle(event);
  const agenda = keys.context.agenda ?? '';
  const body = await beforeMeetingSection(vault, { uid: event.uid, start: event.start, projects, agenda });
  const attendees = (keys.meeting.attendees as string[] | undefined) ?? [];
  const artifacts = { meetingPath, transcriptPath, contextPath, summaryPath, title, startTime: localIsoTime(event.start), endTime: undefined, attendees, projects };
  // The context note first: once the meeting note exists, what it links to does (as session start).
  const created = await createContextNote(vault, artifacts, {
    state: 'collecting metadata',
    agenda,
    ...(keys.context.scheduled_end ? { scheduledEnd: keys.context.scheduled_end } : {}),
    body,
  });
  if (!created) return { made: false, why: 'exists' };
  const meeting = renderFrontmatter({
    title,
    start_time: artifacts.startTime,
    attendees,
    projects,
    ...newNoteEventKeys(keys.meeting),
    transcript: formatLink(vault, transcriptPath),
    context: formatLink(vault, contextPath),
    summary: formatLink(vault, summaryPath),
  });
  // Decided on the file as it is at the write: a note a person or a recorder made meanwhile stays.
  const wrote = await vault.update(meetingPath, (current) => (current === undefined ? meeting : UNCHANGED));
  if (!wrote.changed) return { made: false, why: 'exists' };
  return { made: true, meeting: vault.rel(meetingPath), context: vault.rel(contextPath) };
}

/** Whether a meeting note names this instance: its `event` is the UID and its `event_start` the instance's slot. */
export async function hasMeetingNote(vault: Vault, event: CalendarEvent): Promise<boolean> {
  return (await meetingNoteOf(vault, event)) !== undefined;
}

/**
 * The meeting note (absolute path) whose `event` and `event_start` name this instance. Of several
 * (an editor saving a note the daemon had just followed to its event's new time), the one with
 * the most written below its frontmatter, so that a recording joins what the person typed into;
 * then the first in path order.
 */
export async function meetingNoteOf(vault: Vault, event: CalendarEvent): Promise<string | undefined> {
  let notes: string[];
  try {
    notes = await vault.listNotesOf('Meetings');
  } catch {
    return undefined; // no folder yet
  }
  const found: string[] = [];
  await mapLimit(notes, PARALLEL, async (note) => {
    try {
      const head = await readFrontmatterText(vault.fs, note);
      if (!head.includes(event.uid)) return;
      const data = parseNote(head).data;
      if (typeof data.event !== 'string' || data.event.trim() !== event.uid) return;
      const slot = data.event_start instanceof Date ? data.event_start.getTime() : Date.parse(String(data.event_start ?? ''));
      if (slot === event.eventStart.getTime()) found.push(note);
    } catch {
      // a note that cannot be read names no event
    }
  });
  if (found.length <= 1) return found[0];
  const written = new Map(await Promise.all(found.map(async (note) => [note, await bodyLength(vault, note)] as const)));
  return found.sort((a, b) => written.get(b)! - written.get(a)! || (a < b ? -1 : 1))[0];
}

/** How much a note holds below its frontmatter, blank space aside; 0 when it cannot be read. */
async function bodyLength(vault: Vault, note: string): Promise<number> {
  try {
    return parseNote((await readConfinedText(vault, note)) ?? '').body.trim().length;
  } catch {
    return 0;
  }
}

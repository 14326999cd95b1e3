import path from 'node:path';
import { renderContextNote } from '../vault/notes/context.js';
import { renderFrontmatter } from '../vault/format/frontmatter.js';
import { formatLink } from '../vault/format/links.js';
import { fileNameOfTitle, localIsoTime, sessionNoteStem } from '../vault/format/note-names.js';
import type { Vault } from '../vault/files/vault.js';
import { findMeetingEvent, type MeetingEventDeps, newMeetingKeys } from '../meeting-event/match-meeting.js';
import { eventTitle, newNoteEventKeys } from '../meeting-event/event-keys.js';
import { type JoinableMeeting, joinableMeeting } from '../meeting-event/join-meeting.js';
import { ImportError } from './cues.js';
import { factsOfName } from './file-name.js';
import { noteBytes, type ReadMeeting } from './read-meeting.js';

/**
 * The notes an import makes (docs/design.md §9), named and linked as `session start` names
 * them (§6): `<YYYY-MM-DD HHmm> <title>.md` in the meetings, transcripts and context folders.
 */

export interface MeetingFacts {
  /** The original's file name: title and start come from it unless given. */
  name: string;
  /** The original's modification time (ms): the start is this minus the duration when the name carries none. */
  mtimeMs: number;
  title?: string;
  start?: Date;
  projects: string[];
  /** Absolute path the original is kept at (Folders.Sources). */
  sourcePath: string;
}

export interface PlannedNote {
  /** Absolute final path. */
  path: string;
  /** Text, or UTF-8 (the transcript note, which may be 20 MB: read-meeting.ts). */
  content: string | Uint8Array;
}

export interface MeetingPlan {
  meeting: PlannedNote;
  transcript: PlannedNote;
  context: PlannedNote;
  summaryPath: string;
  title: string;
  /**
   * The event's meeting note exists (made ahead, or by a person) and has no transcript yet: the
   * import joins it (docs/design.md §12). Only the transcript note (and a missing context note)
   * are new; the meeting note gets its missing keys written, never its body.
   */
  join?: JoinableMeeting & { endTime: string; source: string };
}

/**
 * The three notes for what was read of the file, under names no existing note has. With a
 * calendar, the meeting's event (docs/design.md §12) gives the title (over the one a file name
 * gave, never over one asked for), the invited people, the projects when none were given, and
 * the context note's agenda.
 */
export async function planMeeting(vault: Vault, read: ReadMeeting, facts: MeetingFacts, calendar?: MeetingEventDeps): Promise<MeetingPlan> {
  const fromName = factsOfName(facts.name);
  const { duration, unread } = read;
  const start = facts.start ?? fromName.start ?? new Date(facts.mtimeMs - duration * 1000);
  const end = new Date(start.getTime() + duration * 1000);
  const event = calendar ? await findMeetingEvent(calendar, { start, end }) : undefined;
  const keys = event && calendar ? await newMeetingKeys(vault, calendar, event, { start, attendees: read.attendees, projects: facts.projects }) : undefined;
  const joined = event ? await joinableMeeting(vault, event) : undefined;
  const title = joined?.artifacts.title?.trim() || facts.title?.trim() || (event ? eventTitle(event) : '') || fromName.title;
  const safe = fileNameOfTitle(title);
  if (safe === '' || /^-+$/.test(safe)) throw new ImportError(`the title "${title}" leaves nothing for a file name; give another one`);
  const paths = joined
    ? { meeting: joined.meetingPath, transcript: joined.transcriptPath, context: joined.contextPath, summary: joined.summaryPath }
    : await freeNames(vault, sessionNoteStem(start, safe));
  const links = {
    meeting: formatLink(vault, paths.meeting),
    transcript: formatLink(vault, paths.transcript),
    context: formatLink(vault, paths.context),
    summary: formatLink(vault, paths.summary),
  };
  const startTime = localIsoTime(start);
  const endTime = localIsoTime(end);
  const attendees = (keys?.meeting.attendees as string[] | undefined) ?? read.attendees;
  const projects = (keys?.meeting.projects as string[] | undefined) ?? facts.projects;
  const meeting = renderFrontmatter({
    title,
    start_time: startTime,
    end_time: endTime,
    attendees,
    projects,
    ...(keys ? newNoteEventKeys(keys.meeting) : {}),
    source: formatLink(vault, facts.sourcePath),
    transcript: links.transcript,
    context: links.context,
    summary: links.summary,
  });
  const transcript = noteBytes(renderFrontmatter({ meeting: links.meeting, state: 'finished' }), read);
  const context = renderContextNote(vault, {
    meetingPath: paths.meeting,
    transcriptPath: paths.transcript,
    contextPath: paths.context,
    summaryPath: paths.summary,
    title,
    startTime,
    endTime,
    attendees,
    projects,
  }, {
    ...(unread.length > 0 ? { body: importNotice(facts.name, unread) } : {}),
    ...(keys ? { agenda: keys.context.agenda, scheduledEnd: keys.context.scheduled_end } : {}),
  });
  return {
    meeting: { path: paths.meeting, content: meeting },
    transcript: { path: paths.transcript, content: transcript },
    context: { path: paths.context, content: context },
    summaryPath: paths.summary,
    title,
    ...(joined && { join: { ...joined, endTime, source: formatLink(vault, facts.sourcePath) } }),
  };
}

/**
 * The context note says what the import lost or had to guess (docs/design.md §9, Limits): the
 * person reading the meeting, and the agent, learn it where they look.
 */
function importNotice(name: string, unread: string[]): string {
  return `## Import\n\nNot everything in ${name} could be read as it was:\n${unread.map((line) => `- ${line}\n`).join('')}`;
}

/** `<stem>.md`, else `<stem> (2).md`, … : the first name free in all four folders. */
async function freeNames(vault: Vault, stem: string) {
  const { folders } = vault.layout;
  for (let n = 1; ; n++) {
    const name = `${stem}${n > 1 ? ` (${n})` : ''}.md`;
    const paths = {
      meeting: path.join(folders.Meetings, name),
      transcript: path.join(folders.Transcripts, name),
      context: path.join(folders.Context, name),
      summary: path.join(folders.Summaries, name),
    };
    const taken = await Promise.all(Object.values(paths).map((p) => vault.exists(p)));
    if (!taken.some(Boolean)) return paths;
  }
}

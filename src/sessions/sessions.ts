import path from 'node:path';
import { type Clock, systemClock } from '../clock.js';
import { createContextNote, isContextState, setContextState } from '../vault/notes/context.js';
import { daemonStateRefusal, isRecorderState, RECORDER_STATES } from './recorder-states.js';
import { FrontmatterError, renderFrontmatter, updateNoteFrontmatter } from '../vault/format/frontmatter.js';
import { formatLink } from '../vault/format/links.js';
import { resolveMeeting } from '../vault/notes/meeting.js';
import type { Vault } from '../vault/files/vault.js';
import { HeadCache } from '../vault/scan/head-cache.js';
import { contextOfMeeting, LocateError } from '../vault/notes/locate-meeting.js';
import { PathError, resolveNotePath } from '../vault/files/confine.js';
import { isExpectedError, MeetingAssistantError } from '../errors.js';
import { fileNameOfTitle, localIsoTime, sessionNoteStem, sessionStamp } from '../vault/format/note-names.js';
import { findMeetingEvent, type MeetingEventDeps, newMeetingKeys } from '../meeting-event/match-meeting.js';
import { eventTitle, newNoteEventKeys } from '../meeting-event/event-keys.js';
import { joinEventMeeting } from '../meeting-event/join-meeting.js';

/**
 * Recorder and transcriber integration (docs/design.md §6, `session …`), shared by the CLI
 * and the HTTP API: start a meeting (its three notes), move its context state, stop it.
 */

/** `no-event`: `session start` without a title while no event of the calendars is in progress. */
export type SessionErrorKind = 'usage' | 'not-found' | 'conflict' | 'broken' | 'no-event';

export class SessionError extends MeetingAssistantError {
  constructor(
    readonly kind: SessionErrorKind,
    message: string,
  ) {
    super(message, true);
  }
}

export interface StartSessionInput {
  /** Without one, the event in progress gives it (docs/design.md §12). */
  title?: string;
  projects?: string[];
  agenda?: string;
  /** ISO 8601. */
  scheduledEnd?: string;
}

/** Vault-relative paths of the notes a session start created. */
export interface SessionNotes {
  meeting: string;
  transcript: string;
  context: string;
}

// The naming lives in vault/ so that imports (src/import/) name their notes the same way.
export { fileNameOfTitle, localIsoTime, sessionStamp };

function isIsoDateTime(value: string): boolean {
  return /^\d{4}-\d{2}-\d{2}([T ]\d{2}:\d{2}(:\d{2}(\.\d+)?)?(Z|[+-]\d{2}:?\d{2})?)?$/.test(value.trim()) && Number.isFinite(Date.parse(value));
}

export function parseProjects(list: string | undefined): string[] {
  return (list ?? '')
    .split(',')
    .map((p) => p.trim())
    .filter((p) => p !== '');
}

/**
 * Creates the meeting, transcript and context notes of a new meeting, linked to each other. With
 * a calendar, the event in progress (docs/design.md §12) gives what the call did not: the title,
 * the invited people, the projects, the agenda and the scheduled end.
 */
export async function startSession(vault: Vault, input: StartSessionInput, clock: Clock = systemClock, calendar?: MeetingEventDeps): Promise<SessionNotes> {
  const now = clock();
  const event = calendar ? await findMeetingEvent({ ...calendar, clock: () => now }, { start: now }) : undefined;
  const title = input.title?.trim() || (event ? eventTitle(event) : '');
  if (title === '') throw noTitle(calendar);
  const safe = fileNameOfTitle(title);
  if (safe === '' || /^-+$/.test(safe)) throw new SessionError('usage', `the title "${title}" leaves nothing for a file name`);
  const scheduledEnd = input.scheduledEnd?.trim();
  if (scheduledEnd !== undefined && scheduledEnd !== '' && !isIsoDateTime(scheduledEnd)) {
    throw new SessionError('usage', `--scheduled-end must be an ISO 8601 time like 2026-11-30T10:00:00+01:00, not "${input.scheduledEnd}"`);
  }
  const projects = (input.projects ?? []).map((p) => p.trim()).filter(Boolean);
  for (const project of projects) {
    if (project.includes('/') || project.includes('\\') || project === '.' || project === '..') {
      throw new SessionError('usage', `a project is the name of a folder in Folders.Projects, not a path: "${project}"`);
    }
  }

  // The event's meeting note exists already (made ahead, or by a person): the recording joins it (§12).
  const joined = event ? await joinEventMeeting(vault, event) : undefined;
  if (joined) return { meeting: vault.rel(joined.meetingPath), transcript: vault.rel(joined.transcriptPath), context: vault.rel(joined.contextPath) };

  const keys = event && calendar ? await newMeetingKeys(vault, calendar, event, { start: now, attendees: [], projects }) : undefined;
  const meetingProjects = (keys?.meeting.projects as string[] | undefined) ?? projects;
  const attendees = (keys?.meeting.attendees as string[] | undefined) ?? [];
  const agenda = input.agenda?.trim() ? input.agenda : (keys?.context.agenda ?? input.agenda ?? '');
  const planned = scheduledEnd || keys?.context.scheduled_end;

  const name = `${sessionNoteStem(now, safe)}.md`;
  const { folders } = vault.layout;
  const meetingPath = path.join(folders.Meetings, name);
  const transcriptPath = path.join(folders.Transcripts, name);
  const contextPath = path.join(folders.Context, name);
  const summaryPath = path.join(folders.Summaries, name);
  for (const existing of [meetingPath, transcriptPath, contextPath]) {
    if (await vault.exists(existing)) {
      throw new SessionError('conflict', `${vault.rel(existing)} already exists: a session with this title started this minute`);
    }
  }

  const startTime = localIsoTime(now);
  const links = {
    meeting: formatLink(vault, meetingPath),
    transcript: formatLink(vault, transcriptPath),
    context: formatLink(vault, contextPath),
    summary: formatLink(vault, summaryPath),
  };
  // Context and transcript first: once the meeting note exists, everything it links to does.
  await createContextNote(
    vault,
    { meetingPath, transcriptPath, contextPath, summaryPath, title, startTime, endTime: undefined, attendees, projects: meetingProjects },
    { state: 'collecting metadata', agenda, ...(planned ? { scheduledEnd: planned } : {}) },
  );
  await vault.write(transcriptPath, renderFrontmatter({ meeting: links.meeting, state: 'transcribing' }));
  await vault.write(
    meetingPath,
    renderFrontmatter({
      title,
      start_time: startTime,
      attendees,
      projects: meetingProjects,
      ...(keys ? newNoteEventKeys(keys.meeting) : {}),
      transcript: links.transcript,
      context: links.context,
      summary: links.summary,
    }),
  );
  return { meeting: vault.rel(meetingPath), transcript: vault.rel(transcriptPath), context: vault.rel(contextPath) };
}

/** Without a title: the calendars are named, so that a person sees where no event was found. */
function noTitle(calendar: MeetingEventDeps | undefined): SessionError {
  const names = calendar?.calendar.sources().map((source) => source.name) ?? [];
  if (names.length === 0) return new SessionError('usage', 'a title is required (no calendar is configured in Calendar.Sources to take it from)');
  return new SessionError('no-event', `a title is required: no event is in progress in the calendars ${names.map((n) => `"${n}"`).join(', ')}`);
}


/** The meeting note a session call names, confined to `Folders.Meetings`. */
export async function meetingNote(vault: Vault, meeting: unknown): Promise<string> {
  let abs: string;
  try {
    abs = await resolveNotePath(vault, meeting, { folder: vault.layout.folders.Meetings, folderName: 'Folders.Meetings' });
  } catch (err) {
    if (err instanceof PathError) throw new SessionError(/no such note/.test(err.message) ? 'not-found' : 'usage', err.message);
    throw err;
  }
  if (vault.kindOf(abs) !== 'meeting') {
    throw new SessionError('usage', `${vault.rel(abs)} is not a meeting note (it lies in another configured folder)`);
  }
  return abs;
}

export async function contextPathOf(vault: Vault, meeting: string): Promise<{ path: string; exists: boolean }> {
  try {
    return await contextOfMeeting(vault, meeting, new HeadCache(vault));
  } catch (err) {
    if (err instanceof LocateError) throw new SessionError('broken', err.message);
    throw err;
  }
}

export interface StateChange {
  meeting: string;
  context: string;
  state: string;
}

/**
 * Sets the context note's `state` (one of the recorder's three, docs/design.md §6), creating
 * the note when it is missing. The daemon's own states are refused (session-finish.ts).
 */
export async function setSessionState(vault: Vault, meeting: unknown, state: unknown): Promise<StateChange> {
  if (isContextState(state) && !isRecorderState(state)) throw new SessionError('usage', daemonStateRefusal(state));
  if (!isContextState(state)) {
    throw new SessionError('usage', `"${String(state)}" is not a recorder state; use one of: ${RECORDER_STATES.join(', ')}`);
  }
  const meetingPath = await meetingNote(vault, meeting);
  const context = await contextPathOf(vault, meetingPath);
  try {
    if (!context.exists) {
      const artifacts = await resolveMeeting(vault, meetingPath);
      await createContextNote(vault, artifacts, { state });
    }
    await setContextState(vault, context.path, state);
  } catch (err) {
    // A note of the meeting the vault cannot use (broken frontmatter or links): the person's to fix.
    if (isExpectedError(err)) throw new SessionError('broken', err.message);
    throw err;
  }
  return { meeting: vault.rel(meetingPath), context: vault.rel(context.path), state };
}

export interface SessionStopResult {
  meeting: string;
  context?: string;
  end_time: string;
}

/** Writes `end_time` (now, local time with offset) to the meeting note and its context note. */
export async function stopSession(vault: Vault, meeting: unknown, clock: Clock = systemClock): Promise<SessionStopResult> {
  const meetingPath = await meetingNote(vault, meeting);
  const endTime = localIsoTime(clock());
  const context = await contextPathOf(vault, meetingPath);
  try {
    await updateNoteFrontmatter(vault, meetingPath, { end_time: endTime });
    if (context.exists) await updateNoteFrontmatter(vault, context.path, { end_time: endTime });
  } catch (err) {
    if (err instanceof FrontmatterError) throw new SessionError('broken', `${err.message}; the note was not changed`);
    throw err;
  }
  return { meeting: vault.rel(meetingPath), ...(context.exists ? { context: vault.rel(context.path) } : {}), end_time: endTime };
}

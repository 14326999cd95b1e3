import path from 'node:path';
import type { CalendarEvent } from '../calendar/types.js';
import { UNCHANGED } from '../vault/files/update.js';
import type { Vault } from '../vault/files/vault.js';
import { parseNote, renderFrontmatter, updateFrontmatter } from '../vault/format/frontmatter.js';
import { formatLink, resolveOrPlanLink } from '../vault/format/links.js';
import { createContextNote } from '../vault/notes/context.js';
import { type MeetingArtifacts, nameList } from '../vault/notes/meeting.js';
import { defaultNoteName } from '../vault/notes/meeting-paths.js';
import { meetingNoteOf } from './note-ahead.js';
import { confinedPlace, readConfinedText } from '../vault/files/real-place.js';

/**
 * A recording joins the meeting note its event already has (docs/design.md §12, the paragraph
 * after "Before the meeting"): a note made ahead, or one a person made, that the user may have
 * typed into. Its transcript note goes where the meeting note's `transcript` link says (else
 * beside it by name); the meeting note's body, what the person typed, is never rewritten: only
 * missing or empty keys of its frontmatter are written (updateFrontmatter keeps the body's
 * bytes). A meeting whose transcript note exists already (being recorded, or finished) is not
 * joined: two recordings written into one transcript would lose one.
 */

export interface JoinableMeeting {
  meetingPath: string;
  transcriptPath: string;
  contextPath: string;
  /** The context note exists (a note made ahead has one). */
  contextExists: boolean;
  summaryPath: string;
  /** The meeting note's own keys, for a context note that has to be made. */
  artifacts: MeetingArtifacts;
}

/** The instance's meeting note when a recording may join it: it exists, reads, and has no transcript note yet. */
export async function joinableMeeting(vault: Vault, event: CalendarEvent): Promise<JoinableMeeting | undefined> {
  const meetingPath = await meetingNoteOf(vault, event);
  if (meetingPath === undefined) return undefined;
  let data: Record<string, unknown>;
  try {
    const text = await readConfinedText(vault, meetingPath);
    if (text === undefined) return undefined;
    data = parseNote(text, vault.rel(meetingPath)).data;
  } catch {
    return undefined; // a note the vault cannot read is joined by nothing: the recording makes its own
  }
  const { folders } = vault.layout;
  const name = defaultNoteName(vault, meetingPath);
  const link = (key: string) => (typeof data[key] === 'string' && String(data[key]).trim() !== '' ? String(data[key]) : undefined);
  let transcript: { path: string; exists: boolean };
  let context: { path: string; exists: boolean };
  try {
    transcript = await resolveOrPlanLink(vault, link('transcript'), folders.Transcripts, name);
    context = await resolveOrPlanLink(vault, link('context'), folders.Context, name);
    // The notes are written there, perhaps before they exist: their folders must really lie in the vault (real-place.ts).
    for (const planned of [transcript.path, context.path]) await confinedPlace(vault, path.dirname(planned));
  } catch {
    return undefined; // an ambiguous link or one leaving the vault: the person's to fix; the recording goes on alone
  }
  if (transcript.exists || vault.kindOf(transcript.path) !== 'transcript' || (context.exists && vault.kindOf(context.path) !== 'context')) return undefined;
  const summaryPath = path.join(folders.Summaries, `${name}.md`);
  const startTime = typeof data.start_time === 'string' ? data.start_time : data.start_time instanceof Date ? data.start_time.toISOString() : undefined;
  const title = typeof data.title === 'string' ? data.title : undefined;
  const artifacts: MeetingArtifacts = { meetingPath, transcriptPath: transcript.path, contextPath: context.path, summaryPath, title, startTime, endTime: undefined, attendees: nameList(data.attendees), projects: nameList(data.projects) };
  return { meetingPath, transcriptPath: transcript.path, contextPath: context.path, contextExists: context.exists, summaryPath, artifacts };
}

/**
 * The meeting note's links to the joined notes and `extra` keys (`end_time`, `source`), each
 * only where the note has none, decided on the note as it is at the write.
 */
export async function linkJoined(vault: Vault, joined: JoinableMeeting, extra: Record<string, string> = {}): Promise<void> {
  await vault.update(joined.meetingPath, (current) => {
    if (current === undefined) return UNCHANGED;
    const data = parseNote(current, vault.rel(joined.meetingPath)).data;
    const wanted: Record<string, string> = {
      transcript: formatLink(vault, joined.transcriptPath),
      context: formatLink(vault, joined.contextPath),
      summary: formatLink(vault, joined.summaryPath),
      ...extra,
    };
    const changes = Object.fromEntries(Object.entries(wanted).filter(([key]) => data[key] === undefined || data[key] === null || (typeof data[key] === 'string' && data[key].trim() === '')));
    return Object.keys(changes).length === 0 ? UNCHANGED : updateFrontmatter(current, changes, vault.rel(joined.meetingPath));
  });
}

/** `session start` joining: the transcript note made (only if still absent), the context note if missing, the links written. */
export async function joinEventMeeting(vault: Vault, event: CalendarEvent): Promise<JoinableMeeting | undefined> {
  const joined = await joinableMeeting(vault, event);
  if (!joined) return undefined;
  const meetingLink = formatLink(vault, joined.meetingPath);
  // Only a note absent at the write is made: a recorder's transcript a moment before stays.
  const made = await vault.update(joined.transcriptPath, (current) => (current === undefined ? renderFrontmatter({ meeting: meetingLink, state: 'transcribing' }) : UNCHANGED));
  if (!made.changed) return undefined;
  if (!joined.contextExists) await createContextNote(vault, joined.artifacts);
  await linkJoined(vault, joined);
  return joined;
}

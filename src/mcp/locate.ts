import path from 'node:path';
import { ToolError } from '../tools/errors.js';
import { checkRelativePath } from '../vault/files/confine.js';
import { confinedPlace } from '../vault/files/real-place.js';
import { LinkError, linkTarget, resolveLink } from '../vault/format/links.js';
import type { Vault } from '../vault/files/vault.js';
import type { MeetingIndex, MeetingNote, SummaryNote } from './meeting-index.js';

/**
 * The meeting a person or a model names (docs/design.md §10, `read_meeting`): a vault-relative
 * path with or without `.md`, an absolute path inside the vault, or a `[[link]]`, to the
 * meeting note, its summary or its transcript. Anything outside the vault, or any other note,
 * is a tool error.
 */

export interface LocatedMeeting {
  /** The meeting note, when there is one. */
  meeting: MeetingNote | undefined;
  /** Absolute paths, existing or not. */
  summaryPath: string | undefined;
  transcriptPath: string | undefined;
}

async function noteOf(vault: Vault, value: string): Promise<string> {
  const raw = value.trim();
  let target: string;
  if (path.isAbsolute(raw)) {
    if (!vault.contains(raw)) throw new ToolError(`${JSON.stringify(value)} is outside the vault.`);
    target = vault.rel(raw);
  } else {
    const link = linkTarget(raw);
    if (link === undefined) throw new ToolError(`${JSON.stringify(value)} is not a path or a [[link]] to a meeting.`);
    target = checkRelativePath(link, 'the vault').join('/');
  }
  let abs: string;
  try {
    abs = await resolveLink(vault, target);
  } catch (err) {
    if (err instanceof LinkError && err.kind === 'dangling') {
      throw new ToolError(`there is no meeting note or summary ${JSON.stringify(value)}; list_meetings shows the paths.`);
    }
    // `[[2026-11-30 Sync]]` names the meeting note, its summary and its transcript alike: the meeting it is.
    const meetings = err instanceof LinkError && err.kind === 'ambiguous' ? err.candidates.filter((c) => vault.kindOf(vault.abs(c)) === 'meeting') : [];
    if (meetings.length !== 1) throw err instanceof LinkError ? new ToolError(err.message) : err;
    abs = vault.abs(meetings[0]!);
  }
  // A note that is a symbolic link out of the vault or into a dot-folder is not read (docs/design.md §10).
  await confinedPlace(vault, abs);
  return abs;
}

export async function locateMeeting(index: MeetingIndex, value: string): Promise<LocatedMeeting> {
  const { vault } = index;
  const abs = await noteOf(vault, value);
  const kind = vault.kindOf(abs);
  const [summaries, transcripts] = await Promise.all([index.summaries.list(), index.transcripts.list()]);
  const knownSummaries = new Set(summaries);
  const knownTranscripts = new Set(transcripts);
  const of = (meeting: MeetingNote | undefined, summaryPath?: string, transcriptPath?: string): LocatedMeeting => ({
    meeting,
    summaryPath: summaryPath ?? (meeting && index.summaryPathOf(meeting, knownSummaries)),
    transcriptPath: transcriptPath ?? (meeting && index.transcriptPathOf(meeting, knownTranscripts)),
  });
  if (kind === 'meeting') {
    const meeting = await index.meetings.get(abs);
    if (!meeting) throw new ToolError(`${vault.rel(abs)} is a meeting note whose frontmatter does not parse; fix it in the note.`);
    return of(meeting);
  }
  if (kind === 'summary') {
    const summary = await index.summaries.get(abs);
    return of(await meetingOfSummary(index, abs, summary), abs);
  }
  if (kind === 'transcript') {
    const meetings = await index.meetings.all();
    return of(meetings.find((m) => index.transcriptPathOf(m, knownTranscripts) === abs), undefined, abs);
  }
  throw new ToolError(`${vault.rel(abs)} is not a meeting note, a summary or a transcript; list_meetings shows the meetings.`);
}

/** The summary's `meeting` link, else the meeting note whose summary it is. */
async function meetingOfSummary(index: MeetingIndex, abs: string, summary: SummaryNote | undefined): Promise<MeetingNote | undefined> {
  const { vault } = index;
  if (summary?.meetingLink !== undefined) {
    const linked = await resolveLink(vault, summary.meetingLink).catch(() => undefined);
    if (linked !== undefined && vault.kindOf(linked) === 'meeting') {
      const meeting = await index.meetings.get(linked);
      if (meeting) return meeting;
    }
  }
  const known = new Set([abs]);
  return (await index.meetings.all()).find((m) => index.summaryPathOf(m, known) === abs);
}

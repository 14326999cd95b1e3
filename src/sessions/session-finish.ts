import { type Clock, systemClock } from '../clock.js';
import { updateNoteFrontmatter } from '../vault/format/frontmatter.js';
import { resolveMeeting } from '../vault/notes/meeting.js';
import type { Vault } from '../vault/files/vault.js';
import { isExpectedError } from '../errors.js';
import { readNoteHead } from '../vault/scan/note-head.js';
import { contextPathOf, localIsoTime, meetingNote, SessionError } from './sessions.js';

/**
 * `session finish <meeting-note>` and `PUT /api/sessions/finish` (docs/design.md §6): the
 * recorder's last call. `end_time` first (meeting note, then context note, each only when it
 * has none), then the transcript's `state` set to `Daemon.TriggerState`, the write a running
 * daemon's watcher starts the summary on; so the run already sees the end time.
 */

export interface SessionFinish {
  meeting: string;
  transcript: string;
  state: string;
  /** The meeting's end time: written now, or the one it had. */
  end_time: string;
  /** The notes whose `end_time` this call wrote (vault-relative). */
  wrote_end_time: string[];
}

export async function finishSession(vault: Vault, meeting: unknown, triggerState: string, clock: Clock = systemClock): Promise<SessionFinish> {
  const meetingPath = await meetingNote(vault, meeting);
  const context = await contextPathOf(vault, meetingPath);
  const wrote: string[] = [];
  try {
    // The links are the run's to write back; this call writes end_time and the state only.
    const artifacts = await resolveMeeting(vault, meetingPath, { writeBack: false });
    const endTime = artifacts.endTime ?? localIsoTime(clock());
    if (artifacts.endTime === undefined) {
      await updateNoteFrontmatter(vault, meetingPath, { end_time: endTime });
      wrote.push(vault.rel(meetingPath));
    }
    if (context.exists && (await endTimeOf(vault, context.path)) === undefined) {
      await updateNoteFrontmatter(vault, context.path, { end_time: endTime });
      wrote.push(vault.rel(context.path));
    }
    await updateNoteFrontmatter(vault, artifacts.transcriptPath, { state: triggerState });
    return { meeting: vault.rel(meetingPath), transcript: vault.rel(artifacts.transcriptPath), state: triggerState, end_time: endTime, wrote_end_time: wrote };
  } catch (err) {
    // A note of the meeting the vault cannot use (no transcript, broken frontmatter): the person's to fix.
    if (isExpectedError(err)) throw new SessionError('broken', `${err.message}; the meeting was not finished`);
    throw err;
  }
}

async function endTimeOf(vault: Vault, file: string): Promise<string | undefined> {
  const value = (await readNoteHead(vault.fs, file, vault.rel(file))).data.end_time;
  if (value instanceof Date) return value.toISOString();
  return typeof value === 'string' && value.trim() !== '' ? value : undefined;
}

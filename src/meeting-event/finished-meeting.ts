import { parseNote } from '../vault/format/frontmatter.js';
import { resolveLink, type VaultFiles, vaultFiles } from '../vault/format/links.js';
import type { Vault } from '../vault/files/vault.js';
import { endTimeOf } from '../vault/notes/end-time.js';
import { contextOfMeeting } from '../vault/notes/locate-meeting.js';
import { HeadCache } from '../vault/scan/head-cache.js';
import { type EventWritten, findMeetingEvent, type MeetingEventDeps, writeEventToNotes } from './match-meeting.js';
import { contextKeysOf, isEmptyValue } from './event-keys.js';
import { createContextNote } from '../vault/notes/context.js';
import { resolveMeeting } from '../vault/notes/meeting.js';
import { readConfinedText } from '../vault/files/real-place.js';

/**
 * A meeting without a match yet, matched when its transcript finishes (docs/design.md §12): a
 * recording made while the calendar could not be read, a meeting note a person or a recorder
 * made. Its span is its `start_time` to its `end_time`, else to its transcript's last time,
 * else to now.
 */

export interface FinishedMeetingOptions {
  /** The vault's files, for the links (the daemon's listing); default a walk. */
  files?: VaultFiles;
  /** Whether the note's `title` may be written over (one the import took from a file name). */
  replaceTitle?: (data: Record<string, unknown>) => boolean;
}

/** The event's keys written into the meeting's notes; undefined when it has its event already, or none fits. */
export async function matchFinishedMeeting(vault: Vault, deps: MeetingEventDeps, meetingPath: string, options: FinishedMeetingOptions = {}): Promise<EventWritten | undefined> {
  const data = parseNote(await vault.read(meetingPath), vault.rel(meetingPath)).data;
  if (!isEmptyValue(data.event)) return undefined;
  const startTime = typeof data.start_time === 'string' ? data.start_time : data.start_time instanceof Date ? data.start_time.toISOString() : undefined;
  const start = Date.parse(startTime ?? '');
  if (!Number.isFinite(start)) return undefined; // a meeting without a time has no event
  const files = options.files ?? vaultFiles(vault);
  let end = Date.parse(String(data.end_time ?? ''));
  if (!Number.isFinite(end)) {
    const transcript = typeof data.transcript === 'string' ? await resolveLink(vault, data.transcript, files).then((p) => readConfinedText(vault, p)).catch(() => undefined) : undefined;
    end = Date.parse(endTimeOf(startTime, transcript, deps.clock()));
  }
  const event = await findMeetingEvent(deps, { start: new Date(start), end: new Date(Math.max(start, end)) });
  if (!event) return undefined;
  const context = await contextOfMeeting(vault, meetingPath, new HeadCache(vault), files).catch(() => undefined);
  const written = await writeEventToNotes(vault, deps, event, {
    meetingPath,
    ...(context?.exists ? { contextPath: context.path } : {}),
    ...(options.replaceTitle ? { replaceTitle: options.replaceTitle } : {}),
  });
  if (context && !context.exists) {
    // No context note yet (a recorder that writes none): made now with the agenda, so that the
    // run, which would make it without one, finds it (§12). Made after the meeting note's keys,
    // so it carries the event's title when that replaced the file name's.
    const artifacts = await resolveMeeting(vault, meetingPath, { writeBack: false });
    const keys = contextKeysOf(event);
    if (await createContextNote(vault, artifacts, { agenda: keys.agenda, scheduledEnd: keys.scheduled_end })) written.context = keys;
  }
  return written;
}

import path from 'node:path';
import type { Logger } from '../../log.js';
import { factsOfName } from '../../import/file-name.js';
import { matchFinishedMeeting } from '../../meeting-event/finished-meeting.js';
import { type MeetingEventDeps, meetingEventDeps } from '../../meeting-event/match-meeting.js';
import type { CalendarLookup } from '../../calendar/types.js';
import type { Clock } from '../../clock.js';
import { linkTarget, type VaultFiles } from '../../vault/format/links.js';
import type { Vault } from '../../vault/files/vault.js';

/**
 * Before a finished transcript's run builds its first message, a meeting without a match yet
 * gets its event's keys (docs/design.md §12), so that the agent reads the invited people and
 * the agenda. It never fails or holds up the summary: a failure is a log line, and after
 * `MATCH_WAIT_MS` the run goes on without it.
 */

export const MATCH_WAIT_MS = 5_000;

export type EventMatcher = (meetingPath: string) => Promise<void>;

export function eventMatcher(o: { vault: Vault; calendar: MeetingEventDeps; log: Logger; files?: VaultFiles; waitMs?: number }): EventMatcher {
  const { vault, log } = o;
  return async (meetingPath) => {
    const meeting = vault.rel(meetingPath);
    const match = matchFinishedMeeting(vault, o.calendar, meetingPath, { ...(o.files ? { files: o.files } : {}), replaceTitle: importedTitle }).then(
      (written) => {
        if (written && (Object.keys(written.meeting).length > 0 || Object.keys(written.context).length > 0)) {
          log.info({ meeting, event: written.meeting.event, keys: [...Object.keys(written.meeting), ...Object.keys(written.context)] }, `calendar: ${meeting} matched its event`);
        }
      },
      (err: unknown) => log.warn({ meeting, err: (err as Error).message }, `calendar: ${meeting} could not be matched to an event: ${(err as Error).message}`),
    );
    let timer: NodeJS.Timeout | undefined;
    const waited = new Promise<void>((resolve) => {
      timer = setTimeout(() => {
        log.warn({ meeting }, `calendar: the match of ${meeting} took too long; the run goes on without it`);
        resolve();
      }, o.waitMs ?? MATCH_WAIT_MS);
      timer.unref();
    });
    await Promise.race([match, waited]);
    clearTimeout(timer);
  };
}

/**
 * The title the import took from the original's file name (docs/design.md §9): the one title a
 * match may write over. The original is the note's `source`; a title a person wrote differs.
 */
export function importedTitle(data: Record<string, unknown>): boolean {
  const source = linkTarget(data.source);
  if (source === undefined || typeof data.title !== 'string') return false;
  return factsOfName(path.basename(source)).title === data.title.trim();
}

/** The calendar's matching (§12) when the daemon has a calendar; a source that fails is a log line. */
export function calendarMatch(calendar: CalendarLookup | undefined, settings: { Projects: Readonly<Record<string, string>> }, clock: Clock, log: Logger): MeetingEventDeps | undefined {
  const fail = (err: unknown) => log.warn({ err: (err as Error).message }, `calendar: could not be read: ${(err as Error).message}`);
  return meetingEventDeps(calendar, settings, clock, fail);
}

/** The job runner's `matchEvent` when there is a calendar to match in; nothing otherwise. */
export function jobMatcher(calendar: MeetingEventDeps | undefined, o: { vault: Vault; log: Logger; files?: VaultFiles }): { matchEvent?: EventMatcher } {
  return calendar ? { matchEvent: eventMatcher({ ...o, calendar }) } : {};
}

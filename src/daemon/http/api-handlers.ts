import type { Clock } from '../../clock.js';
import { FrontmatterError } from '../../vault/format/frontmatter.js';
import { findMeetingOfSummary } from '../../vault/notes/locate-meeting.js';
import type { Vault } from '../../vault/files/vault.js';
import { ApiError, type HttpHandlers, type RetryAccepted } from './server.js';
import { readNoteHead } from '../../vault/scan/note-head.js';
import { PathError, resolveNotePath } from '../../vault/files/confine.js';
import type { Job } from '../runs/queue.js';
import { SessionError, setSessionState, startSession } from '../../sessions/sessions.js';
import { finishSession } from '../../sessions/session-finish.js';
import { DEFAULT_SETTINGS } from '../../config.js';
import type { MeetingEventDeps } from '../../meeting-event/match-meeting.js';

/**
 * What the HTTP routes do, in the daemon's terms: validate and confine the note a caller
 * names, then enqueue or act. Every refusal is an ApiError with a message for people.
 */

export interface ApiDeps {
  vault: Vault;
  /** Enqueue a job; returns the queue's answer (`queued`, `merged`, `follow-up`, `stopped`). */
  enqueue(job: Job): string;
  status(): unknown;
  clock?: Clock;
  /** `Daemon.TriggerState`: what `session finish` sets the transcript's state to. */
  triggerState?: string;
  /** The calendar `session start` takes the event in progress from (docs/design.md §12); undefined: none. */
  calendar?: MeetingEventDeps;
}

const SUMMARY_STATUSES = new Set(['failed', 'done']);

/** The summary note a retry names: inside `Folders.Summaries`, existing, a failure report or a summary. */
export async function retryTarget(vault: Vault, note: unknown): Promise<string> {
  const folder = vault.layout.folders.Summaries;
  let abs: string;
  try {
    abs = await resolveNotePath(vault, note, { folder, folderName: `Folders.Summaries (${vault.rel(folder)})` });
  } catch (err) {
    if (err instanceof PathError) throw new ApiError(400, err.message);
    throw err;
  }
  if (vault.kindOf(abs) !== 'summary') throw new ApiError(400, `${vault.rel(abs)} is not a summary note`);
  let status: unknown;
  try {
    status = (await readNoteHead(vault.fs, abs, vault.rel(abs))).data.status;
  } catch (err) {
    if (err instanceof FrontmatterError) throw new ApiError(400, `${vault.rel(abs)} cannot be read: ${err.message}`);
    throw err;
  }
  const value = typeof status === 'string' ? status.trim() : undefined;
  if (!value || !SUMMARY_STATUSES.has(value)) {
    throw new ApiError(400, `${vault.rel(abs)} is not a summary note (its status is ${value ? `"${value}"` : 'missing'}, not failed or done)`);
  }
  return abs;
}

function sessionToApi(err: unknown): never {
  if (err instanceof SessionError) {
    const status = err.kind === 'conflict' || err.kind === 'no-event' ? 409 : err.kind === 'broken' ? 422 : 400;
    throw new ApiError(status, err.message);
  }
  throw err;
}

export function createApiHandlers(deps: ApiDeps): HttpHandlers {
  const { vault } = deps;
  return {
    async retry(note, trigger): Promise<RetryAccepted> {
      const summary = await retryTarget(vault, note);
      const meeting = await findMeetingOfSummary(vault, summary).catch(() => undefined);
      const result = deps.enqueue({ key: meeting ?? summary, kind: 'retry', target: summary, trigger });
      if (result === 'stopped') throw new ApiError(503, 'the daemon is shutting down; the retry was not queued');
      return { note: vault.rel(summary), result, ...(meeting !== undefined && { meeting: vault.rel(meeting) }) };
    },
    async noteHoldsLink(note, link): Promise<boolean> {
      const summary = await retryTarget(vault, note);
      return (await vault.read(summary)).includes(link);
    },
    async summarize(note): Promise<RetryAccepted> {
      let meeting: string;
      try {
        meeting = await resolveNotePath(vault, note, { folder: vault.layout.folders.Meetings, folderName: `Folders.Meetings (${vault.rel(vault.layout.folders.Meetings)})` });
      } catch (err) {
        if (err instanceof PathError) throw new ApiError(400, err.message);
        throw err;
      }
      if (vault.kindOf(meeting) !== 'meeting') throw new ApiError(400, `${vault.rel(meeting)} is not a meeting note`);
      const result = deps.enqueue({ key: meeting, kind: 'summarize', target: meeting, trigger: 'cli' });
      if (result === 'stopped') throw new ApiError(503, 'the daemon is shutting down; the meeting was not queued');
      return { note: vault.rel(meeting), result, meeting: vault.rel(meeting) };
    },
    async startSession(input) {
      return startSession(vault, input, deps.clock, deps.calendar).then((notes) => ({ ...notes }), sessionToApi);
    },
    async setSessionState(meeting, state) {
      return setSessionState(vault, meeting, state).then((change) => ({ ...change }), sessionToApi);
    },
    async finishSession(meeting) {
      const trigger = deps.triggerState ?? DEFAULT_SETTINGS.Daemon.TriggerState;
      return finishSession(vault, meeting, trigger, deps.clock).then((done) => ({ ...done }), sessionToApi);
    },
    status: () => deps.status(),
  };
}

import type { AppConfig } from '../../config.js';
import type { Logger } from '../../log.js';
import type { ModelClient } from '../../agent/types.js';
import { fixedTokens, messagesTokens } from '../../agent/window/tokens.js';
import { TOOLS } from '../../tools/registry.js';
import { createContextNote, isContextState, readContextState } from '../../vault/notes/context.js';
import { parseNote } from '../../vault/format/frontmatter.js';
import { splitLines } from '../../vault/format/lines.js';
import { type MeetingArtifacts, resolveMeeting } from '../../vault/notes/meeting.js';
import { NotTextFileError } from '../../vault/files/text-file.js';
import { NotRegularFileError } from '../../vault/files/regular-file.js';
import { OutsideVaultError, readConfinedText } from '../../vault/files/real-place.js';
import type { Vault } from '../../vault/files/vault.js';
import { conversationStarts } from '../conversation-start.js';
import { fitsRoom } from './condense.js';
import { condenseWork, noteParts, notesToCondense, partTokens, REPLY_RESERVE, startParts, tooLongToRead, type TranscriptToRead, wholeReadTokens } from './notes-pass.js';
import { type WindowRoom, windowRoom } from './window-room.js';

/**
 * Notes while the meeting runs (docs/design.md §3 step 9): while the transcriber still writes
 * the transcript, the notes of each window-sized part are made as soon as the part stands (its
 * end can no longer move as lines are appended), by the same notes pass and into the same
 * section of the context note that a run uses. At the trigger the run then finds them and, as a
 * retry does, notes only the last part. The notes are condensed as they grow, into the room a
 * run will give them, so that the run need not condense after the meeting either.
 */

export interface LiveNotesDeps {
  vault: Vault;
  config: AppConfig;
  log: Logger;
  model: ModelClient;
  contextManager?: (log: Logger, signal?: AbortSignal) => Partial<WindowRoom>;
  sleep?: (ms: number, signal?: AbortSignal) => Promise<void>;
}

export interface LiveNotesOptions {
  signal?: AbortSignal;
  /** Told before each part is noted: "notes: parts 1–4 of ~6". */
  onPart?: (progress: LiveNotesProgress) => void;
  /** Only go on with notes begun earlier (the daemon's start resumes, it does not begin). */
  onlyIfStarted?: boolean;
}

export interface LiveNotesProgress {
  /** Parts whose notes exist (the part being noted not counted). */
  done: number;
  /** The parts the transcript so far makes, the one still growing included. */
  about: number;
  /** The lines of the part being noted (inclusive, counted over the whole file). */
  from: number;
  to: number;
}

export interface LiveNotesOutcome {
  /**
   * `noted`: the parts that stand have notes (made now or before); `fits`: the meeting fits the
   * window whole so far and needs none; `finished`: the transcript is in the trigger state (the
   * summary's run notes the rest); `skipped`: nothing to do (no transcript yet, a run holds the
   * context note, or nothing begun to resume).
   */
  status: 'noted' | 'fits' | 'finished' | 'skipped';
  /** Parts with notes, of about how many the transcript makes so far. */
  parts: number;
  about: number;
  /** Model requests made. */
  requests: number;
  /** Why it was skipped, for the debug log. */
  reason?: string;
}

/** What the daemon gets back from a live notes pass, wherever it ran: its outcome, or why it failed. */
export type LiveNotesResult = LiveNotesOutcome | { status: 'failed'; error?: string; aborted?: boolean };

/** Room a run keeps beside the notes for the instructions' growth and the first message's facts. */
const CARRIED_MARGIN = 200;

/**
 * Makes the notes of the parts of `meetingPath`'s transcript that stand. Endpoint failures that
 * survive the retry policy propagate, the parts done so far saved.
 */
export async function makeLiveNotes(deps: LiveNotesDeps, meetingPath: string, options: LiveNotesOptions = {}): Promise<LiveNotesOutcome> {
  const { vault, config } = deps;
  const settings = config.settings;
  const log = deps.log.child({ meeting: vault.rel(meetingPath) });
  const skipped = (reason: string): LiveNotesOutcome => ({ status: 'skipped', parts: 0, about: 0, requests: 0, reason });
  const artifacts = await resolveMeeting(vault, meetingPath, { writeBack: false });
  const text = await readConfinedText(vault, artifacts.transcriptPath)
    .catch((err: unknown) => {
      // Out of the vault or in a dot-folder (a link to the token): not read (docs/design.md §10).
      if (err instanceof OutsideVaultError) return undefined;
      if (err instanceof NotTextFileError || err instanceof NotRegularFileError || (err as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
      throw err;
    });
  if (text === undefined) return skipped('no transcript to read');
  const label = vault.rel(artifacts.transcriptPath);
  const note = safeParse(text, label);
  if (note?.state === settings.Daemon.TriggerState) return { status: 'finished', parts: 0, about: 0, requests: 0 };
  const contextState = await readContextState(vault, artifacts.contextPath).catch(() => undefined);
  // A run has the context note (one started by a command), or the meeting is summarized.
  if (contextState === 'summarizing' || contextState === 'finished') return skipped(`its context note is ${contextState}`);
  // Its window is said once per run; a pass every few lines of the meeting need not say it again.
  const room = windowRoom(deps.contextManager?.(log.child({}, { level: 'warn' }), options.signal), settings.ContextWindow);
  await room.prepare?.();
  // A run would not read it into notes (over 100 parts): nor are they made while it is written.
  if (tooLongToRead(text, room)) return skipped('the transcript is too long to read into notes (over 100 parts)');
  const lines = splitLines(text);
  // Judged with nothing carried beside it: a transcript that might still fit a run needs no notes.
  if (wholeReadTokens({ label, lines }) <= (room.target - REPLY_RESERVE) * 0.9) return { status: 'fits', parts: 0, about: 0, requests: 0 };
  const transcript: TranscriptToRead = { label, lines, firstLine: note?.firstLine ?? 1, ...(artifacts.title !== undefined && { title: artifacts.title }), projects: artifacts.projects, lastLineDone: /\n$/.test(text) };
  const passOptions = {
    model: deps.model,
    retry: { attempts: settings.Reconnect.Attempts, delayMs: settings.Reconnect.DelaySeconds * 1000, ...(deps.sleep && { sleep: deps.sleep }) },
    log,
    room,
    vault,
    contextPath: artifacts.contextPath,
    ...(options.signal && { signal: options.signal }),
    onPart: (p: { part: number; parts: number; from: number; to: number }) => options.onPart?.({ done: p.part - 1, about: p.parts, from: p.from, to: p.to }),
  };
  const work = await startParts(transcript, passOptions);
  if (options.onlyIfStarted && work.earlier === undefined) return skipped('no notes begun');
  // The section goes into the context note, which the transcriber's meeting may not have yet.
  await createContextNote(vault, artifacts, { state: isContextState(note?.state) ? note.state : 'transcribing' });
  await noteParts(transcript, work, passOptions, 'standing');
  const { done, section } = work;
  const about = done.length + 1;
  if (done.length === 0) return { status: 'noted', parts: 0, about, requests: 0 };
  // Room for the notes of the part still growing, which the run adds to these.
  const room0 = (await notesRoomOfRun(deps, artifacts, room)) - lastPartReserve(room);
  // Condensed to half their room when over it: the parts still to come fill the other half,
  // so the notes are not condensed again after every part.
  const start = notesToCondense(work);
  const notes = fitsRoom(start, room0) ? start : await condenseWork(start, Math.max(64, Math.floor(room0 / 2)), work, passOptions);
  const raw = new Set(done);
  section.condensed = notes.filter((n) => !raw.has(n));
  section.progress = `Noted while the meeting runs: parts 1–${done.length} of ~${about} (lines ${transcript.firstLine}–${done.at(-1)!.to} of ${lines.length} so far).`;
  await work.save();
  if (work.call.requests > 0) log.info({ parts: done.length, about, requests: work.call.requests }, `notes while the meeting runs: parts 1-${done.length} of ~${about}`);
  return { status: 'noted', parts: done.length, about, requests: work.call.requests };
}

/**
 * The room a run will give the notes (notes-pass.ts notesForLongTranscript: half of what the
 * instructions, tool schemas and first message leave), counted with every tool a run may
 * offer: more than a run carries, so notes condensed to it fit the run without a request.
 */
async function notesRoomOfRun(deps: LiveNotesDeps, artifacts: MeetingArtifacts, room: WindowRoom): Promise<number> {
  const { whole: start } = await conversationStarts(deps, artifacts, { pastTools: true, projectTools: true });
  const schemas = TOOLS.map(({ name, description, parameters }) => ({ name, description, parameters }));
  const carried = fixedTokens({ instructions: start.instructions, tools: schemas }) + messagesTokens([{ role: 'user', content: start.firstMessage }]) + CARRIED_MARGIN;
  return Math.max(256, Math.floor((room.target - carried - REPLY_RESERVE) / 2));
}

/** What the notes of the last part (still growing) may take: its output allowance. */
function lastPartReserve(room: WindowRoom): number {
  return Math.min(Math.floor(partTokens(room) * 0.15), Math.max(128, Math.min(room.maxOutputTokens, Math.floor(room.window / 8))));
}

/** The transcript's state and first body line; undefined when its frontmatter does not parse. */
function safeParse(text: string, label: string): { state: string | undefined; firstLine: number } | undefined {
  try {
    const note = parseNote(text, label);
    const state = typeof note.data.state === 'string' ? note.data.state.trim() : undefined;
    return { state, firstLine: splitLines(text).length - splitLines(note.body).length + 1 };
  } catch {
    return undefined;
  }
}

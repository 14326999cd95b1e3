import { createHash } from 'node:crypto';
import { catLine, splitLines } from '../../vault/format/lines.js';
import { NotTextFileError } from '../../vault/files/text-file.js';
import { NotRegularFileError } from '../../vault/files/regular-file.js';
import { OutsideVaultError, readConfinedText } from '../../vault/files/real-place.js';
import { parseNote } from '../../vault/format/frontmatter.js';
import type { MeetingArtifacts } from '../../vault/notes/meeting.js';
import { type PartNotes, readNotesSection, type TranscriptNotesSection, writeNotesSection } from '../../vault/notes/transcript-notes-section.js';
import type { Vault } from '../../vault/files/vault.js';
import { WindowOverflowError } from '../../agent/window/window-budget.js';
import { condenseNotes, fitsRoom, type NotesCall, WORDS_PER_TOKEN } from './condense.js';
import { countTokens } from '../../agent/window/tokens.js';
import { type LineRange, splitAtTurns, standingParts } from './parts.js';
import type { ModelRequest } from '../../agent/types.js';
import { type NotesCallOptions, notesCaller, windowTooSmall } from './notes-call.js';
import { condensedPrefix, knownParts, partHash } from './part-reuse.js';
import type { WindowRoom } from './window-room.js';

/**
 * Long transcripts on small windows (docs/design.md §3 step 9): when the transcript does not
 * fit the room the window leaves, it is read first in window-sized parts with a small
 * tool-less prompt, and dense notes of each part are kept in the context note. The agent then
 * starts from the notes of the whole meeting and reads exact lines where it needs wording.
 * A retry (or a restart after a crash) reuses the parts already done: every part's notes are
 * written to the context note as soon as they exist.
 */

export { type WindowRoom, windowRoom } from './window-room.js';

export interface TranscriptToRead {
  /** Vault-relative path, the read tools' label. */
  label: string;
  /** Every line of the file, frontmatter included. */
  lines: string[];
  /** The first line after the frontmatter. */
  firstLine: number;
  /** For the notes prompt: the meeting's title and projects. */
  title?: string;
  projects: string[];
  /** False while the file's last line has no newline: it may still be being written. */
  lastLineDone?: boolean;
}

export interface PartProgress {
  part: number;
  parts: number;
  from: number;
  to: number;
}

export interface TranscriptNotesOptions extends NotesCallOptions {
  /** Tokens the notes of the whole meeting may take in the agent's first message (asked after the parts, as the window may have shrunk). */
  notesRoom: () => number;
  vault: Vault;
  contextPath: string;
  onPart?: (progress: PartProgress) => void;
}

export interface TranscriptNotes {
  /** The notes the agent starts from (condensed when the parts' notes did not fit). */
  notes: PartNotes[];
  parts: number;
  /** Parts whose notes came from an earlier run. */
  reused: number;
  /** Model requests made. */
  requests: number;
}

export const NOTES_PROMPT = `You take notes of one part of a long meeting transcript for whoever writes the meeting's summary. The lines are numbered. Write dense notes of this part only:
- who said what (names as spoken; keep labels such as "Speaker 2");
- decisions made;
- action items with owner and date;
- open questions;
- facts, numbers and names that matter for the meeting's projects.
Put the line number after each point, like (L120). Terse bullets, no preamble, nothing invented, no tool calls.`;

/** Tokens around the lines of a part request: prompt, framing, the question. */
const PART_OVERHEAD = 220;
/** Servers count with their own tokenizer, up to about a fifth more than ours. */
const TOKENIZER_MARGIN = 0.8;
/** No server runs a smaller window; below it the pre-pass gives up rather than loop. */
const SMALLEST_WINDOW = 1024;
const MAX_SHRINKS = 6;
/** Room kept for the agent's own messages when judging whether the transcript fits. */
export const REPLY_RESERVE = 400;
/**
 * More parts than this is not a meeting but a mistake (a log pasted in, a file of 50 MB): hours
 * of model time that nobody asked for. Checked by characters, before anything is tokenized.
 */
const MAX_PARTS = 100;
const MAX_CHARS_PER_TOKEN = 6;
/** Less room than this for the notes and a read, and the agent cannot work. */
export const MIN_AGENT_ROOM = 512;

/** The text the read tool returns for the whole transcript, counted: what "fits" is judged by. */
export function wholeReadTokens(transcript: Pick<TranscriptToRead, 'label' | 'lines'>): number {
  const { label, lines } = transcript;
  return countTokens(`${label} (lines 1-${lines.length} of ${lines.length})\n${lines.map((l, i) => catLine(i + 1, l)).join('\n')}`);
}

/** A fingerprint of the transcript: notes of another text are never reused. */
export function fingerprintOf(lines: readonly string[]): string {
  return `sha256:${createHash('sha256').update(lines.join('\n')).digest('hex').slice(0, 16)}`;
}

/** A transcript of more than MAX_PARTS parts (judged by characters): not read into notes, by a run or while it is written. */
export function tooLongToRead(text: string, room: WindowRoom): boolean {
  return text.length > MAX_PARTS * partTokens(room) * MAX_CHARS_PER_TOKEN;
}

/** Output allowance of one notes request: a part's notes are short, and the window is small. */
function notesOutput(room: WindowRoom): number {
  return Math.max(128, Math.min(room.maxOutputTokens, Math.floor(room.window / 8)));
}

/** Tokens of transcript lines one part request may carry. */
export function partTokens(room: WindowRoom): number {
  return Math.max(256, Math.floor((room.window - notesOutput(room) - PART_OVERHEAD) * TOKENIZER_MARGIN));
}

/** Where the parts' notes are made: one section of the context note, saved after each part. */
export interface PartsInProgress {
  section: TranscriptNotesSection;
  /** The notes of the parts so far, in order; those reused are the objects the section held. */
  done: PartNotes[];
  /** Parts whose notes were reused (their lines unchanged since they were made). */
  reused: number;
  call: NotesCall;
  save(): Promise<void>;
}

/** The section as an earlier run (or the live notes) left it, and what of it can be reused. */
export async function startParts(transcript: TranscriptToRead, options: Omit<TranscriptNotesOptions, 'notesRoom'>): Promise<PartsInProgress & { earlier: TranscriptNotesSection | undefined }> {
  const earlier = await readNotesSection(options.vault, options.contextPath);
  const section: TranscriptNotesSection = { fingerprint: fingerprintOf(transcript.lines), progress: '', parts: [], condensed: [] };
  const { room } = options;
  const configured = room.window;
  // A window an earlier pass learned from the server (it cut or refused a notes request, as an
  // Ollama that does not tell its window does): parts sized for it now cost no cut request.
  if (earlier?.window !== undefined && earlier.window < configured) {
    room.shrinkWindow(earlier.window);
    options.log.info({ window: room.window, was: configured }, `reading the transcript for a context window of ${room.window} tokens, as the server showed an earlier notes request`);
  }
  const save = () => {
    if (room.window < configured) section.window = room.window;
    return saveSection(options, section);
  };
  return { earlier, section, done: section.parts, reused: 0, call: notesCaller(options), save };
}

/**
 * Notes of every part from the first line (`until: 'end'`), or of the parts that stand while
 * the transcript is still written (`until: 'standing'`: their ends cannot move as lines are
 * appended). A part whose lines are unchanged since its notes were made (its hash) keeps them;
 * any other is noted now, and saved at once. Endpoint failures that survive the retry policy
 * propagate (the parts done so far are saved).
 */
export async function noteParts(
  transcript: TranscriptToRead,
  work: PartsInProgress & { earlier: TranscriptNotesSection | undefined },
  options: Omit<TranscriptNotesOptions, 'notesRoom'>,
  until: 'end' | 'standing',
): Promise<void> {
  const { log } = options;
  const { lines } = transcript;
  const known = knownParts(work.earlier, lines, work.section.fingerprint);
  const { section, done } = work;
  let position = transcript.firstLine;
  let shrinks = 0;
  for (;;) {
    const kept = known.get(position);
    if (kept && (until === 'end' || kept.to < lines.length)) {
      done.push(kept);
      work.reused++;
      position = kept.to + 1;
      continue;
    }
    const plan = until === 'end' ? splitAtTurns(lines, position, partTokens(options.room)) : standingParts(lines, position, partTokens(options.room), transcript.lastLineDone !== false);
    const part = plan[0];
    if (!part) break;
    const progress = { part: done.length + 1, parts: done.length + plan.length + (until === 'end' ? 0 : 1), from: part.from, to: part.to };
    section.progress = `Reading the transcript: part ${progress.part} of ${until === 'end' ? '' : '~'}${progress.parts} (lines ${part.from}–${part.to} of ${lines.length}).`;
    log.info(progress, `reading the transcript: part ${progress.part} of ${progress.parts}, lines ${part.from}-${part.to}`);
    options.onPart?.(progress);
    await work.save();
    const answer = await work.call(partRequest(transcript, part, progress, options));
    if (answer.cut) {
      if (++shrinks > MAX_SHRINKS || answer.cut < SMALLEST_WINDOW) throw windowTooSmall(answer.cut);
      continue;
    }
    done.push({ from: part.from, to: part.to, text: answer.text || NO_NOTES, hash: partHash(lines, part) });
    position = part.to + 1;
  }
}

/**
 * Reads the transcript into notes, part by part, reusing the parts an earlier run or the live
 * notes left in the context note, then condenses them until they fit `notesRoom`. Endpoint
 * failures that survive the retry policy propagate (the parts done so far are saved).
 */
export async function readTranscriptInParts(transcript: TranscriptToRead, options: TranscriptNotesOptions): Promise<TranscriptNotes> {
  const { log } = options;
  const { lines } = transcript;
  const work = await startParts(transcript, options);
  await noteParts(transcript, work, options, 'end');
  const { section, done, reused, call } = work;
  if (reused > 0) log.info({ parts: reused, of: done.length }, 'reusing the transcript notes of an earlier run');
  const parts = done.length;
  section.progress = `Read in ${parts} parts (lines ${transcript.firstLine}–${lines.length} of ${lines.length}); the notes are complete.`;
  // The last part's notes now, before condensing: a failing condense request must not cost a
  // retry the last part.
  if (parts > reused) await work.save();
  const notesRoom = options.notesRoom();
  const notes = await condensed(work, notesRoom, options);
  const raw = new Set(done);
  section.condensed = notes.filter((n) => !raw.has(n));
  await work.save();
  return { notes, parts, reused, requests: call.requests };
}

/**
 * The notes to condense: condensed notes made earlier (by a run, or by the live notes while
 * the meeting ran) over parts unchanged since, then the notes of the parts after them.
 */
export function notesToCondense(work: PartsInProgress & { earlier: TranscriptNotesSection | undefined }): PartNotes[] {
  const { done } = work;
  const prefix = condensedPrefix(work.earlier, done);
  return prefix.length > 0 ? [...prefix, ...done.filter((n) => n.from > prefix.at(-1)!.to)] : done;
}

/** The parts' notes within `notesRoom`, condensed again only when what was condensed before and the notes after it do not fit. */
async function condensed(work: PartsInProgress & { earlier: TranscriptNotesSection | undefined }, notesRoom: number, options: Omit<TranscriptNotesOptions, 'notesRoom'>): Promise<PartNotes[]> {
  const start = notesToCondense(work);
  if (start !== work.done && fitsRoom(start, notesRoom)) {
    options.log.info({ notes: start.length }, 'reusing the condensed transcript notes made earlier');
    return start;
  }
  return condenseWork(start, notesRoom, work, options);
}

export function condenseWork(notes: PartNotes[], notesRoom: number, work: PartsInProgress, options: Omit<TranscriptNotesOptions, 'notesRoom'>): Promise<PartNotes[]> {
  return condenseNotes(notes, {
    room: options.room,
    notesRoom,
    call: work.call,
    log: options.log,
    partTokens: () => partTokens(options.room),
    ...(options.signal ? { signal: options.signal } : {}),
  });
}

const NO_NOTES = '(no notes were written for these lines: read them with read_transcript)';

async function saveSection(options: Pick<TranscriptNotesOptions, 'vault' | 'contextPath' | 'log'>, section: TranscriptNotesSection): Promise<void> {
  try {
    await writeNotesSection(options.vault, options.contextPath, section);
  } catch (err) {
    // The notes are still given to the agent; only a retry will have to read the parts again.
    options.log.warn({ err, context: options.vault.rel(options.contextPath) }, 'could not save the transcript notes in the context note');
  }
}

function partRequest(transcript: TranscriptToRead, part: LineRange, progress: PartProgress, options: Pick<TranscriptNotesOptions, 'room' | 'signal'>): ModelRequest {
  const { lines, label } = transcript;
  const words = notesWords(options.room, part, lines);
  const shown = [`${label} (lines ${part.from}-${part.to} of ${lines.length})`];
  for (let n = part.from; n <= part.to; n++) shown.push(catLine(n, lines[n - 1] ?? ''));
  const about = [
    `Meeting: ${transcript.title ?? '(untitled)'}.`,
    `Projects: ${transcript.projects.length > 0 ? transcript.projects.join(', ') : '(none)'}.`,
    `Part ${progress.part} of ${progress.parts}: transcript lines ${part.from}-${part.to} of ${lines.length}.`,
  ].join(' ');
  return {
    instructions: NOTES_PROMPT,
    messages: [{ role: 'user', content: `${about}\n\n${shown.join('\n')}\n\nWrite the notes of lines ${part.from}-${part.to} in at most ${words} words.` }],
    tools: [],
    maxOutputTokens: notesOutput(options.room),
    ...(options.signal ? { signal: options.signal } : {}),
  };
}

/**
 * How long a part's notes may be: dense (about a seventh of the part), within the output
 * allowance; the condensing level makes them fit the agent's room when they do not.
 */
function notesWords(room: WindowRoom, part: LineRange, lines: readonly string[]): number {
  let size = 0;
  for (let n = part.from; n <= part.to; n++) size += (lines[n - 1] ?? '').length;
  const tokens = Math.min(notesOutput(room) * 0.85, Math.max(100, (size / 4) * 0.15));
  return Math.max(60, Math.floor(tokens * WORDS_PER_TOKEN));
}

/** The notes as the agent's first message carries them. */
export function notesForAgent(notes: readonly PartNotes[], totalLines: number, parts: number): string {
  const head =
    `The transcript (${totalLines} lines) is longer than your context window holds, so it was read for you in ${parts} parts. ` +
    'Below are notes of the whole meeting, each under its transcript line range; they are also in your notebook (read_context). ' +
    'Start from them instead of reading the whole transcript: read exact lines with read_transcript (from, to) only where you ' +
    'need the precise wording, a name or a number.';
  return [head, ...notes.map((n) => `### Lines ${n.from}–${n.to}\n${n.text.trim()}`)].join('\n\n');
}

export interface LongTranscriptInput extends Omit<TranscriptNotesOptions, 'notesRoom' | 'contextPath'> {
  meeting: MeetingArtifacts;
  /** Tokens every agent request carries: instructions, tool schemas, the first message. */
  carried: number;
  /** How the notes are shown (default: to the agent, who can read exact lines with its tools). */
  render?: typeof notesForAgent;
}

/**
 * The notes the agent's first message starts from when the transcript does not fit the room
 * the window leaves (read in parts first); undefined when it fits and the agent reads it itself.
 */
export async function notesForLongTranscript(input: LongTranscriptInput): Promise<string | undefined> {
  const { vault, meeting, log } = input;
  const text = await readConfinedText(vault, meeting.transcriptPath)
    .catch((err: unknown) => {
      // Out of the vault or in a dot-folder (a link to the token): not read (docs/design.md §10).
      if (err instanceof OutsideVaultError) return undefined;
      // A folder or a binary file: the agent's read tool tells it so.
      if (err instanceof NotTextFileError || err instanceof NotRegularFileError) return undefined;
      throw err;
    });
  if (text === undefined) return undefined;
  const label = vault.rel(meeting.transcriptPath);
  if (tooLongToRead(text, input.room)) {
    log.warn({ chars: text.length, transcript: label }, `the transcript is too long to read into notes (over ${MAX_PARTS} parts): the agent reads it in ranges`);
    return undefined;
  }
  const lines = splitLines(text);
  const room = () => input.room.target - input.carried - REPLY_RESERVE;
  const whole = wholeReadTokens({ label, lines });
  // As the context manager sizes a read (ROOM_SHARE): a transcript that fits is read in one result.
  if (whole <= room() * 0.9) return undefined;
  log.info({ tokens: whole, room: Math.max(0, room()), window: input.room.window }, 'the transcript does not fit the window: reading it in parts first');
  checkRoom(room(), input);
  const result = await readTranscriptInParts(
    { label, lines, firstLine: bodyStart(text, lines, label), title: meeting.title, projects: meeting.projects },
    {
      ...input,
      contextPath: meeting.contextPath,
      notesRoom: () => Math.max(MIN_AGENT_ROOM / 2, Math.floor(room() / 2)),
      afterShrink: () => checkRoom(room(), input),
    },
  );
  log.info({ parts: result.parts, reused: result.reused, requests: result.requests }, 'the transcript is read into notes');
  // The window may have shrunk while the parts were read (a server that cuts silently).
  checkRoom(room(), input);
  return (input.render ?? notesForAgent)(result.notes, lines.length, result.parts);
}

/**
 * Fails the run, rather than send requests that cannot fit, when what every agent request
 * carries leaves no room for notes and a read. The parts read so far stay in the context note.
 */
function checkRoom(room: number, input: LongTranscriptInput): void {
  if (room >= MIN_AGENT_ROOM) return;
  throw new WindowOverflowError(
    `The agent's instructions, tool schemas and first message (about ${input.carried} tokens) leave no room for the transcript ` +
      `notes and a read in the context window (about ${input.room.window} tokens, ${input.room.target} under the compaction ` +
      'threshold). Raise the server\'s context length and ContextWindow.Tokens to match.',
  );
}

/** The first line after the frontmatter (1 when there is none or it does not parse). */
function bodyStart(text: string, lines: readonly string[], label: string): number {
  try {
    return lines.length - splitLines(parseNote(text, label).body).length + 1;
  } catch {
    return 1;
  }
}

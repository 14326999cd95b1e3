import { createHash } from 'node:crypto';
import type { Settings } from '../../config.js';
import type { Logger } from '../../log.js';
import { catLine, splitLines } from '../../vault/lines.js';
import { NotTextFileError, readTextFile } from '../../vault/text-file.js';
import { parseNote } from '../../vault/frontmatter.js';
import type { MeetingArtifacts } from '../../vault/meeting.js';
import { type PartNotes, readNotesSection, type TranscriptNotesSection, writeNotesSection } from '../../vault/transcript-notes-section.js';
import type { Vault } from '../../vault/vault.js';
import { compactionTarget, WindowOverflowError, contextLimitFrom, outputReserve } from '../../agent/window/window-budget.js';
import { condenseNotes, fitsRoom, type NotesCall, WORDS_PER_TOKEN } from './condense.js';
import { type EndpointGate, type Sleep, withRetry } from '../../agent/model/retry.js';
import { countTokens, estimateRequestTokens, fixedTokens } from '../../agent/window/tokens.js';
import { truncationSuspicion, windowShownByCut } from '../../agent/window/truncation.js';
import { type LineRange, splitAtTurns } from './parts.js';
import { ModelError, type ModelClient, type ModelRequest } from '../../agent/types.js';

/**
 * Long transcripts on small windows (docs/design.md §3 step 9): when the transcript does not
 * fit the room the window leaves, it is read first in window-sized parts with a small
 * tool-less prompt, and dense notes of each part are kept in the context note. The agent then
 * starts from the notes of the whole meeting and reads exact lines where it needs wording.
 * A retry (or a restart after a crash) reuses the parts already done: every part's notes are
 * written to the context note as soon as they exist.
 */

/** What the pre-pass needs to know of the window; the run's WindowBudget provides it. */
export interface WindowRoom {
  /** The window in use (configured, or smaller once the server showed less). */
  readonly window: number;
  /** What one request may ask for as output. */
  readonly maxOutputTokens: number;
  /** The request size compaction keeps the main conversation under. */
  readonly target: number;
  /** The server showed a smaller window (a pre-pass request was cut or refused). */
  shrinkWindow(tokens: number): void;
  /** Asks the server for its window (once per run), so the parts are sized by it. */
  prepare?(): Promise<void>;
}

/**
 * The window as the run's context manager knows it (it learns a smaller one from the server),
 * else as configured.
 */
export function windowRoom(context: Partial<WindowRoom> | undefined, settings: Settings['ContextWindow']): WindowRoom {
  if (context?.window !== undefined && context.target !== undefined && context.maxOutputTokens !== undefined && context.shrinkWindow) {
    return context as WindowRoom;
  }
  let window = settings.Tokens;
  return {
    get window() {
      return window;
    },
    get maxOutputTokens() {
      return outputReserve(window, settings);
    },
    get target() {
      return compactionTarget(window, settings);
    },
    shrinkWindow(tokens) {
      window = Math.min(window, Math.floor(tokens));
    },
  };
}

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
}

export interface PartProgress {
  part: number;
  parts: number;
  from: number;
  to: number;
}

export interface TranscriptNotesOptions {
  model: ModelClient;
  retry: { attempts: number; delayMs: number; sleep?: Sleep; stopWaiting?: AbortSignal | undefined; endpoint?: EndpointGate | undefined };
  log: Logger;
  signal?: AbortSignal;
  room: WindowRoom;
  /** Tokens the notes of the whole meeting may take in the agent's first message (asked after the parts, as the window may have shrunk). */
  notesRoom: () => number;
  vault: Vault;
  contextPath: string;
  onPart?: (progress: PartProgress) => void;
  /** After the window shrank: throws when the run can no longer fit (it fails now, not after reading every part). */
  afterShrink?: () => void;
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

/** Output allowance of one notes request: a part's notes are short, and the window is small. */
function notesOutput(room: WindowRoom): number {
  return Math.max(128, Math.min(room.maxOutputTokens, Math.floor(room.window / 8)));
}

/** Tokens of transcript lines one part request may carry. */
export function partTokens(room: WindowRoom): number {
  return Math.max(256, Math.floor((room.window - notesOutput(room) - PART_OVERHEAD) * TOKENIZER_MARGIN));
}

/**
 * Reads the transcript into notes, part by part, reusing the parts an earlier run left in the
 * context note, then condenses them until they fit `notesRoom`. Endpoint failures that survive
 * the retry policy propagate (the parts done so far are saved).
 */
export async function readTranscriptInParts(transcript: TranscriptToRead, options: TranscriptNotesOptions): Promise<TranscriptNotes> {
  const { log } = options;
  const { lines } = transcript;
  const fingerprint = fingerprintOf(lines);
  const earlier = await readNotesSection(options.vault, options.contextPath);
  const done = reusableParts(earlier, fingerprint, transcript.firstLine);
  const reused = done.length;
  if (reused > 0) log.info({ parts: reused, to: done.at(-1)!.to }, 'reusing the transcript notes of an earlier run');
  const section: TranscriptNotesSection = { fingerprint, progress: '', parts: done, condensed: [] };
  const save = () => saveSection(options, section);
  const call = notesCaller(options);
  let position = done.length > 0 ? done.at(-1)!.to + 1 : transcript.firstLine;
  let shrinks = 0;
  while (position <= lines.length) {
    const plan = splitAtTurns(lines, position, partTokens(options.room));
    const part = plan[0]!;
    const progress = { part: done.length + 1, parts: done.length + plan.length, from: part.from, to: part.to };
    section.progress = `Reading the transcript: part ${progress.part} of ${progress.parts} (lines ${part.from}–${part.to} of ${lines.length}).`;
    log.info(progress, `reading the transcript: part ${progress.part} of ${progress.parts}, lines ${part.from}-${part.to}`);
    options.onPart?.(progress);
    await save();
    const answer = await call(partRequest(transcript, part, progress, options));
    if (answer.cut) {
      if (++shrinks > MAX_SHRINKS || answer.cut < SMALLEST_WINDOW) throw windowTooSmall(answer.cut);
      continue;
    }
    done.push({ from: part.from, to: part.to, text: answer.text || NO_NOTES });
    position = part.to + 1;
  }
  const parts = done.length;
  section.progress = `Read in ${parts} parts (lines ${transcript.firstLine}–${lines.length} of ${lines.length}); the notes are complete.`;
  // The last part's notes now, before condensing: a failing condense request must not cost a
  // retry the last part.
  if (parts > reused) await save();
  const notesRoom = options.notesRoom();
  // Condensed notes of an earlier run over these same parts are reused while they still fit.
  const kept = reused === parts && earlier && covers(earlier.condensed, transcript) ? earlier.condensed : [];
  let notes: PartNotes[] = kept.length > 0 && fitsRoom(kept, notesRoom) ? kept : done;
  if (notes === done) {
    notes = await condenseNotes(done, {
      room: options.room,
      notesRoom,
      call,
      log,
      partTokens: () => partTokens(options.room),
      ...(options.signal ? { signal: options.signal } : {}),
    });
  } else {
    log.info({ notes: notes.length }, 'reusing the condensed transcript notes of an earlier run');
  }
  section.condensed = notes === done ? [] : notes;
  await save();
  return { notes, parts, reused, requests: call.requests };
}

const NO_NOTES = '(no notes were written for these lines: read them with read_transcript)';

/** Notes that cover the whole transcript, one range after the other. */
function covers(notes: readonly PartNotes[], transcript: TranscriptToRead): boolean {
  let next = transcript.firstLine;
  for (const note of notes) {
    if (note.from !== next) return false;
    next = note.to + 1;
  }
  return notes.length > 0 && next === transcript.lines.length + 1;
}

/** Notes an earlier run made of this same transcript, contiguous from its first line. */
function reusableParts(section: TranscriptNotesSection | undefined, fingerprint: string, firstLine: number): PartNotes[] {
  if (!section || section.fingerprint !== fingerprint) return [];
  const parts = [...section.parts].sort((a, b) => a.from - b.from);
  const out: PartNotes[] = [];
  let next = firstLine;
  for (const part of parts) {
    if (part.from !== next) break;
    out.push(part);
    next = part.to + 1;
  }
  return out;
}

async function saveSection(options: TranscriptNotesOptions, section: TranscriptNotesSection): Promise<void> {
  try {
    await writeNotesSection(options.vault, options.contextPath, section);
  } catch (err) {
    // The notes are still given to the agent; only a retry will have to read the parts again.
    options.log.warn({ err, context: options.vault.rel(options.contextPath) }, 'could not save the transcript notes in the context note');
  }
}

function partRequest(transcript: TranscriptToRead, part: LineRange, progress: PartProgress, options: TranscriptNotesOptions): ModelRequest {
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

/**
 * One notes request under the retry policy. A prompt the server cut silently (its own count
 * far below the request, or the count an earlier cut kept) or refused as too long is not
 * used: the window shrinks to what the server showed (truncation.ts windowShownByCut: twice
 * Ollama's kept count) and the caller splits again (`cut` is that window).
 */
function notesCaller(options: TranscriptNotesOptions): NotesCall {
  const { log, room } = options;
  let requests = 0;
  let cap: number | undefined;
  const shrink = (tokens: number, why: string) => {
    const window = Math.max(1, Math.floor(tokens));
    log.warn({ window, was: room.window }, `a transcript notes request was ${why}; reading in smaller parts for a window of about ${window} tokens`);
    room.shrinkWindow(window);
    options.afterShrink?.();
    return window;
  };
  const call = async (request: ModelRequest) => {
    requests++;
    const estimate = estimateRequestTokens(request);
    let response;
    try {
      response = await withRetry(() => options.model.complete(request), {
        ...options.retry,
        log,
        ...(options.signal ? { signal: options.signal } : {}),
        label: 'transcript notes',
      });
    } catch (err) {
      if (!(err instanceof ModelError) || !err.contextTooLong) throw err;
      const limit = contextLimitFrom(err) ?? Math.floor(estimate * 0.75);
      return { text: '', cut: shrink(Math.min(limit, room.window - 1), 'refused as too long') };
    }
    const reported = response.usage?.inputTokens;
    // Judged as the main conversation is (truncation.ts); each notes request stands alone.
    const why =
      reported === undefined
        ? undefined
        : truncationSuspicion({ request, reported, estimate, fixed: fixedTokens(request), previous: undefined, told: undefined, ...(cap ? { cap } : {}) }, log);
    if (reported !== undefined && why !== undefined) {
      cap = reported;
      const shown = windowShownByCut(reported, room.window);
      const how = shown.guess ? `, which is Ollama's cut of a ${shown.window}-token window` : '';
      return { text: '', cut: shrink(shown.window, `cut silently: the server processed ${reported} of about ${estimate} prompt tokens (${why})${how}`) };
    }
    return { text: response.content.trim() };
  };
  return Object.defineProperty(call, 'requests', { get: () => requests }) as NotesCall;
}

function windowTooSmall(window: number): ModelError {
  return new ModelError(
    `the server's context window (about ${window} tokens) is too small to read the transcript in parts; raise its context length`,
    { kind: 'invalid-response' },
  );
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
}

/**
 * The notes the agent's first message starts from when the transcript does not fit the room
 * the window leaves (read in parts first); undefined when it fits and the agent reads it itself.
 */
export async function notesForLongTranscript(input: LongTranscriptInput): Promise<string | undefined> {
  const { vault, meeting, log } = input;
  const text = await readTextFile(vault, meeting.transcriptPath).catch((err: unknown) => {
    // A folder or a binary file: the agent's read tool tells it so.
    if (err instanceof NotTextFileError) return undefined;
    throw err;
  });
  if (text === undefined) return undefined;
  const label = vault.rel(meeting.transcriptPath);
  if (text.length > MAX_PARTS * partTokens(input.room) * MAX_CHARS_PER_TOKEN) {
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
  return notesForAgent(result.notes, lines.length, result.parts);
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

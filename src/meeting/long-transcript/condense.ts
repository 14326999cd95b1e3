import type { Logger } from '../../log.js';
import type { PartNotes } from '../../vault/notes/transcript-notes-section.js';
import { countTokens, truncateToTokens } from '../../agent/window/tokens.js';
import type { ModelRequest } from '../../agent/types.js';

/**
 * The second level (and further ones) of reading a long transcript: notes of many parts that
 * together do not fit the room the agent has are condensed, a group of consecutive parts per
 * request, each group becoming one note over the union of its line ranges, until they fit.
 */

/** One notes request; `cut` is set (to the window the server showed) when the prompt was cut or refused. */
export type NotesCall = ((request: ModelRequest) => Promise<{ text: string; cut?: number }>) & { readonly requests: number };

export const CONDENSE_PROMPT = `You condense notes of consecutive parts of a long meeting into shorter notes for whoever writes the meeting's summary. Keep every decision, every action item with its owner and date, open questions, names and numbers, and the line numbers like (L120); drop repetition and small talk. Terse bullets, no preamble, nothing invented, no tool calls.`;

const MAX_LEVELS = 6;
/** Notes are asked for in words (models count those): bullets with names and line numbers run about 1.6 tokens a word. */
export const WORDS_PER_TOKEN = 0.6;
const PER_NOTE_OVERHEAD = 12;
const CLOSE_ENOUGH = 1.15;

export interface CondenseOptions {
  room: { readonly maxOutputTokens: number };
  /** Tokens all notes together may take. */
  notesRoom: number;
  /** Tokens of notes one condensing request may carry (asked again: the window may shrink). */
  partTokens: () => number;
  call: NotesCall;
  log: Logger;
  signal?: AbortSignal;
}

/** Notes within their room, or so little over it that cutting them beats one more request. */
export function fitsRoom(notes: readonly PartNotes[], notesRoom: number): boolean {
  return tokensOf(notes) <= notesRoom * CLOSE_ENOUGH;
}

function tokensOf(notes: readonly PartNotes[]): number {
  return notes.reduce((sum, n) => sum + countTokens(n.text) + PER_NOTE_OVERHEAD, 0);
}

/** Consecutive notes in groups of at most `max` tokens each (a note larger than that is a group alone). */
function groupNotes(notes: readonly PartNotes[], max: number): PartNotes[][] {
  const groups: PartNotes[][] = [];
  let current: PartNotes[] = [];
  let used = 0;
  for (const note of notes) {
    const size = countTokens(note.text) + PER_NOTE_OVERHEAD;
    if (current.length > 0 && used + size > max) {
      groups.push(current);
      current = [];
      used = 0;
    }
    current.push(note);
    used += size;
  }
  if (current.length > 0) groups.push(current);
  return groups;
}

function condenseRequest(group: readonly PartNotes[], words: number, options: CondenseOptions): ModelRequest {
  const from = group[0]!.from;
  const to = group.at(-1)!.to;
  const body = group.map((n) => `### Lines ${n.from}-${n.to}\n${n.text.trim()}`).join('\n\n');
  return {
    instructions: CONDENSE_PROMPT,
    messages: [{ role: 'user', content: `Notes of transcript lines ${from}-${to}:\n\n${body}\n\nCondense them into at most ${words} words.` }],
    tools: [],
    maxOutputTokens: Math.max(64, Math.min(options.room.maxOutputTokens, Math.ceil(words * 1.6))),
    ...(options.signal ? { signal: options.signal } : {}),
  };
}

/**
 * Condenses `notes` until they fit `notesRoom`. A level that does not make them smaller ends
 * the condensing; what is then still over is cut note by note (logged), so the agent's first
 * message always fits.
 */
export async function condenseNotes(notes: PartNotes[], options: CondenseOptions): Promise<PartNotes[]> {
  const { log, notesRoom } = options;
  let current = notes;
  // Notes a little over their room are cut rather than condensed once more (a request).
  for (let level = 2; !fitsRoom(current, notesRoom) && level <= MAX_LEVELS + 1; level++) {
    const groups = groupNotes(current, options.partTokens());
    const perGroup = Math.max(40, Math.floor(notesRoom / groups.length) - PER_NOTE_OVERHEAD);
    const words = Math.max(30, Math.floor(perGroup * WORDS_PER_TOKEN));
    const next: PartNotes[] = [];
    for (const [i, group] of groups.entries()) {
      log.info({ level, group: i + 1, groups: groups.length, from: group[0]!.from, to: group.at(-1)!.to }, `condensing the transcript notes: level ${level}, ${i + 1} of ${groups.length}`);
      const answer = await options.call(condenseRequest(group, words, options));
      if (answer.cut) {
        // The window shrank under us: split this level again with the smaller room.
        next.length = 0;
        break;
      }
      next.push({ from: group[0]!.from, to: group.at(-1)!.to, text: answer.text || group.map((n) => n.text).join('\n') });
    }
    if (next.length === 0) continue;
    if (tokensOf(next) >= tokensOf(current)) {
      log.warn({ level, tokens: tokensOf(next) }, 'condensing did not make the transcript notes shorter');
      break;
    }
    current = next;
  }
  return fitByCutting(current, notesRoom, log);
}

/** The last resort: every note cut to the same share of the room. */
function fitByCutting(notes: PartNotes[], notesRoom: number, log: Logger): PartNotes[] {
  const total = tokensOf(notes);
  if (total <= notesRoom || notes.length === 0) return notes;
  const each = Math.max(16, Math.floor(notesRoom / notes.length) - PER_NOTE_OVERHEAD);
  log.warn({ tokens: total, room: notesRoom }, 'the transcript notes are still over their room: cutting each note');
  return notes.map((n) => ({ ...n, text: `${truncateToTokens(n.text, each)}${countTokens(n.text) > each ? ' …' : ''}` }));
}

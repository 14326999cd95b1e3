import { inertExternalText } from '../vault/format/inert.js';
import type { Cue } from './cues.js';

/**
 * Cues as the lines of a transcript note (docs/design.md §1, §9): `[hh:mm:ss] Name: text`, or
 * `[hh:mm:ss] text` when the source names no speaker. Consecutive cues of one speaker make
 * one line, and a new line starts at least every 60 seconds of speech, so the agent's reads
 * by line number stay fine-grained. Every word of every cue is kept, in order.
 */

const TURN_SECONDS = 60;

const two = (n: number) => String(n).padStart(2, '0');

export function clockLabel(seconds: number): string {
  const s = Math.max(0, Math.floor(seconds));
  return `${two(Math.floor(s / 3600))}:${two(Math.floor((s % 3600) / 60))}:${two(s % 60)}`;
}

/** One line of text per turn: a cue's text never carries a line break into the note. */
export function transcriptLines(cues: readonly Cue[]): string[] {
  const lines: string[] = [];
  let speaker: string | undefined;
  let turnStart = 0;
  let parts: string[] = [];
  const flush = () => {
    if (parts.length === 0) return;
    // A name is one line too, whatever a reader let through. Words from a file are made inert
    // (docs/design.md §9): a cue holding `$= dv.el(…)` is shown in the note, not run.
    const label = speaker !== undefined ? `${speaker.replace(/\s+/g, ' ')}: ` : '';
    lines.push(inertExternalText(`[${clockLabel(turnStart)}] ${label}${parts.join(' ')}`));
    parts = [];
  };
  for (const cue of cues) {
    const same = parts.length > 0 && cue.speaker === speaker && !cue.turn && cue.start - turnStart < TURN_SECONDS;
    if (!same) {
      flush();
      speaker = cue.speaker;
      turnStart = cue.start;
    }
    parts.push(cue.text.replace(/\s+/g, ' ').trim());
  }
  flush();
  return lines;
}

/** Labels that name no person: left out of `attendees`. */
const GENERIC = /^(?:speaker|spk|unknown|guest|participant|unidentified|user|voice|person)(?:[\s_-]*\d+)?$|^\?$/i;

export function isGenericSpeaker(name: string): boolean {
  return GENERIC.test(name.trim());
}

/** The distinct named speakers, in order of first appearance. */
export function attendeesOf(cues: readonly Cue[]): string[] {
  const seen = new Map<string, string>();
  for (const cue of cues) {
    const name = cue.speaker?.trim();
    if (!name || isGenericSpeaker(name)) continue;
    const key = name.toLowerCase();
    if (!seen.has(key)) seen.set(key, name);
  }
  return [...seen.values()];
}

/** Seconds from the start to the last cue's end. */
export function durationOf(cues: readonly Cue[]): number {
  let end = 0;
  for (const cue of cues) end = Math.max(end, cue.end, cue.start);
  return end;
}

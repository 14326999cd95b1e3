import { type Cue, type SourceFile } from '../cues.js';
import type { ReadReport } from '../read-report.js';
import { plainLines, SUBRIP_TAGS } from './markup.js';
import { hasInlineTimes, unrolled } from './rolling.js';
import { attributePrefixes } from './speaker-prefix.js';
import { subtitleBlocks } from './subtitle-blocks.js';
import { decodeText } from './text-decode.js';

/**
 * SubRip (docs/design.md §9): index, `HH:MM:SS,mmm --> …`, text. Speakers as the tools write
 * them: `[SPEAKER_00]: ` (WhisperX), `(speaker 0) ` (whisper.cpp `-di`), `Name: `; whisper.cpp's
 * tinydiarize marks the end of a turn with `[SPEAKER_TURN]`. HTML-like tags (`<i>`, `<font>`)
 * and ASS override tags (`{\an8}`) go.
 */
export function readSrt(file: SourceFile, report: ReadReport): Cue[] {
  const cues: Cue[] = [];
  const multiLine = new Map<Cue, string[]>();
  let inlineTimes = false;
  for (const raw of subtitleBlocks(decodeText(file), { webvtt: false, report })) {
    const lines = plainLines(raw.text, SUBRIP_TAGS);
    if (lines.length === 0) continue;
    const cue: Cue = { start: raw.start, end: raw.end, line: raw.line, text: lines.join(' ') };
    cues.push(cue);
    if (lines.length > 1) multiLine.set(cue, lines);
    inlineTimes ||= hasInlineTimes(raw.text);
  }
  return attributePrefixes(speakersTagged(unrolled(cues, multiLine, inlineTimes)));
}

/** WhisperX's and whisper.cpp's speaker tags, and tinydiarize's turns; a cue left empty by its tag goes. */
function speakersTagged(cues: Cue[]): Cue[] {
  const out: Cue[] = [];
  let turn = false;
  for (const cue of cues) {
    let text = cue.text;
    const endsTurn = /\[SPEAKER_TURN\]\s*$/.test(text);
    text = text.replace(/\s*\[SPEAKER_TURN\]\s*$/, '');
    let speaker: string | undefined;
    const tagged = /^\[(SPEAKER_\d+)\]:?\s*(.*)$/s.exec(text) ?? /^\[([^\]]{1,40})\]:\s+(.*)$/s.exec(text) ?? /^\((speaker \d+|speaker \?)\)\s*(.*)$/is.exec(text);
    if (tagged) {
      speaker = /\?/.test(tagged[1]!) ? undefined : tagged[1]!.replace(/^speaker (\d+)$/i, 'Speaker $1');
      text = tagged[2]!;
    }
    if (text !== '') out.push({ ...cue, ...(speaker ? { speaker } : {}), text, ...(turn && !speaker ? { turn } : {}) });
    turn = endsTurn;
  }
  return out;
}

import { type Cue, type SourceFile } from '../cues.js';
import type { ReadReport } from '../read-report.js';
import { decodeEntities, withoutOverrideTags } from './markup.js';
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
  const read = [...subtitleBlocks(decodeText(file), { webvtt: false, report })].map(({ start, end, line, text }) => ({
    inlineTimes: hasInlineTimes(text),
    lines: text.split('\n').map(plainLine).filter((l) => l !== ''),
    at: { start, end, line },
  }));
  const fresh = unrolled(read);
  const cues: Cue[] = [];
  let turn = false;
  for (const [i, { at: raw }] of read.entries()) {
    let text = fresh[i]!.join(' ');
    const endsTurn = /\[SPEAKER_TURN\]\s*$/.test(text);
    text = text.replace(/\s*\[SPEAKER_TURN\]\s*$/, '');
    let speaker: string | undefined;
    const tagged = /^\[(SPEAKER_\d+)\]:?\s*(.*)$/s.exec(text) ?? /^\[([^\]]{1,40})\]:\s+(.*)$/s.exec(text) ?? /^\((speaker \d+|speaker \?)\)\s*(.*)$/is.exec(text);
    if (tagged) {
      speaker = /\?/.test(tagged[1]!) ? undefined : tagged[1]!.replace(/^speaker (\d+)$/i, 'Speaker $1');
      text = tagged[2]!;
    }
    if (text !== '') cues.push({ start: raw.start, end: raw.end, line: raw.line, ...(speaker ? { speaker } : {}), text, ...(turn && !speaker ? { turn } : {}) });
    turn = endsTurn;
  }
  return attributePrefixes(cues);
}

function plainLine(line: string): string {
  return decodeEntities(withoutOverrideTags(line.replace(/<\/?[a-z][^>]*>/gi, ''))).replace(/\s+/g, ' ').trim();
}

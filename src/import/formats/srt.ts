import { type Cue, type SourceFile } from '../cues.js';
import { decodeEntities } from './markup.js';
import { splitSpeaker } from './speaker-prefix.js';
import { subtitleBlocks } from './subtitle-blocks.js';
import { decodeText } from './text-decode.js';

/**
 * SubRip (docs/design.md §9): index, `HH:MM:SS,mmm --> …`, text. Speakers as the tools write
 * them: `[SPEAKER_00]: ` (WhisperX), `(speaker 0) ` (whisper.cpp `-di`), `Name: `; whisper.cpp's
 * tinydiarize marks the end of a turn with `[SPEAKER_TURN]`.
 */
export function readSrt(file: SourceFile): Cue[] {
  const cues: Cue[] = [];
  let turn = false;
  for (const raw of subtitleBlocks(decodeText(file))) {
    let text = decodeEntities(raw.text.replace(/<\/?[a-z][^>]*>/gi, '')).replace(/\s+/g, ' ').trim();
    const endsTurn = /\[SPEAKER_TURN\]\s*$/.test(text);
    text = text.replace(/\s*\[SPEAKER_TURN\]\s*$/, '');
    let speaker: string | undefined;
    const tagged = /^\[(SPEAKER_\d+)\]:?\s*(.*)$/s.exec(text) ?? /^\[([^\]]{1,40})\]:\s+(.*)$/s.exec(text) ?? /^\((speaker \d+|speaker \?)\)\s*(.*)$/is.exec(text);
    if (tagged) {
      speaker = /\?/.test(tagged[1]!) ? undefined : tagged[1]!.replace(/^speaker (\d+)$/i, 'Speaker $1');
      text = tagged[2]!;
    } else {
      const prefixed = splitSpeaker(text);
      if (prefixed) ({ speaker, text } = prefixed);
    }
    if (text !== '') cues.push({ start: raw.start, end: raw.end, ...(speaker ? { speaker } : {}), text, ...(turn && !speaker ? { turn } : {}) });
    turn = endsTurn;
  }
  return cues;
}

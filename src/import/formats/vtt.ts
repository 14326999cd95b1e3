import { type Cue, ImportError, type SourceFile } from '../cues.js';
import { plainCueText } from './markup.js';
import { splitSpeaker } from './speaker-prefix.js';
import { subtitleBlocks } from './subtitle-blocks.js';
import { decodeText } from './text-decode.js';

/**
 * WebVTT (docs/design.md §9), written by hand rather than with a WebVTT library: the
 * variants Teams and Zoom write are what matters, and a strict parser refuses them (an
 * unpadded hour `0:00:05.120` is no valid WebVTT timestamp, a `<v>` left open is an error).
 * Teams names the speaker in a voice tag; Zoom writes `Name: text`.
 */
export function readVtt(file: SourceFile): Cue[] {
  const text = decodeText(file);
  if (!/^WEBVTT([ \t\r\n]|$)/.test(text)) {
    throw new ImportError(`${file.name} does not start with "WEBVTT": it is no WebVTT file; if it is SubRip, name it .srt`);
  }
  const cues: Cue[] = [];
  // The header block (WEBVTT and its metadata lines) has no timing line: it is passed over.
  for (const raw of subtitleBlocks(text)) {
    const plain = plainCueText(raw.text);
    if (plain.text === '') continue;
    const prefixed = plain.speaker ? undefined : splitSpeaker(plain.text);
    cues.push({ start: raw.start, end: raw.end, ...(prefixed ?? plain) });
  }
  return cues;
}

import { type Cue, ImportError, type SourceFile } from '../cues.js';
import { plainCueText } from './markup.js';
import { splitSpeaker } from './speaker-prefix.js';
import { subtitleBlocks } from './subtitle-blocks.js';
import { decodeText, splitLines } from './text-decode.js';

/**
 * WebVTT (docs/design.md §9), written by hand rather than with a WebVTT library: the
 * variants Teams and Zoom write are what matters, and a strict parser refuses them (an
 * unpadded hour `0:00:05.120` is no valid WebVTT timestamp, a `<v>` left open is an error).
 * Teams names the speaker in a voice tag; Zoom writes `Name: text`.
 */
export function readVtt(file: SourceFile): Cue[] {
  const lines = splitLines(decodeText(file));
  if (!/^WEBVTT(\s|$)/.test(lines[0] ?? '')) {
    throw new ImportError(`${file.name} does not start with "WEBVTT": it is no WebVTT file; if it is SubRip, name it .srt`);
  }
  const cues: Cue[] = [];
  for (const raw of subtitleBlocks(lines.slice(1))) {
    const { speaker, text } = plainCueText(raw.text);
    if (text === '') continue;
    const prefixed = speaker ? undefined : splitSpeaker(text);
    cues.push({ start: raw.start, end: raw.end, ...(prefixed ?? (speaker ? { speaker, text } : { text })) });
  }
  return cues;
}

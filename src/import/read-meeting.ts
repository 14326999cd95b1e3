import { type SourceFile } from './cues.js';
import { readTranscript } from './formats/index.js';
import { ReadReport } from './read-report.js';
import { attendeesOf, durationOf, transcriptLines } from './transcript-lines.js';

/**
 * What an import takes from a transcript file (docs/design.md §9): the transcript note's body,
 * its speakers, its length and what could not be read. All of it is work on the file's text
 * alone, no vault, so that it can run in a thread of its own (off-thread.ts): an 18 MB file
 * takes seconds, which the daemon's event loop must not wait for.
 */
export interface ReadMeeting {
  /**
   * The transcript lines, each ending with `\n` (the transcript note's body), as UTF-8: encoded
   * in the parse's thread and handed over without a copy, with room ahead of it in its buffer
   * for the note's frontmatter (noteBytes), so the daemon's thread never encodes nor copies
   * 20 MB of text: a copy of that size took 180 ms on a busy machine, most of it page faults.
   */
  body: Uint8Array;
  /** The named speakers, in order of first appearance. */
  attendees: string[];
  /** Seconds from the start to the last cue's end. */
  duration: number;
  /** What the reader could not take as it was (ReadReport.sentences). */
  unread: string[];
}

export async function readMeeting(file: SourceFile): Promise<ReadMeeting> {
  const report = new ReadReport();
  const cues = await readTranscript(file, report);
  const text = transcriptLines(cues).join('\n') + '\n';
  // A buffer of its own, never a slice of node's shared pool: it is transferred to the daemon's thread.
  const buffer = Buffer.allocUnsafeSlow(HEAD_ROOM + Buffer.byteLength(text));
  const length = buffer.write(text, HEAD_ROOM);
  return { body: buffer.subarray(HEAD_ROOM, HEAD_ROOM + length), attendees: attendeesOf(cues), duration: durationOf(cues), unread: report.sentences() };
}

/** Room for the transcript note's frontmatter (its link to the meeting note: a path of at most a few hundred bytes). */
const HEAD_ROOM = 4096;

/** The transcript note: `head` (its frontmatter) and the body, in the body's own buffer when it fits ahead of it. */
export function noteBytes(head: string, read: ReadMeeting): Uint8Array {
  const { body } = read;
  const headBytes = Buffer.from(head);
  if (headBytes.length > body.byteOffset) return Buffer.concat([headBytes, body]);
  const note = new Uint8Array(body.buffer, body.byteOffset - headBytes.length, headBytes.length + body.length);
  note.set(headBytes, 0);
  return note;
}

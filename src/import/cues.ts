import { MeetingAssistantError } from '../errors.js';
import type { ReadReport } from './read-report.js';

/**
 * What every reader of docs/design.md §9 turns a file into: the cues of the meeting in order,
 * times in seconds from the start. A reader keeps every word; it drops only markup. A time
 * the source gives but that cannot be a time is NaN here until readTranscript settles it.
 */
export interface Cue {
  /** Seconds from the start of the recording. */
  start: number;
  /** Seconds; equal to `start` when the source gives no end. */
  end: number;
  /** The speaker's name or label as the source gives it; undefined when it names none. */
  speaker?: string;
  text: string;
  /**
   * A new transcript line starts here although the source names no speaker: a turn
   * whisper.cpp's tinydiarize marks, a paragraph of a plain-text file.
   */
  turn?: boolean;
  /** Where the cue is in the file (a line, or a JSON segment: ReadReport.unit), for the import's report. */
  line?: number;
}

/** A file the import cannot read: the message says what is wrong and what to do (it goes into the error note). */
export class ImportError extends MeetingAssistantError {
  constructor(
    message: string,
    /** What the person can do about it (the error note says it); a default fits a file that cannot be read. */
    readonly hint = 'fix or replace the file (export the transcript again from the tool it came from), or remove it from the inbox',
    /** The transcriber's last stderr lines, when it failed. */
    readonly stderr?: string,
  ) {
    super(message, true);
  }
}

/** The file as the readers get it: its bytes and its name (the extension chooses the reader). */
export interface SourceFile {
  name: string;
  bytes: Uint8Array;
}

/** A reader tells `report` what it could not read; it never drops a cue without saying so. */
export type Reader = (file: SourceFile, report: ReadReport) => Cue[] | Promise<Cue[]>;

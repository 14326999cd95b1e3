import { ImportError, type SourceFile } from '../cues.js';

/**
 * The text of a transcript file: UTF-8 (a BOM dropped; UTF-16 with its BOM, as Windows tools
 * write it, decoded too). A file with NUL bytes that is not UTF-16 is binary: no transcript.
 */
export function decodeText(file: SourceFile): string {
  const b = file.bytes;
  if (b.length >= 2 && b[0] === 0xff && b[1] === 0xfe) return new TextDecoder('utf-16le').decode(b.subarray(2));
  if (b.length >= 2 && b[0] === 0xfe && b[1] === 0xff) return new TextDecoder('utf-16be').decode(b.subarray(2));
  const probe = b.subarray(0, 8192);
  if (probe.includes(0)) throw new ImportError(`${file.name} is a binary file, not a text transcript; export the transcript as text (.vtt, .srt, .txt or .json)`);
  const text = new TextDecoder('utf-8').decode(b);
  return text.charCodeAt(0) === 0xfeff ? text.slice(1) : text;
}

/** Lines without their endings, whichever the file uses (LF, CRLF, CR). */
export function splitLines(text: string): string[] {
  return text.split(/\r\n|\r|\n/);
}

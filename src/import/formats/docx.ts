import { type Cue, ImportError, type SourceFile } from '../cues.js';
import { textCues } from './text.js';

/**
 * A Teams transcript download (`.docx`; docs/design.md §9): paragraphs alternating
 * `Name  0:01:23` and what was said. The document is read with mammoth (a well-kept reader
 * of Word's format: a .docx is a zip of XML parts, and its text runs, tabs and line breaks
 * are not worth re-implementing); its paragraphs then go through the plain-text reader.
 * Loaded on the first .docx: 3 MB of heap a daemon that never sees one does not keep.
 */
export async function readDocx(file: SourceFile): Promise<Cue[]> {
  const { default: mammoth } = await import('mammoth');
  let text: string;
  try {
    text = (await mammoth.extractRawText({ buffer: Buffer.from(file.bytes) })).value;
  } catch (err) {
    throw new ImportError(`${file.name} is not a Word document that can be read (${(err as Error).message}); save it again as .docx, or export the transcript as .vtt`);
  }
  return textCues(text.split(/\r?\n/));
}

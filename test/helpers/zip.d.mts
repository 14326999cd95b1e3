/** An entry of buildZip: `declaredSize` is the uncompressed size the headers declare (default the real one). */
export interface ZipEntry {
  name: string;
  data: Buffer;
  declaredSize?: number;
}

/** A zip of `entries`, each deflated. */
export function buildZip(entries: ZipEntry[]): Buffer;

/** A minimal Word document whose paragraphs are `paragraphs`, padded with `padding` bytes of spaces inside its XML. */
export function docxOf(paragraphs: string[], padding?: number): Buffer;

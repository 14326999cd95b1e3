/** Transcript lines `[hh:mm:ss] Speaker: text`, about `words` words in all (deterministic for a seed). */
export function transcriptLines(words?: number, seed?: number): string[];

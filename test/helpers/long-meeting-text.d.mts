/** Transcript lines `[hh:mm:ss] Speaker: text`, about `words` words in all (deterministic for a seed). */
export function transcriptLines(words?: number, seed?: number): string[];

/** Deterministic pseudo-random numbers in [0, 1) (mulberry32). */
export function random(seed: number): () => number;

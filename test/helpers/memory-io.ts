import type { Io } from '../../src/commands/common.js';

/** A command's output kept in memory: each stream apart, and both in the order written. */
export interface MemoryIo extends Io {
  outLines: string[];
  errLines: string[];
  /** stdout and stderr interleaved as written. */
  lines: string[];
  /** `lines` joined, for messages and substring assertions. */
  text(): string;
}

export function memoryIo(): MemoryIo {
  const outLines: string[] = [];
  const errLines: string[] = [];
  const lines: string[] = [];
  return {
    outLines,
    errLines,
    lines,
    out: (line) => void (outLines.push(line), lines.push(line)),
    err: (line) => void (errLines.push(line), lines.push(line)),
    text: () => lines.join('\n'),
  };
}

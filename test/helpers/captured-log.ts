import { Writable } from 'node:stream';
import { createLogger, type Logger } from '../../src/log.js';

/** A debug-level logger whose JSON lines are collected, for tests that check what a run logged. */
export function capturedLogger(): { log: Logger; lines: Record<string, unknown>[] } {
  const lines: Record<string, unknown>[] = [];
  const destination = new Writable({
    write(chunk, _enc, done) {
      for (const line of String(chunk).split('\n')) if (line.trim()) lines.push(JSON.parse(line));
      done();
    },
  });
  return { log: createLogger({ destination, level: 'debug' }), lines };
}

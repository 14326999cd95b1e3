import { createLogger, type Logger } from '../../src/log.js';

export interface LogLine {
  level: string;
  msg: string;
  [key: string]: unknown;
}

/** A debug-level logger whose JSON lines are kept, parsed, for assertions. */
export function capturedLogger(): { log: Logger; lines: LogLine[] } {
  const lines: LogLine[] = [];
  const log = createLogger({
    level: 'debug',
    destination: {
      write: (chunk: string) => {
        for (const line of String(chunk).split('\n')) if (line.trim()) lines.push(JSON.parse(line) as LogLine);
      },
    },
  });
  return { log, lines };
}

import { createLogger, type Logger, type LoggerOptions } from '../../src/log.js';

export interface LogLine {
  level: string;
  msg: string;
  [key: string]: unknown;
}

/** A logger (debug level unless told) whose JSON lines are kept, parsed, for assertions. */
export function capturedLogger(level: LoggerOptions['level'] = 'debug'): { log: Logger; lines: LogLine[] } {
  const lines: LogLine[] = [];
  const log = createLogger({
    level,
    destination: {
      write: (chunk: string) => {
        for (const line of String(chunk).split('\n')) if (line.trim()) lines.push(JSON.parse(line) as LogLine);
      },
    },
  });
  return { log, lines };
}

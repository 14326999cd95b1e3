import { createRequire } from 'node:module';
import pino, { type DestinationStream } from 'pino';
import type PinoPretty from 'pino-pretty';
import { terminalSafe } from './vault/format/terminal-text.js';

/** Loaded for a terminal only: a service's JSON lines never need it (1 MB of heap kept otherwise). */
const requireCjs = createRequire(import.meta.url);

/**
 * Readable log lines for a person at a terminal (docs/design.md §5, `Logging.Pretty`): the
 * time, the level, the message and the meeting it is about, one line each. Services
 * (journald, launchd, files) get the JSON lines.
 */

/** `Pretty: true` forces readable lines, `false` JSON; unset (null) means readable when stdout is a terminal. */
export function wantsPrettyLogs(pretty: boolean | null | undefined, isTTY: boolean): boolean {
  return pretty ?? isTTY;
}

export interface PrettyOptions {
  colorize: boolean;
  /** Show every field of a line below it (the `logs` command, debug level); else one line each. */
  details: boolean;
  /** pino-pretty's `translateTime`; default the time of day. */
  time?: string;
}

/** A function turning one JSON log line into its readable text (with its line break). */
export function prettyFormatter(options: PrettyOptions): (line: string) => string {
  const pinoPretty = requireCjs('pino-pretty') as typeof PinoPretty;
  return pinoPretty.prettyFactory({
    colorize: options.colorize,
    translateTime: options.time ?? 'SYS:HH:MM:ss',
    ignore: 'pid,hostname',
    hideObject: !options.details,
    messageFormat: (log, key) => messageLine(log, key),
  });
}

/**
 * The message, the meeting when the message does not name it, and an error's own words. A
 * note's name or an error can hold what a synced file or a server wrote: its control characters
 * (an escape sequence that clears or retitles the terminal) and bidi overrides are not printed.
 */
function messageLine(log: Record<string, unknown>, key: string): string {
  const msg = String(log[key] ?? '');
  const meeting = typeof log.meeting === 'string' && !msg.includes(log.meeting) ? ` [${log.meeting}]` : '';
  const err = errorMessage(log.err ?? log.error);
  return withoutControls(`${msg}${meeting}${err && !msg.includes(err) ? `: ${err}` : ''}`);
}

/** Escape sequences whole and control characters out (vault/format/terminal-text.ts), on one line. */
function withoutControls(text: string): string {
  return terminalSafe(text).replace(/[\n\t]+/g, ' ');
}

function errorMessage(err: unknown): string | undefined {
  if (typeof err === 'string') return err;
  if (err && typeof err === 'object' && typeof (err as { message?: unknown }).message === 'string') {
    return (err as { message: string }).message.split('\n')[0];
  }
  return undefined;
}

/**
 * Readable lines, by default written synchronously to stdout: a terminal is fast, and no
 * line is lost at exit.
 */
export function prettyStream(
  options: PrettyOptions,
  out: DestinationStream & { flushSync?(): void } = pino.destination({ fd: 1, sync: true }),
): DestinationStream & { flush(cb: (err?: Error) => void): void } {
  const format = prettyFormatter(options);
  return {
    write: (line: string) => out.write(format(line)),
    flush: (cb) => {
      try {
        out.flushSync?.();
      } catch {
        // stdout closed: nothing can be saved.
      }
      cb();
    },
  };
}

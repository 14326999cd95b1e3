import { mkdirSync } from 'node:fs';
import path from 'node:path';
import pino, { type DestinationStream, type Logger } from 'pino';
import type { AppConfig, Settings } from './config.js';
import { prettyStream, wantsPrettyLogs } from './log-pretty.js';

export type { Logger };

/**
 * Paths redacted in every log line: keys and bearer tokens must never reach a journal.
 * Values that are not under these keys are masked by `maskSecrets` where code logs free text,
 * and every serialized line goes through `maskLine` as a last line of defence.
 */
const REDACT_PATHS = [
  'apiKey',
  'ApiKey',
  '*.apiKey',
  '*.ApiKey',
  '*.*.ApiKey',
  'token',
  '*.token',
  'Token',
  '*.Token',
  'authorization',
  'Authorization',
  'headers.authorization',
  'headers.Authorization',
  '*.headers.authorization',
  '*.headers.Authorization',
  '*.*.headers.authorization',
  '*.*.headers.Authorization',
  'req.headers.authorization',
];

const CENSOR = '[redacted]';

/** The secrets a logger masks; shared by its children (pino children inherit by prototype). */
const SECRETS = Symbol('meeting-assistant.log.secrets');
type WithSecrets = Logger & { [SECRETS]?: string[] };

export interface LoggerOptions {
  level?: Settings['Logging']['Level'];
  /** Where JSON lines go; stdout when absent. Tests pass a memory stream. */
  destination?: DestinationStream;
  pretty?: boolean;
  /** Secrets to mask wherever they appear in a message string. */
  secrets?: (string | undefined)[];
}

/** Secrets shorter than this are not masked: replacing every "ab" would wreck the log. */
const MIN_SECRET_LENGTH = 4;

export function createLogger(options: LoggerOptions = {}): Logger {
  return buildLogger(options, (base) => {
    if (options.destination) return pino(base, options.destination);
    if (options.pretty) return pino(base, prettyStream({ colorize: !!process.stdout.isTTY, details: isVerbose(base.level) }));
    return pino(base, stdoutDestination());
  });
}

/** Below info, a person wants the fields too. */
function isVerbose(level: string | undefined): boolean {
  return level === 'debug' || level === 'trace';
}

export interface ConfigLoggerOptions {
  /** Overrides `Logging.File`: lines go here (tests pass a memory stream, not a terminal unless `isTTY`). */
  destination?: DestinationStream;
  /** More secrets to mask besides `config.apiKey` and `Http.Token`. */
  secrets?: (string | undefined)[];
  /** Whether stdout is a terminal (`Logging.Pretty` unset); default: asks stdout. */
  isTTY?: boolean;
  /** With `Logging.File` at a terminal: where the terminal's copy goes (tests); default stdout. */
  terminal?: DestinationStream;
}

/**
 * The daemon's and the commands' logger as configured (docs/design.md §5, `Logging`):
 * `Level`; `File` empty means JSON lines on stdout (journald and launchd capture them),
 * readable lines instead when stdout is a terminal or `Pretty` is true (`false`: always
 * JSON); a `File` means size-rotated JSON files through pino-roll,
 * `RotateSize` each, with `RotateFiles` rotated files kept besides the current one.
 * The API key and the HTTP token are masked everywhere; a token generated later is added
 * with `addLogSecret`.
 */
export function createLoggerFromConfig(config: AppConfig, options: ConfigLoggerOptions = {}): Logger {
  const logging = config.settings.Logging;
  const shared: LoggerOptions = {
    level: logging.Level,
    secrets: [config.apiKey, config.settings.Http.Token, ...(options.secrets ?? [])],
  };
  return buildLogger(shared, (base) => {
    const isTTY = options.isTTY ?? (options.destination ? false : !!process.stdout.isTTY);
    if (!options.destination && config.logFile) {
      const file = rollingFileTransport(config.logFile, logging);
      // A person at a terminal still sees the log (as without File); a service's stdout does not get it twice.
      if (!isTTY) return pino(base, file);
      const pretty = wantsPrettyLogs(logging.Pretty, isTTY);
      const terminal = options.terminal ?? (pretty ? undefined : stdoutDestination());
      const shown = pretty ? prettyStream({ colorize: !options.terminal, details: isVerbose(logging.Level) }, ...(terminal ? [terminal] : [])) : terminal!;
      return pino(base, teeStream(file, shown));
    }
    if (wantsPrettyLogs(logging.Pretty, isTTY)) {
      const pretty = { colorize: isTTY, details: isVerbose(logging.Level) };
      return pino(base, options.destination ? prettyStream(pretty, options.destination) : prettyStream(pretty));
    }
    return pino(base, options.destination ?? stdoutDestination());
  });
}

/** Mask `secret` in everything this logger (and its children, past and future) writes from now on. */
export function addLogSecret(log: Logger, secret: string | undefined): void {
  const secrets = (log as WithSecrets)[SECRETS];
  if (!secrets || !secret || secret.length < MIN_SECRET_LENGTH || secrets.includes(secret)) return;
  secrets.push(secret);
}

/**
 * Wait until every line logged so far has been handed to the destination (stdout's
 * asynchronous buffer, the rotating-file worker). Call before exiting.
 */
export function flushLogger(log: Logger): Promise<void> {
  return new Promise((resolve) => {
    try {
      log.flush(() => resolve());
    } catch {
      // A destination that cannot flush (already closed) has nothing left to write.
      resolve();
    }
  });
}

type PinoOptions = pino.LoggerOptions<never, boolean>;

function buildLogger(options: LoggerOptions, create: (base: PinoOptions) => Logger): Logger {
  const secrets = (options.secrets ?? []).filter((s): s is string => !!s && s.length >= MIN_SECRET_LENGTH);
  const base: PinoOptions = {
    level: options.level ?? 'info',
    redact: { paths: REDACT_PATHS, censor: CENSOR },
    base: { pid: process.pid },
    timestamp: pino.stdTimeFunctions.isoTime,
    formatters: { level: (label: string) => ({ level: label }) },
    serializers: { err: serializeError, error: serializeError },
    hooks: {
      logMethod(this: Logger, args: unknown[], method: (...a: unknown[]) => void) {
        // A log line never takes the caller down (a run died here on a DOMException once:
        // issue #24): whatever cannot be serialized is logged as what can be said of it.
        args = withOnePid(args);
        try {
          method.apply(this, secrets.length > 0 ? args.map((a) => maskSecrets(a, secrets)) : args);
        } catch (err) {
          try {
            method.apply(this, [{ logError: describeUnloggable(err) }, maskLine(messageOf(args), secrets)]);
          } catch {
            // Even the fallback failed (a destination gone): nothing can be said anywhere.
          }
        }
      },
      // Child bindings, serializer output and anything else that escaped the paths above.
      streamWrite: (line: string) => maskLine(line, secrets),
    },
  };
  const logger = create(base) as WithSecrets;
  logger[SECRETS] = secrets;
  return logger;
}

/**
 * Every line carries this process's `pid` (the base): a line's own `pid` field (another
 * process's, the run process's) would be a second `pid` key in the JSON, which log shippers
 * and jq read differently. It is written as `childPid`, the name the callers use.
 */
function withOnePid(args: unknown[]): unknown[] {
  const first = args[0];
  if (first === null || typeof first !== 'object' || first instanceof Error || !Object.hasOwn(first, 'pid')) return args;
  const { pid, ...rest } = first as Record<string, unknown>;
  return [{ ...rest, childPid: pid }, ...args.slice(1)];
}

type Flushable = DestinationStream & { flush?(cb: (err?: Error) => void): void };
type Closable = Flushable & NodeJS.EventEmitter & { end(): void; closed?: boolean };

/**
 * Every line to the file and to the terminal; a flush waits for both (the file's worker
 * thread included). Ending and its `close` event are the file's, as when it is alone.
 */
function teeStream(file: Closable, terminal: Flushable): Flushable {
  const flushOne = (stream: Flushable) => new Promise<void>((resolve) => (stream.flush ? stream.flush(() => resolve()) : resolve()));
  const tee = {
    write: (line: string) => {
      file.write(line);
      terminal.write(line);
    },
    flush: (cb: (err?: Error) => void) => void Promise.all([flushOne(file), flushOne(terminal)]).then(() => cb()),
    end: () => file.end(),
    once: (event: string, listener: () => void) => (file.once(event, listener), tee),
    get closed() {
      return file.closed;
    },
  };
  return tee;
}

/** The stdout destinations, flushed synchronously at exit so the last lines are not lost. */
const stdoutStreams = new Set<ReturnType<typeof pino.destination>>();

function stdoutDestination(): DestinationStream {
  const dest = pino.destination({ fd: 1, sync: false });
  if (stdoutStreams.size === 0) {
    process.once('exit', () => {
      for (const s of stdoutStreams) {
        try {
          s.flushSync();
        } catch {
          // stdout closed (EPIPE): nothing can be saved.
        }
      }
    });
  }
  stdoutStreams.add(dest);
  return dest;
}

/**
 * pino-roll in a worker thread. `removeOtherLogFiles` makes the count hold across restarts,
 * not only for files this process created.
 */
function rollingFileTransport(file: string, logging: Settings['Logging']): Closable {
  mkdirSync(path.dirname(file), { recursive: true });
  return pino.transport({
    target: 'pino-roll',
    options: {
      file,
      size: logging.RotateSize,
      limit: { count: logging.RotateFiles, removeOtherLogFiles: true },
      mkdir: true,
    },
  }) as unknown as Closable;
}

/** Replace every occurrence of a secret in strings (deeply, for plain objects and errors). */
export function maskSecrets(value: unknown, secrets: string[], depth = 0): unknown {
  if (typeof value === 'string') {
    let out = value;
    for (const s of secrets) out = out.split(s).join(CENSOR);
    return out;
  }
  if (depth > 4 || value === null || typeof value !== 'object') return value;
  if (value instanceof Error) return maskedError(value, secrets, depth);
  if (Array.isArray(value)) return value.map((v) => maskSecrets(v, secrets, depth + 1));
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(value)) out[k] = maskSecrets(v, secrets, depth + 1);
  return out;
}

/**
 * A copy of an error with its secrets masked. It is a plain `Error` holding name, message,
 * stack and the own fields as data: a copy made on the original's prototype breaks
 * classes whose getters check their receiver (a `DOMException` from an aborted fetch
 * throws `Value of "this" must be of DOMException` when its message is read).
 */
function maskedError(value: Error, secrets: string[], depth: number): Error {
  const copy = new Error(String(maskSecrets(safeRead(value, 'message') ?? '', secrets, depth + 1)));
  const fields = copy as unknown as Record<string, unknown>;
  for (const key of ['name', 'stack', ...Object.getOwnPropertyNames(value)]) {
    if (key === 'message') continue;
    const field = safeRead(value, key);
    if (field !== undefined) fields[key] = maskSecrets(field, secrets, depth + 1);
  }
  // pino names the type after the constructor: keep the original's.
  const type = safeRead(value, 'constructor') as { name?: unknown } | undefined;
  if (typeof type?.name === 'string' && type.name !== 'Error') {
    const named = Object.defineProperty(function () {}, 'name', { value: type.name });
    Object.defineProperty(copy, 'constructor', { value: named });
  }
  return copy;
}

/** A property that may be a throwing getter (or a revoked proxy), read without throwing. */
function safeRead(value: object, key: string): unknown {
  try {
    return (value as Record<string, unknown>)[key];
  } catch {
    return undefined;
  }
}

/** What can be said of a value that would not serialize. */
function describeUnloggable(err: unknown): string {
  try {
    return `this line's fields could not be serialized: ${err instanceof Error ? err.message : String(err)}`;
  } catch {
    return "this line's fields could not be serialized";
  }
}

/** The message string of a log call's arguments (the first string), for the fallback line. */
function messageOf(args: unknown[]): string {
  const text = args.find((a) => typeof a === 'string');
  return typeof text === 'string' ? text : 'log line';
}

const SECRET_HEADER_VALUE =
  /("(?:authorization|proxy-authorization|x-api-key|api-key|apikey|api_key)"\s*:\s*)"(?:[^"\\]|\\.)*"/gi;
const BEARER = /\b(Bearer|Basic)\s+[A-Za-z0-9._~+/-]+=*/g;

/**
 * Mask one serialized JSON line: the known secrets (also as they look JSON-escaped),
 * credential headers at any depth, and `Bearer …` values wherever they appear.
 */
export function maskLine(line: string, secrets: readonly string[]): string {
  let out = line;
  for (const s of secrets) {
    out = out.split(s).join(CENSOR);
    const escaped = JSON.stringify(s).slice(1, -1);
    if (escaped !== s) out = out.split(escaped).join(CENSOR);
  }
  return out.replace(SECRET_HEADER_VALUE, `$1"${CENSOR}"`).replace(BEARER, `$1 ${CENSOR}`);
}

/** `Type: message` of an error and of each error in its `cause` chain, outermost first. */
export function causeChain(err: unknown, limit = 10): string[] {
  const chain: string[] = [];
  const seen = new Set<unknown>();
  let current: unknown = err;
  while (current !== undefined && current !== null && chain.length < limit && !seen.has(current)) {
    seen.add(current);
    if (current instanceof Error) {
      const code = (current as { code?: unknown }).code;
      chain.push(`${current.name}: ${current.message}${typeof code === 'string' ? ` (${code})` : ''}`);
      current = current.cause;
    } else {
      chain.push(typeof current === 'string' ? current : safeJson(current));
      break;
    }
  }
  return chain;
}

/**
 * pino's error serializer (message and stack already include the causes) plus `causes`,
 * the chain as a list a person can read at a glance.
 */
function serializeError(err: unknown): unknown {
  try {
    const serialized = pino.stdSerializers.err(err as Error) as unknown;
    if (!(err instanceof Error) || err.cause === undefined || serialized === null || typeof serialized !== 'object') {
      return serialized;
    }
    return Object.assign(serialized, { causes: causeChain(err).slice(1) });
  } catch {
    // An error object whose fields throw when read: say what can be said without them.
    return { type: typeof err, message: safeString(err) };
  }
}

/** A logger that drops everything: the default where a caller passes none. */
export const silentLogger: Logger = pino({ level: 'silent' });

function safeJson(value: unknown): string {
  try {
    return JSON.stringify(value) ?? String(value);
  } catch {
    return String(value);
  }
}

function safeString(value: unknown): string {
  try {
    return String(value);
  } catch {
    return Object.prototype.toString.call(value);
  }
}

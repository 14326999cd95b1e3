import pino, { type DestinationStream, type Logger } from 'pino';
import type { Settings } from './config.js';

export type { Logger };

/**
 * Paths redacted in every log line: keys and bearer tokens must never reach a journal.
 * Values that are not under these keys are masked by `maskSecrets` where code logs free text.
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
  'req.headers.authorization',
];

export interface LoggerOptions {
  level?: Settings['Logging']['Level'];
  /** Where JSON lines go; stdout when absent. Tests pass a memory stream. */
  destination?: DestinationStream;
  pretty?: boolean;
  /** Secrets to mask wherever they appear in a message string. */
  secrets?: (string | undefined)[];
}

export function createLogger(options: LoggerOptions = {}): Logger {
  const secrets = (options.secrets ?? []).filter((s): s is string => !!s && s.length >= 4);
  const base = {
    level: options.level ?? 'info',
    redact: { paths: REDACT_PATHS, censor: '[redacted]' },
    base: { pid: process.pid },
    timestamp: pino.stdTimeFunctions.isoTime,
    formatters: { level: (label: string) => ({ level: label }) },
    hooks:
      secrets.length > 0
        ? {
            logMethod(this: Logger, args: unknown[], method: (...a: unknown[]) => void) {
              method.apply(this, args.map((a) => maskSecrets(a, secrets)));
            },
          }
        : undefined,
  };
  if (options.destination) return pino(base, options.destination);
  if (options.pretty) {
    return pino({ ...base, transport: { target: 'pino-pretty', options: { colorize: true, translateTime: 'SYS:standard' } } });
  }
  return pino(base, pino.destination({ fd: 1, sync: false }));
}

/** Replace every occurrence of a secret in strings (deeply, for plain objects and errors). */
export function maskSecrets(value: unknown, secrets: string[], depth = 0): unknown {
  if (typeof value === 'string') {
    let out = value;
    for (const s of secrets) out = out.split(s).join('[redacted]');
    return out;
  }
  if (depth > 4 || value === null || typeof value !== 'object') return value;
  if (value instanceof Error) {
    const copy = Object.create(Object.getPrototypeOf(value)) as Error;
    for (const key of Object.getOwnPropertyNames(value)) {
      (copy as unknown as Record<string, unknown>)[key] = maskSecrets(
        (value as unknown as Record<string, unknown>)[key],
        secrets,
        depth + 1,
      );
    }
    return copy;
  }
  if (Array.isArray(value)) return value.map((v) => maskSecrets(v, secrets, depth + 1));
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(value)) out[k] = maskSecrets(v, secrets, depth + 1);
  return out;
}

/** A logger that drops everything: the default where a caller passes none. */
export const silentLogger: Logger = pino({ level: 'silent' });

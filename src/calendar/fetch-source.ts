import { readCappedText } from '../http-io.js';
import { MeetingAssistantError } from '../errors.js';

/**
 * One fetch of a calendar URL (docs/design.md §12): conditional (If-None-Match,
 * If-Modified-Since), at most `maxBytes`, within `timeoutMs`. Its errors say what went wrong
 * and never the address (a secret): node's own messages may hold the host or the URL, so none
 * of them is passed on, only codes.
 */

export type FetchLike = (url: string, init: { headers: Record<string, string>; signal: AbortSignal; redirect: 'follow' }) => Promise<Response>;

export interface Validators {
  etag?: string;
  lastModified?: string;
}

export type FetchOutcome = { changed: false } | { changed: true; text: string; validators: Validators };

export const FETCH_TIMEOUT_MS = 30_000;

/** A fetch that failed, said without the address. */
export class CalendarFetchError extends MeetingAssistantError {
  constructor(message: string, options?: ErrorOptions) {
    super(message, true, options);
  }
}

function reasonOf(err: unknown, timeoutMs: number): string {
  if (err instanceof CalendarFetchError) return err.message;
  const e = err as { name?: string; cause?: { code?: unknown; name?: string } } | undefined;
  if (e?.name === 'TimeoutError' || e?.name === 'AbortError' || e?.cause?.name === 'TimeoutError') return `no answer within ${timeoutMs / 1000} s`;
  const code = typeof e?.cause?.code === 'string' ? e.cause.code : undefined;
  if (code === 'ENOTFOUND' || code === 'EAI_AGAIN') return 'the host was not found (offline?)';
  if (code === 'ECONNREFUSED') return 'the connection was refused';
  if (code) return `the request failed (${code})`;
  return 'the request failed';
}

export async function fetchCalendar(
  fetchImpl: FetchLike,
  url: string,
  validators: Validators,
  limits: { maxBytes: number; timeoutMs?: number; signal?: AbortSignal },
): Promise<FetchOutcome> {
  const timeoutMs = limits.timeoutMs ?? FETCH_TIMEOUT_MS;
  const headers: Record<string, string> = { accept: 'text/calendar, */*;q=0.5' };
  if (validators.etag) headers['if-none-match'] = validators.etag;
  if (validators.lastModified) headers['if-modified-since'] = validators.lastModified;
  // One deadline for the whole exchange, the body included.
  const deadline = AbortSignal.timeout(timeoutMs);
  // The caller's signal ends it too: a daemon that stops does not wait for the network.
  const signal = limits.signal ? AbortSignal.any([deadline, limits.signal]) : deadline;
  try {
    const response = await fetchImpl(url, { headers, signal, redirect: 'follow' });
    if (response.status === 304) {
      await response.body?.cancel().catch(() => undefined);
      return { changed: false };
    }
    if (!response.ok) {
      await response.body?.cancel().catch(() => undefined);
      throw new CalendarFetchError(`the server answered HTTP ${response.status}`);
    }
    const text = await readCappedText(response, limits.maxBytes, () => new CalendarFetchError(`larger than ${limits.maxBytes} bytes (Agent.MaxFileBytes)`));
    const next: Validators = {};
    const etag = response.headers.get('etag');
    const lastModified = response.headers.get('last-modified');
    if (etag) next.etag = etag;
    if (lastModified) next.lastModified = lastModified;
    return { changed: true, text, validators: next };
  } catch (err) {
    throw new CalendarFetchError(reasonOf(err, timeoutMs));
  }
}

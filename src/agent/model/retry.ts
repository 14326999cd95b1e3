import type { Settings } from '../../config.js';
import type { Logger } from '../../log.js';
import { type ModelClient, ModelError } from '../types.js';

/**
 * docs/design.md §3 step 4: one try, then up to `Reconnect.Attempts` more for transient
 * failures (connection errors, timeouts, 408, 409, 429, 5xx), waiting `Reconnect.DelaySeconds`
 * or the server's Retry-After when that is longer. Everything else is thrown at once; a
 * context-too-long 400 is the loop's business (it compacts and tries once more).
 */

export type Sleep = (ms: number, signal?: AbortSignal) => Promise<void>;

/** What the retry policy needs: is the endpoint known down, and a wait until it answers. */
export interface EndpointGate {
  /** Since when the endpoint does not answer; undefined while it is not known to be down. */
  readonly downSince: Date | undefined;
  /**
   * Resolves once `GET /models` answers: `true` when it did not answer at first (the run
   * waited, so the failed try is not counted), `false` when it answered at once (the failure
   * was something else, counted as usual). Rejects with an aborted ModelError when `signal` fires.
   */
  waitUntilUp(signal?: AbortSignal): Promise<boolean>;
  /**
   * Told as soon as the endpoint is known down (the first probe of a wait got no answer), for
   * gates that copy `downSince` elsewhere (the run process's); returns the function that stops it.
   */
  onDown?(listener: (since: Date) => void): () => void;
}

/** A failure that may be an endpoint that does not answer at all: the waiter's probe decides. */
export function mayBeUnreachable(err: ModelError): boolean {
  return err.kind === 'network' || err.kind === 'timeout';
}

export interface RetryPolicy {
  /** Retries after the first try (`Reconnect.Attempts`). */
  attempts: number;
  /** Wait between tries (`Reconnect.DelaySeconds` in ms). */
  delayMs: number;
  log: Logger;
  signal?: AbortSignal;
  /**
   * Fires when the daemon stops: a wait between tries then ends the step at once (aborted, so
   * the run is resumed at next start), while a request in flight is left to finish within the
   * grace period. Only `signal` cuts a request.
   */
  stopWaiting?: AbortSignal;
  /** Injected in tests; the default waits on a timer and stops when `signal` aborts. */
  sleep?: Sleep;
  /**
   * The endpoint's waiter (agent/model/endpoint-wait.ts), in the daemon: a try that met an endpoint
   * that does not answer at all waits for it instead of counting (docs/design.md §2).
   */
  endpoint?: EndpointGate;
  /** Names the step in log lines, e.g. `summarize Meetings/2024-05-02 Standup.md turn 3`. */
  label?: string;
}

/** A server asking for more than this is not waited for longer: the run would look hung. */
export const MAX_RETRY_AFTER_MS = 10 * 60 * 1000;

export async function withRetry<T>(step: (attempt: number) => Promise<T>, policy: RetryPolicy): Promise<T> {
  const total = Math.max(0, Math.floor(policy.attempts)) + 1;
  const sleep = policy.sleep ?? defaultSleep;
  const { log, signal } = policy;
  const label = policy.label ?? 'model request';
  const waitSignal = anySignal(signal, policy.stopWaiting);
  for (let attempt = 1; ; attempt++) {
    if (signal?.aborted) throw aborted(attempt - 1);
    // A known-down endpoint is not asked: the run joins the wait first.
    if (policy.endpoint?.downSince) await waitForEndpoint(policy.endpoint, waitSignal, attempt - 1);
    log.debug({ label, attempt, of: total }, `${label}: attempt ${attempt} of ${total}`);
    let error: ModelError;
    try {
      const result = await step(attempt);
      if (attempt > 1) log.info({ label, attempt, of: total }, `${label}: attempt ${attempt} of ${total} succeeded`);
      return result;
    } catch (err) {
      if (!(err instanceof ModelError)) throw err;
      error = err;
    }
    if (policy.endpoint && mayBeUnreachable(error) && (await waitForEndpoint(policy.endpoint, waitSignal, attempt - 1))) {
      // Nothing answered, then the endpoint came up: this try does not count.
      log.info({ label, attempt }, `${label}: the model endpoint answers again; trying again`);
      attempt--;
      continue;
    }
    error.attempts = attempt;
    const what = error.status !== undefined ? `HTTP ${error.status}` : error.kind;
    if (!error.transient || attempt >= total) {
      log.warn(
        { label, attempt, of: total, status: error.status, kind: error.kind, err: error.message },
        `${label}: attempt ${attempt} of ${total} failed (${what}); ${error.transient ? 'no attempts left' : 'not retried'}`,
      );
      throw error;
    }
    const waitMs = Math.max(policy.delayMs, Math.min(error.retryAfterMs ?? 0, MAX_RETRY_AFTER_MS));
    log.warn(
      { label, attempt, of: total, status: error.status, kind: error.kind, waitMs, err: error.message },
      `${label}: attempt ${attempt} of ${total} failed (${what}); retrying in ${waitMs} ms`,
    );
    await waitOrAbort(sleep, waitMs, waitSignal, attempt);
  }
}

/** The gate's wait, as a stopped step when the daemon stops (the run resumes at next start). */
async function waitForEndpoint(gate: EndpointGate, signal: AbortSignal | undefined, attempts: number): Promise<boolean> {
  try {
    return await gate.waitUntilUp(signal);
  } catch (err) {
    if (err instanceof ModelError && err.kind === 'aborted') throw aborted(attempts);
    throw err;
  }
}

function anySignal(...signals: (AbortSignal | undefined)[]): AbortSignal | undefined {
  const given = signals.filter((s): s is AbortSignal => s !== undefined);
  return given.length > 1 ? AbortSignal.any(given) : given[0];
}

/** Any sleep, injected or not, gives way to the abort signal at once. */
async function waitOrAbort(sleep: Sleep, ms: number, signal: AbortSignal | undefined, attempts: number): Promise<void> {
  if (!signal) return sleep(ms);
  if (signal.aborted) throw aborted(attempts);
  let onAbort: (() => void) | undefined;
  const abortPromise = new Promise<never>((_, reject) => {
    onAbort = () => reject(aborted(attempts));
    signal.addEventListener('abort', onAbort, { once: true });
  });
  try {
    await Promise.race([sleep(ms, signal).catch((err: unknown) => {
      if (signal.aborted) throw aborted(attempts);
      throw err;
    }), abortPromise]);
  } finally {
    signal.removeEventListener('abort', onAbort!);
  }
}

function aborted(attempts: number): ModelError {
  return new ModelError('The model request was aborted.', { kind: 'aborted', attempts });
}

/** A timer that resolves after `ms`, or rejects at once when `signal` aborts. */
export const defaultSleep: Sleep = (ms, signal) =>
  new Promise<void>((resolve, reject) => {
    if (signal?.aborted) return reject(aborted(0));
    const onAbort = () => {
      clearTimeout(timer);
      reject(aborted(0));
    };
    const timer = setTimeout(() => {
      signal?.removeEventListener('abort', onAbort);
      resolve();
    }, ms);
    signal?.addEventListener('abort', onAbort, { once: true });
  });

export function retryPolicyFromSettings(
  settings: Pick<Settings, 'Reconnect'>,
  log: Logger,
  signal?: AbortSignal,
): RetryPolicy {
  return {
    attempts: settings.Reconnect.Attempts,
    delayMs: settings.Reconnect.DelaySeconds * 1000,
    log,
    ...(signal ? { signal } : {}),
  };
}

/**
 * A client whose every `complete` runs under the policy, with the request's own signal.
 * For callers that want the retries without writing the loop around `withRetry`.
 */
export function withRetries(client: ModelClient, policy: Omit<RetryPolicy, 'signal'>): ModelClient {
  return {
    api: client.api,
    complete: (request) =>
      withRetry(() => client.complete(request), {
        ...policy,
        ...(request.signal ? { signal: request.signal } : {}),
      }),
  };
}

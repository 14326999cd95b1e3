import { type Clock, localDateTime, systemClock } from '../../clock.js';
import { isBlockedPort } from './blocked-port.js';
import type { AppConfig } from '../../config.js';
import type { Logger } from '../../log.js';
import { authHeaders, baseUrl } from './endpoint-check.js';
import { defaultGet, fetchGet } from './http-get.js';
import { defaultSleep, type EndpointGate, type Sleep } from './retry.js';
import { ModelError } from '../types.js';

/**
 * docs/design.md §2, "The endpoint down": while the endpoint cannot be reached at all, runs
 * wait instead of spending their retries. One waiter per process asks `GET <BaseUrl>/models`
 * with a growing pause (5 s, doubling, at most 5 minutes); every run that meets an unreachable
 * endpoint joins the same wait, and all go on once it answers. A model server that starts
 * after the daemon (login services start in any order) then costs a delay, never a failure.
 */

export interface EndpointWaitStatus {
  url: string;
  /** ISO time since when it does not answer; absent while it is up (or not known to be down). */
  downSince?: string;
  /** ISO time of the next probe while down. */
  nextProbeAt?: string;
  /** Runs waiting for it now. */
  waiting: number;
}

export interface EndpointWaitOptions {
  /** The endpoint's `/models` URL, for the log. */
  url: string;
  /** One question to the endpoint: true when it answered at all (any HTTP status). */
  probe(signal: AbortSignal): Promise<boolean>;
  log: Logger;
  clock?: Clock;
  /** Injected in tests, so the growing pause costs nothing. */
  sleep?: Sleep;
  /** The first pause; default 5 s. */
  firstPauseMs?: number;
  /** The longest pause; default 5 minutes. */
  maxPauseMs?: number;
  /** The endpoint answers again after having been down: failure reports it caused may be retried. */
  onBackUp?(downSince: Date): void;
}

export const FIRST_PAUSE_MS = 5_000;
export const MAX_PAUSE_MS = 5 * 60_000;

/** Socket errors that mean nothing answered: refused, no such host, no route, no connection in time. */
const UNREACHABLE_CODES = new Set([
  'ECONNREFUSED',
  'ENOTFOUND',
  'EAI_AGAIN',
  'EHOSTUNREACH',
  'ENETUNREACH',
  'EHOSTDOWN',
  'EADDRNOTAVAIL',
  'UND_ERR_CONNECT_TIMEOUT',
]);

function causeCodes(err: unknown): string[] {
  const codes: string[] = [];
  let current: unknown = err;
  for (let depth = 0; current instanceof Error && depth < 8; depth++) {
    const code = (current as { code?: unknown }).code;
    if (typeof code === 'string') codes.push(code);
    const errors = (current as { errors?: unknown }).errors;
    if (Array.isArray(errors)) for (const inner of errors) codes.push(...causeCodes(inner));
    current = current.cause;
  }
  return codes;
}

/** A failed connection to the endpoint: nothing answered (for the failure report of a run that could not wait). */
export function isUnreachable(err: unknown): boolean {
  return err instanceof ModelError && err.kind === 'network' && causeCodes(err).some((code) => UNREACHABLE_CODES.has(code));
}

/** `GET <BaseUrl>/models`: any answer, even a 401 or a 404, means the server is up. */
export function modelsProbe(config: AppConfig, fetchFn?: typeof fetch, timeoutMs = 5_000): (signal: AbortSignal) => Promise<boolean> {
  const url = `${baseUrl(config)}/models`;
  // The daemon's own process probes: node's HTTP client, not fetch (http-get.ts).
  const get = fetchFn ? fetchGet(fetchFn) : defaultGet();
  return async (signal) => {
    try {
      const response = await get(url, { headers: authHeaders(config), signal: AbortSignal.any([signal, AbortSignal.timeout(timeoutMs)]) });
      response.discard();
      return true;
    } catch (err) {
      // A port fetch refuses never answers: the run goes on and says so (blocked-port.ts).
      return isBlockedPort(err);
    }
  };
}

function aborted(): ModelError {
  return new ModelError('The wait for the model endpoint was stopped.', { kind: 'aborted', attempts: 0 });
}

export class EndpointWaiter implements EndpointGate {
  #downSince: Date | undefined;
  #nextProbeAt: Date | undefined;
  #waiting = 0;
  #loop: Promise<boolean> | undefined;
  readonly #closed = new AbortController();
  readonly #clock: Clock;
  readonly #downListeners = new Set<(since: Date) => void>();

  constructor(private readonly options: EndpointWaitOptions) {
    this.#clock = options.clock ?? systemClock;
  }

  get downSince(): Date | undefined {
    return this.#downSince;
  }

  status(): EndpointWaitStatus {
    return {
      url: this.options.url,
      ...(this.#downSince && { downSince: this.#downSince.toISOString() }),
      ...(this.#downSince && this.#nextProbeAt && { nextProbeAt: this.#nextProbeAt.toISOString() }),
      waiting: this.#waiting,
    };
  }

  async waitUntilUp(signal?: AbortSignal): Promise<boolean> {
    if (signal?.aborted || this.#closed.signal.aborted) throw aborted();
    this.#loop ??= this.#probeUntilUp().finally(() => {
      this.#loop = undefined;
    });
    this.#waiting++;
    let onAbort: (() => void) | undefined;
    try {
      const stop = new Promise<never>((_, reject) => {
        onAbort = () => reject(aborted());
        signal?.addEventListener('abort', onAbort, { once: true });
        this.#closed.signal.addEventListener('abort', onAbort, { once: true });
      });
      return await Promise.race([this.#loop, stop]);
    } finally {
      this.#waiting--;
      if (onAbort) {
        signal?.removeEventListener('abort', onAbort);
        this.#closed.signal.removeEventListener('abort', onAbort);
      }
    }
  }

  onDown(listener: (since: Date) => void): () => void {
    this.#downListeners.add(listener);
    return () => void this.#downListeners.delete(listener);
  }

  /** The daemon stops: the probing ends, every wait rejects (aborted: the runs resume at next start). */
  close(): void {
    this.#closed.abort();
  }

  async #probeUntilUp(): Promise<boolean> {
    const { log, url } = this.options;
    const sleep = this.options.sleep ?? defaultSleep;
    const maxPause = this.options.maxPauseMs ?? MAX_PAUSE_MS;
    let pause = this.options.firstPauseMs ?? FIRST_PAUSE_MS;
    let waited = false;
    for (;;) {
      if (await this.options.probe(this.#closed.signal)) break;
      if (this.#closed.signal.aborted) throw aborted();
      const now = this.#clock();
      if (this.#downSince === undefined) {
        this.#downSince = now;
        for (const listener of this.#downListeners) listener(now);
        log.warn(
          { endpoint: url, since: now.toISOString(), nextProbeMs: pause },
          `the model endpoint does not answer (${url}, since ${localDateTime(now, { seconds: true })}): runs wait and start once it answers; asking again in ${Math.round(pause / 1000)} s, then less often (at most every ${Math.round(maxPause / 60_000)} min)`,
        );
      } else {
        log.info(
          { endpoint: url, since: this.#downSince.toISOString(), nextProbeMs: pause, waiting: this.#waiting },
          `still waiting for the model endpoint (since ${localDateTime(this.#downSince, { seconds: true })}, ${this.#waiting} run(s) waiting); asking again in ${Math.round(pause / 1000)} s`,
        );
      }
      waited = true;
      this.#nextProbeAt = new Date(now.getTime() + pause);
      await sleep(pause, this.#closed.signal).catch(() => undefined);
      if (this.#closed.signal.aborted) throw aborted();
      pause = Math.min(pause * 2, maxPause);
    }
    const since = this.#downSince;
    this.#downSince = undefined;
    this.#nextProbeAt = undefined;
    if (since) {
      const seconds = Math.round((this.#clock().getTime() - since.getTime()) / 1000);
      log.info({ endpoint: url, since: since.toISOString(), waiting: this.#waiting }, `the model endpoint answers again after ${seconds} s: ${this.#waiting} waiting run(s) go on`);
      this.options.onBackUp?.(since);
    }
    return waited;
  }
}

/**
 * What a failure report adds when nothing answered at the endpoint (a run that could not wait:
 * a command-line run, or an endpoint that failed again right after answering the probe).
 */
export function unreachableAdvice(err: unknown): { notes: string[]; retryWhenEndpointAnswers: true } | undefined {
  if (!isUnreachable(err)) return undefined;
  return {
    notes: [
      'The model endpoint could not be reached at all (nothing answered): the model server was not running, or ' +
        '`Endpoint.BaseUrl` names the wrong host or port. **This report is retried when the endpoint answers again**: ' +
        'the daemon retries it by itself (at its next start, or as soon as the endpoint answers while it runs), so ' +
        'starting the model server is enough.',
    ],
    retryWhenEndpointAnswers: true,
  };
}

import type { Logger } from '../../log.js';
import { contextLimitFrom } from '../../agent/window/window-budget.js';
import { type EndpointGate, type Sleep, withRetry } from '../../agent/model/retry.js';
import { estimateRequestTokens, fixedTokens } from '../../agent/window/tokens.js';
import { truncationSuspicion, windowShownByCut } from '../../agent/window/truncation.js';
import { ModelError, type ModelClient, type ModelRequest } from '../../agent/types.js';
import type { NotesCall } from './condense.js';
import type { WindowRoom } from './window-room.js';

/** What one notes request needs: the model, the retry policy, the window it shrinks. */
export interface NotesCallOptions {
  model: ModelClient;
  retry: { attempts: number; delayMs: number; sleep?: Sleep; stopWaiting?: AbortSignal | undefined; endpoint?: EndpointGate | undefined };
  log: Logger;
  signal?: AbortSignal;
  room: WindowRoom;
  /** After the window shrank: throws when the run can no longer fit (it fails now, not after reading every part). */
  afterShrink?: () => void;
}

/**
 * One notes request under the retry policy. A prompt the server cut silently (its own count
 * far below the request, or the count an earlier cut kept) or refused as too long is not
 * used: the window shrinks to what the server showed (truncation.ts windowShownByCut: twice
 * Ollama's kept count) and the caller splits again (`cut` is that window).
 */
export function notesCaller(options: NotesCallOptions): NotesCall {
  const { log, room } = options;
  let requests = 0;
  let cap: number | undefined;
  const shrink = (tokens: number, why: string) => {
    const window = Math.max(1, Math.floor(tokens));
    log.warn({ window, was: room.window }, `a transcript notes request was ${why}; reading in smaller parts for a window of about ${window} tokens`);
    room.shrinkWindow(window);
    options.afterShrink?.();
    return window;
  };
  const call = async (request: ModelRequest) => {
    requests++;
    const estimate = estimateRequestTokens(request);
    let response;
    try {
      response = await withRetry(() => options.model.complete(request), {
        ...options.retry,
        log,
        ...(options.signal ? { signal: options.signal } : {}),
        label: 'transcript notes',
      });
    } catch (err) {
      if (!(err instanceof ModelError) || !err.contextTooLong) throw err;
      const limit = contextLimitFrom(err) ?? Math.floor(estimate * 0.75);
      return { text: '', cut: shrink(Math.min(limit, room.window - 1), 'refused as too long') };
    }
    const reported = response.usage?.inputTokens;
    // Judged as the main conversation is (truncation.ts); each notes request stands alone.
    const why =
      reported === undefined
        ? undefined
        : truncationSuspicion({ request, reported, estimate, fixed: fixedTokens(request), previous: undefined, told: undefined, ...(cap ? { cap } : {}) }, log);
    if (reported !== undefined && why !== undefined) {
      cap = reported;
      const shown = windowShownByCut(reported, room.window);
      const how = shown.guess ? `, which is Ollama's cut of a ${shown.window}-token window` : '';
      return { text: '', cut: shrink(shown.window, `cut silently: the server processed ${reported} of about ${estimate} prompt tokens (${why})${how}`) };
    }
    return { text: response.content.trim() };
  };
  return Object.defineProperty(call, 'requests', { get: () => requests }) as NotesCall;
}

export function windowTooSmall(window: number): ModelError {
  return new ModelError(
    `the server's context window (about ${window} tokens) is too small to read the transcript in parts; raise its context length`,
    { kind: 'invalid-response' },
  );
}

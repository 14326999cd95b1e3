import { Worker } from 'node:worker_threads';
import { type ExpandRequest, type PackedResults, type SourceEvents, unpackResults } from './expand.js';

/**
 * Calendars are parsed and expanded in a thread of their own, started for one request and
 * ended after it (docs/design.md §12): 30,000 events or a rule without end cost that thread's
 * time and memory, never the watcher's or the HTTP API's. A request that takes longer than
 * `timeoutMs` ends the thread.
 */

const THREAD_URL = import.meta.url.endsWith('.ts')
  ? new URL('../../dist/calendar/read-thread.js', import.meta.url)
  : new URL('./read-thread.js', import.meta.url);

export const EXPAND_TIMEOUT_MS = 60_000;
/** The thread's heap: a calendar at Agent.MaxFileBytes fits, a runaway one ends the thread, not the daemon. */
const THREAD_HEAP_MB = 512;

export function expandInThread(request: ExpandRequest, timeoutMs = EXPAND_TIMEOUT_MS): Promise<SourceEvents[]> {
  return new Promise((resolve, reject) => {
    const worker = new Worker(THREAD_URL, { resourceLimits: { maxOldGenerationSizeMb: THREAD_HEAP_MB } });
    let settled = false;
    const finish = (fn: () => void): void => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      void worker.terminate();
      fn();
    };
    const timer = setTimeout(() => finish(() => reject(new Error(`reading the calendars took more than ${timeoutMs / 1000} s`))), timeoutMs);
    worker.once('message', (reply: { ok: true; result: PackedResults } | { ok: false; error: string }) =>
      finish(() => (reply.ok ? resolve(unpackResults(reply.result)) : reject(new Error(reply.error)))),
    );
    worker.once('error', (err) => finish(() => reject(new Error(`the calendar reader failed: ${err.message}`))));
    worker.once('exit', (code) => finish(() => reject(new Error(`the calendar reader ended (${code})`))));
    worker.postMessage(request);
  });
}

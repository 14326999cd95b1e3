import { parentPort } from 'node:worker_threads';
import { type ExpandRequest, expandNow, packResults } from './expand.js';

// The reading thread's entry (read-worker.ts starts it): one request, one answer, then it ends.
parentPort?.once('message', (request: ExpandRequest) => {
  try {
    parentPort?.postMessage({ ok: true, result: packResults(expandNow(request)) });
  } catch (err) {
    parentPort?.postMessage({ ok: false, error: err instanceof Error ? err.message : String(err) });
  }
});

import { parentPort } from 'node:worker_threads';
import { type HeldText, type ThreadRequest, answerRequest, THREAD_READY } from './match-lines.js';

/**
 * The program of a search worker thread (started by search-worker.ts from the compiled
 * dist/tools/search-worker-thread.js): it answers match requests and keeps the texts it is
 * asked to retain until they are dropped or the thread is terminated.
 */
const store = new Map<number, HeldText>();

parentPort?.on('message', (msg: ThreadRequest) => {
  parentPort?.postMessage(answerRequest(store, msg));
});
parentPort?.postMessage(THREAD_READY);

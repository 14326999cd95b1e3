import { Worker } from 'node:worker_threads';
import type { TranslatedRegex } from './regex.js';

/**
 * Line matching off the main thread. A regular expression that backtracks catastrophically
 * cannot be interrupted from JavaScript, so matching runs in a worker thread that is
 * terminated when the search's time limit passes; the daemon's event loop never stalls.
 * The worker is created from an inline script (`eval: true`): under vitest the TypeScript
 * sources are not runnable by a worker, and this way the compiled build needs no extra file.
 */

const WORKER_SOURCE = `
const { parentPort } = require('node:worker_threads');
const MAX_TEXT = 500;
parentPort.on('message', (msg) => {
  try {
    const regexes = msg.patterns.map((p) => new RegExp(p.source, p.flags));
    const matches = [];
    let count = 0;
    for (const file of msg.files) {
      const lines = file.text.split(/\\r?\\n/);
      if (lines.length > 0 && lines[lines.length - 1] === '') lines.pop();
      for (let n = 0; n < lines.length; n++) {
        const line = lines[n];
        let hit = false;
        for (const re of regexes) {
          if (re.test(line)) { hit = true; break; }
        }
        if (!hit) continue;
        count++;
        if (matches.length < msg.keep) {
          matches.push({ file: file.id, line: n + 1, text: line.length > MAX_TEXT ? line.slice(0, MAX_TEXT) + '…' : line });
        }
      }
    }
    parentPort.postMessage({ id: msg.id, matches, count });
  } catch (err) {
    parentPort.postMessage({ id: msg.id, error: String(err && err.message || err) });
  }
});
`;

export interface SearchFile {
  /** What the caller calls the file (its vault-relative path). */
  id: string;
  text: string;
}

export interface LineMatch {
  file: string;
  line: number;
  text: string;
}

export class SearchTimeoutError extends Error {
  constructor(readonly timeoutMs: number) {
    super(`search stopped after ${timeoutMs / 1000} s`);
    this.name = 'SearchTimeoutError';
  }
}

interface Reply {
  id: number;
  matches?: LineMatch[];
  count?: number;
  error?: string;
}

/** Warm workers kept between searches; more than this are terminated when released. */
const MAX_IDLE = 2;
const idle: Worker[] = [];
let nextId = 1;

function acquire(): Worker {
  const worker = idle.pop() ?? new Worker(WORKER_SOURCE, { eval: true });
  // An idle worker must not keep the process (a CLI run, a test file) alive.
  worker.unref();
  return worker;
}

function release(worker: Worker): void {
  if (idle.length < MAX_IDLE) idle.push(worker);
  else void worker.terminate();
}

/** Terminate the warm workers (daemon shutdown, tests). */
export async function closeSearchWorkers(): Promise<void> {
  await Promise.all(idle.splice(0).map((w) => w.terminate()));
}

export interface MatchOptions {
  patterns: TranslatedRegex[];
  /** Matches kept (all are counted). */
  maxResults: number;
  /** Absolute time (ms since epoch, `Date.now()` clock) after which the search is stopped. */
  deadline: number;
  timeoutMs: number;
  signal?: AbortSignal | undefined;
  /** Characters of file text sent to the worker per message. */
  batchChars?: number;
}

/**
 * Match every line of the files the iterator yields (read lazily, a batch at a time, so a
 * large vault is never held in memory at once) against the patterns; a line matches when
 * any pattern matches. Throws SearchTimeoutError when the deadline passes.
 */
export async function matchLines(
  files: AsyncIterable<SearchFile>,
  options: MatchOptions,
): Promise<{ matches: LineMatch[]; count: number }> {
  const batchChars = options.batchChars ?? 1_000_000;
  const matches: LineMatch[] = [];
  let count = 0;
  const worker = acquire();
  let healthy = true;
  try {
    let batch: SearchFile[] = [];
    let size = 0;
    const flush = async (): Promise<void> => {
      if (batch.length === 0) return;
      const reply = await send(worker, batch, Math.max(0, options.maxResults - matches.length), options);
      batch = [];
      size = 0;
      matches.push(...reply.matches);
      count += reply.count;
    };
    for await (const file of files) {
      if (Date.now() > options.deadline) throw new SearchTimeoutError(options.timeoutMs);
      options.signal?.throwIfAborted();
      batch.push(file);
      size += file.text.length;
      if (size >= batchChars) await flush();
    }
    await flush();
    return { matches, count };
  } catch (err) {
    healthy = false;
    throw err;
  } finally {
    if (healthy) {
      worker.unref();
      release(worker);
    } else {
      void worker.terminate();
    }
  }
}

function send(
  worker: Worker,
  files: SearchFile[],
  keep: number,
  options: MatchOptions,
): Promise<{ matches: LineMatch[]; count: number }> {
  const id = nextId++;
  // A pending reply keeps the process alive; the worker is unref'd again when released.
  worker.ref();
  return new Promise((resolve, reject) => {
    const cleanup = (): void => {
      clearTimeout(timer);
      worker.off('message', onMessage);
      worker.off('error', onError);
      worker.off('exit', onExit);
      options.signal?.removeEventListener('abort', onAbort);
    };
    const onMessage = (reply: Reply): void => {
      if (reply.id !== id) return;
      cleanup();
      if (reply.error !== undefined) reject(new Error(`search worker: ${reply.error}`));
      else resolve({ matches: reply.matches ?? [], count: reply.count ?? 0 });
    };
    const onError = (err: Error): void => {
      cleanup();
      reject(err);
    };
    const onExit = (code: number): void => {
      cleanup();
      reject(new Error(`search worker exited (code ${code})`));
    };
    const onAbort = (): void => {
      cleanup();
      void worker.terminate();
      reject(options.signal?.reason ?? new Error('aborted'));
    };
    const timer = setTimeout(() => {
      cleanup();
      void worker.terminate();
      reject(new SearchTimeoutError(options.timeoutMs));
    }, Math.max(0, options.deadline - Date.now()));
    worker.on('message', onMessage);
    worker.on('error', onError);
    worker.on('exit', onExit);
    options.signal?.addEventListener('abort', onAbort, { once: true });
    worker.postMessage({ id, patterns: options.patterns, files, keep });
  });
}

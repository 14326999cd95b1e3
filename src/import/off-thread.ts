import { Worker } from 'node:worker_threads';
import { ImportError, type SourceFile } from './cues.js';
import type { ReadMeeting } from './read-meeting.js';

/**
 * An import's parse in a worker thread of its own (docs/design.md §9 and §8): decoding and
 * parsing a file of up to `Agent.MaxFileBytes` (an 18 MB WebVTT takes seconds) must not hold
 * the daemon's event loop, which answers /healthz, the status page and the file events. One
 * thread per import, ended with it: imports are rare, and an idle daemon keeps no thread nor
 * the parse's heap. As with the search's threads (tools/search/match-worker.ts), a thread
 * cannot load the TypeScript sources, so under vitest it is taken from dist/, which the
 * test setup builds.
 */
const THREAD_URL = import.meta.url.endsWith('.ts')
  ? new URL('../../dist/import/parse-thread.js', import.meta.url)
  : new URL('./parse-thread.js', import.meta.url);

/** The thread's one answer. */
export type ThreadAnswer =
  | { read: ReadMeeting }
  | { importError: { message: string; hint: string; stderr?: string } }
  | { failure: string };

/** From this size a file's bytes are handed to the thread; node's pool only serves buffers of 4 KB at most. */
const HAND_OVER_BYTES = 64 * 1024;

/** The file read in a thread of its own; `file.bytes` of 64 KB or more are handed over to it (unusable after). */
export async function readMeetingOffThread(file: SourceFile, signal?: AbortSignal): Promise<ReadMeeting> {
  signal?.throwIfAborted();
  const worker = new Worker(THREAD_URL);
  try {
    return await new Promise<ReadMeeting>((resolve, reject) => {
      const onAbort = () => reject(signal!.reason);
      signal?.addEventListener('abort', onAbort, { once: true });
      const settle = () => signal?.removeEventListener('abort', onAbort);
      worker.once('message', (answer: ThreadAnswer) => {
        settle();
        if ('read' in answer) resolve(answer.read);
        else if ('importError' in answer) reject(new ImportError(answer.importError.message, answer.importError.hint, answer.importError.stderr));
        else reject(new Error(`the import's parse thread failed: ${answer.failure}`));
      });
      // Out of memory (the thread's heap), or a crash: the import fails, the daemon goes on.
      worker.once('error', (err) => (settle(), reject(err)));
      worker.once('exit', (code) => (settle(), reject(new Error(`the import's parse thread ended (code ${code}) before it answered`))));
      // A big file's bytes are handed over, not copied (the caller's copy is unusable after):
      // copying 20 MB held the daemon's thread for 180 ms. A small one may be a slice of node's
      // shared buffer pool, which is never handed over: it is copied.
      const bytes = file.bytes;
      const handOver = bytes.byteLength >= HAND_OVER_BYTES;
      worker.postMessage({ name: file.name, bytes } satisfies SourceFile, handOver ? [bytes.buffer as ArrayBuffer] : []);
    });
  } finally {
    // Resolves once the thread is gone, its heap with it.
    await worker.terminate();
  }
}

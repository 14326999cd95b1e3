import { parentPort } from 'node:worker_threads';
import { ImportError, type SourceFile } from './cues.js';
import { readMeeting } from './read-meeting.js';
import type { ThreadAnswer } from './off-thread.js';

/**
 * The program of an import's parse thread (started by off-thread.ts from the compiled
 * dist/import/parse-thread.js): it reads the one file it is sent and answers once.
 */
parentPort?.once('message', (file: SourceFile) => {
  readMeeting(file).then(
    // The body's memory goes with it (transferred, not copied); the thread ends after this.
    (read) => parentPort?.postMessage({ read } satisfies ThreadAnswer, [read.body.buffer as ArrayBuffer]),
    (err: unknown) => {
      const answer: ThreadAnswer =
        err instanceof ImportError
          ? { importError: { message: err.message, hint: err.hint, ...(err.stderr !== undefined && { stderr: err.stderr }) } }
          : { failure: err instanceof Error ? (err.stack ?? err.message) : String(err) };
      parentPort?.postMessage(answer);
    },
  );
});

import { describe, expect, it } from 'vitest';
import { translateDotNetRegex } from '../../../src/tools/search/dotnet-regex.js';
import { FileWatch } from '../../../src/tools/cache/file-cache.js';
import { type SearchFile, SearchTimeoutError, SearchWorkerPool, searchPattern } from '../../../src/tools/search/worker-pool.js';
import { memoryVault } from '../../helpers/memfs.js';

/**
 * A search's time limit is there for a pattern that never ends (docs/design.md §4 `search`),
 * not for the start of the thread that runs it: a new isolate and its code took seconds on a
 * loaded machine, and the first search after an idle release then failed having matched nothing.
 */

async function* filesOf(files: SearchFile[]): AsyncGenerator<SearchFile> {
  yield* files;
}

const optionsFor = (keyword: string, timeoutMs: number) => ({
  patterns: [searchPattern(keyword, translateDotNetRegex(keyword))],
  maxResults: 10,
  timeoutMs,
  deadline: Date.now() + timeoutMs,
});

/** The event loop held up (as other work holds it on a busy machine) without using a core. */
const holdEventLoop = (ms: number) => Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, ms);

describe("a search's time limit", () => {
  it('counts from when its new thread is ready: a thread slow to start is no timeout', async () => {
    const pool = new SearchWorkerPool(new FileWatch(memoryVault()));
    try {
      const search = pool.matchLines(filesOf([{ id: 'a.md', text: 'the release date\nnothing\n' }]), optionsFor('release', 1_000));
      // The thread's "ready" cannot reach this thread before 1.5 s: past the limit of 1 s.
      holdEventLoop(1_500);
      const result = await search;
      expect(result.matches).toEqual([{ file: 'a.md', line: 1, text: 'the release date' }]);
    } finally {
      await pool.close();
    }
  });

  it('still stops a pattern that never ends, on a thread that started fresh', async () => {
    const pool = new SearchWorkerPool(new FileWatch(memoryVault()));
    try {
      const text = `${'a'.repeat(40)}!\n`;
      const search = pool.matchLines(filesOf([{ id: 'a.md', text }]), optionsFor('^(a+)+$', 500));
      await expect(search).rejects.toBeInstanceOf(SearchTimeoutError);
      expect(pool.threads).toBe(0);
    } finally {
      await pool.close();
    }
  });
});

import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    globalSetup: ['test/global-setup.ts'],
    // A bound on a test, above the sum of its own bounded waits, so a slow step fails with the
    // name of the wait it missed. Tests that start processes meet this machine's cold reads: a
    // file not read for a minute is dropped from the page cache, and while Chromium's launch
    // reads its 283 MB binary at ~15 MB/s, a daemon's start took 18 s (BENCHMARKS.md, "The
    // suite on a cold disk"). 30 s was less than a start plus a run in that window.
    testTimeout: 120_000,
    hookTimeout: 120_000,
    // Integration tests spawn daemons and servers; two workers fit the 2-core machines.
    maxWorkers: 2,
    // A worker runs its test files one after another in one module graph, not each in a new
    // one: the suite spent 92 s of its CPU importing the same modules again for each of 255
    // files, 17 s without (BENCHMARKS.md, "The suite, 2026-12-07"). A test file must therefore
    // leave no state behind: no module mock (pass the dependency in, as code-page.ts takes its
    // detector), spies restored, process.env put back. Child processes, not worker threads: a
    // thread ignores process.env.TZ, which schedule.test.ts sets.
    isolate: false,
  },
});

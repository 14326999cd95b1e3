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
    // Worker threads, not child processes: a test file's start (its imports) costs less in a
    // thread, 6:45 for the suite where forks took 8:10 on Node 20 (BENCHMARKS.md, "The suite").
    // The code under test changes no process-wide state (no chdir, no umask), so nothing needs
    // a process of its own; the daemons the integration tests start are processes anyway.
    pool: 'threads',
  },
});

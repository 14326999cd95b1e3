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
    // Each test file in a process of its own (vitest's default), though importing the same
    // modules anew for each of 255 files is a fifth of the suite's CPU: with one module graph
    // per worker (`isolate: false`) the suite took 5:00 instead of about 7:30, but a worker
    // then keeps what every file before it left, and in the order a fresh checkout runs the
    // files one grew to 5.8 GB and died (BENCHMARKS.md, "The suite, 2026-12-07"). Worker
    // threads (6:45) ignore process.env.TZ, which schedule.test.ts sets.
  },
});

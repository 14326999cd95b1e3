import v8 from 'node:v8';

/**
 * The daemon's own process runs without V8's optimizing compiler (docs/design.md §8). Its work
 * is waiting: file events, a catch-up scan every few minutes (file system latency, not CPU),
 * the HTTP API; the meetings, where CPU matters, run in the run process, which node starts with
 * its usual compilers. The optimizing compiler's code is about 4 MB of node's binary that a
 * process keeps mapped once it has optimized a single function (bench/idle.mjs: 62 → 57 MB
 * idle on a 20,000-note vault; a scan of it is slower by a few tens of ms). Set at run time, as
 * heap-collect.ts exposes gc: no node flag for the service files to carry, and none inherited
 * by the run process or the transcriber.
 */
export function withoutOptimizingCompiler(): void {
  try {
    v8.setFlagsFromString('--no-opt');
  } catch {
    // A runtime that refuses: the daemon runs as fast, and a few MB larger.
  }
}

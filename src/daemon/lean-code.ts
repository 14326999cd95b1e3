import v8 from 'node:v8';

/**
 * The daemon's own process runs without V8's optimizing compilers (docs/design.md §8): its work
 * is waiting (file events, a catch-up scan every few minutes, the HTTP API), while the meetings,
 * where CPU matters, run in the run process, which node starts with every compiler. What an
 * optimizing compiler costs is its own code in node's binary, some 4 MB that a process keeps
 * mapped once it has optimized a single function; functions that run often still get
 * Sparkplug's baseline code, which needs none of it. `--max-opt=1` stops at that tier when node
 * starts with it, but set at run time node 24's V8 no longer reads it (its tiering decisions
 * keep the value from start-up): there only `--no-maglev --no-turbofan` set now still stop the
 * two optimizing compilers (Maglev is on by default on 22 and 24). All three are set, so every
 * supported node (20, 22, 24) stops at baseline code.
 *
 * Set at run time by the entry points (bin/meeting-assistant.js, scripts/start.mjs) before they
 * load the CLI: node's module loader alone has TurboFan optimize its path functions, so a
 * setting made once the daemon starts comes too late. No node flag for the service files to
 * carry, and none inherited by the run process or the transcriber. This module imports nothing
 * but node:v8, so that nothing runs before it.
 */
export function withoutOptimizingCompiler(): void {
  // Every supported node knows the flags (V8 11.3 and later). One that did not would not throw:
  // V8 prints "unrecognized flag" and the daemon runs as fast, and a few MB larger.
  v8.setFlagsFromString('--max-opt=1 --no-maglev --no-turbofan');
}

/** For `meeting-assistant run` (argv as node gives it): the daemon's own process. True when set. */
export function leanIfDaemon(argv: readonly string[]): boolean {
  if (argv[2] !== 'run') return false;
  withoutOptimizingCompiler();
  return true;
}

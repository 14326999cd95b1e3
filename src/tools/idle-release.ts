/**
 * The idle release's delay and timers (docs/design.md §8), apart from the caches they release
 * (run-caches.ts): the daemon's own process times its run process with them and must not load
 * the caches, their search threads' code or the tokenizer's module to do so.
 */

export interface IdleTimers {
  setTimeout(fn: () => void, ms: number): unknown;
  clearTimeout(handle: unknown): void;
}

export const realIdleTimers: IdleTimers = {
  // An idle timer must not keep a command's process alive.
  setTimeout: (fn, ms) => setTimeout(fn, ms).unref(),
  clearTimeout: (handle) => clearTimeout(handle as NodeJS.Timeout),
};

export const DEFAULT_IDLE_RELEASE_MS = 60_000;

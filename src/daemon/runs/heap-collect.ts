import v8 from 'node:v8';
import vm from 'node:vm';

/**
 * One full, compacting garbage collection, asked for right after the daemon let go of what the
 * runs built (docs/design.md §8). The released texts, indexes and worker results are garbage
 * then, but V8 keeps the pages they filled until its own heuristics collect, which on an idle
 * process may be never: 30 s after the release, a quarter of the daemon's RSS was such
 * garbage (bench/idle.mjs). `gc` is exposed at run time, so the service needs no node flag;
 * where the runtime refuses, nothing happens (V8 collects when it will).
 */
export function collectGarbage(): void {
  try {
    v8.setFlagsFromString('--expose-gc');
    const gc: unknown = vm.runInNewContext('gc');
    if (typeof gc !== 'function') return;
    // Twice: the buffers the first one finds dead are freed by a sweeper that the next
    // collection finishes (measured: the second gives back another 5–20 MB after a scan).
    (gc as () => void)();
    (gc as () => void)();
  } catch {
    // Not offered by this runtime: the heap shrinks on V8's own schedule.
  }
}

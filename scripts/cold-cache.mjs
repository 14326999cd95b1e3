// The cold disk beside `npm run test:stress -- --cold-cache S`: the page cache dropped every S s.
import { writeFileSync } from 'node:fs';

export const DROP_CACHES = '/proc/sys/vm/drop_caches';

/**
 * Drop the clean page cache now and every `everyMs` until `deadline` (ms since the epoch), so a
 * process the suite starts reads its modules from disk, as it does on a machine that evicts a
 * file not read for a minute (BENCHMARKS.md, "The suite on a cold disk"). Dirty pages are not
 * dropped: nothing is lost, the cache is only refilled. Throws at once when the first drop is
 * refused (not root, not Linux). `drop` is the write, replaced in tests. Resolves nothing; the
 * timer is unref'd and ends at the deadline, or with `stop()`.
 */
export function startCacheDrops(everyMs, deadline, drop = () => writeFileSync(DROP_CACHES, '1\n')) {
  try {
    drop();
  } catch (err) {
    throw new Error(`--cold-cache needs root on Linux: it writes 1 to ${DROP_CACHES} (${err.code ?? err.message})`);
  }
  let drops = 1;
  const timer = setInterval(() => {
    if (Date.now() >= deadline) return clearInterval(timer);
    try {
      drop();
      drops++;
    } catch {
      // A refused drop leaves the cache warm, which only makes the run easier.
    }
  }, everyMs);
  timer.unref();
  return { stop: () => clearInterval(timer), drops: () => drops };
}

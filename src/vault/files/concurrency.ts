/**
 * Bounded concurrency for the vault's file system work: how many notes a scan looks at, stats
 * or reads at once (head-cache.ts, daemon/intake/catch-up.ts).
 */

/** `fn` over `items`, at most `limit` at once, results in the order of `items`. */
export async function mapLimit<T, R>(items: readonly T[], limit: number, fn: (item: T) => Promise<R>): Promise<R[]> {
  const results = new Array<R>(items.length);
  let next = 0;
  const worker = async () => {
    while (next < items.length) {
      const i = next++;
      results[i] = await fn(items[i]!);
    }
  };
  await Promise.all(Array.from({ length: Math.min(limit, items.length) }, worker));
  return results;
}

/**
 * At most `size` tasks at once; the others wait their turn, first come first served. What the
 * head cache reads notes through: a stat holds no file open, a read does, and a pass that looks
 * at thousands of notes at once must not run the process out of file descriptors (EMFILE).
 */
export class Slots {
  private busy = 0;
  private readonly waiting: (() => void)[] = [];

  constructor(private readonly size: number) {}

  /** `onWait`: told, when the task must wait, how many are in line before it (a question's page says so). */
  async run<T>(task: () => Promise<T>, onWait?: (ahead: number) => void): Promise<T> {
    if (this.busy < this.size) this.busy++;
    else {
      onWait?.(this.waiting.length + 1);
      await new Promise<void>((resolve) => this.waiting.push(resolve));
    }
    try {
      return await task();
    } finally {
      // The slot goes straight to the next in line, so `busy` counts it still.
      const next = this.waiting.shift();
      if (next) next();
      else this.busy--;
    }
  }
}

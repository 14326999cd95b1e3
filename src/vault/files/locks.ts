/**
 * One writer per file inside the process (docs/design.md §1): an async mutex per key (a file's
 * real path), shared by every run, tool, API call and command that writes through one Vault.
 * Waiters are served in order; a key's entry goes away when nobody holds or waits for it.
 */
export class PathLocks {
  private readonly tails = new Map<string, Promise<void>>();

  /** Runs `work` when every earlier holder of `key` is done; returns what it returns. */
  async run<T>(key: string, work: () => Promise<T>): Promise<T> {
    const previous = this.tails.get(key) ?? Promise.resolve();
    let release!: () => void;
    const mine = new Promise<void>((resolve) => {
      release = resolve;
    });
    const tail = previous.then(() => mine);
    this.tails.set(key, tail);
    await previous;
    try {
      return await work();
    } finally {
      release();
      if (this.tails.get(key) === tail) this.tails.delete(key);
    }
  }

  /** Keys held or waited for now (tests, status). */
  get size(): number {
    return this.tails.size;
  }
}

/**
 * The end of every late-write watch of a vault (late-writes.ts watchReplaced), shared by all
 * of them. Each watch polls its file many times in its window, and one is started per write:
 * a transcript read in parts writes the context note once a part. An abort signal would take
 * one listener per watch waiting on it (Node warns past 10: MaxListenersExceededWarning),
 * so the sleepers are kept here and each one leaves the set when its pause is over.
 */
export class WatchEnd {
  #ended = false;
  readonly #sleepers = new Set<() => void>();

  get ended(): boolean {
    return this.#ended;
  }

  /** How many watches are pausing now (tests: none is left behind). */
  get sleeping(): number {
    return this.#sleepers.size;
  }

  /** Every pause ends at once, and later ones do not wait. */
  end(): void {
    this.#ended = true;
    for (const wake of [...this.#sleepers]) wake();
  }

  /** Resolves after `ms`, or at once when the watches end. */
  sleep(ms: number): Promise<void> {
    if (this.#ended) return Promise.resolve();
    return new Promise((resolve) => {
      const wake = () => {
        clearTimeout(timer);
        this.#sleepers.delete(wake);
        resolve();
      };
      const timer = setTimeout(wake, ms);
      this.#sleepers.add(wake);
    });
  }
}

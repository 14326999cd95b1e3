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

export interface IdleHoldsOptions {
  idleMs: number;
  timers: IdleTimers;
  /** `idleMs` after the last hold ended (or the last touch), nothing holding. */
  onIdle(): void;
}

/**
 * The holds and the idle timer of what is let go when unused (docs/design.md §8): the runs'
 * caches (run-caches.ts) and the run process (daemon/runs/run-process/host.ts). A run holds
 * it; once nothing has held or touched it for `idleMs`, `onIdle` runs. After `close` no timer
 * starts again, and `whenUnheld` is told once the last hold has ended.
 */
export class IdleHolds {
  private holds = 0;
  private timer: unknown;
  private closed = false;
  private unheld: (() => void)[] = [];

  constructor(private readonly o: IdleHoldsOptions) {}

  get held(): boolean {
    return this.holds > 0;
  }

  /** Nothing is let go until the function returned is called (once). */
  hold(): () => void {
    this.holds++;
    this.cancel();
    let ended = false;
    return () => {
      if (ended) return;
      ended = true;
      this.holds--;
      if (!this.closed) this.touch();
      else if (this.holds === 0) for (const tell of this.unheld.splice(0)) tell();
    };
  }

  /** Used: the idle period starts again (when nothing holds it). */
  touch(): void {
    this.cancel();
    if (this.holds > 0 || this.closed) return;
    this.timer = this.o.timers.setTimeout(() => {
      this.timer = undefined;
      if (this.holds === 0) this.o.onIdle();
    }, this.o.idleMs);
  }

  cancel(): void {
    if (this.timer === undefined) return;
    this.o.timers.clearTimeout(this.timer);
    this.timer = undefined;
  }

  /** The owner stops: no timer again; `whenUnheld` at once when nothing holds it, else at the last hold's end. */
  close(whenUnheld: () => void): void {
    this.closed = true;
    this.cancel();
    if (this.holds === 0) whenUnheld();
    else this.unheld.push(whenUnheld);
  }
}

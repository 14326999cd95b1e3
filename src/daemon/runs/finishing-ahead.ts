import { type IdleTimers, realIdleTimers } from '../../tools/binding/idle-release.js';

/**
 * A transcript written `finished` with no run process up (docs/design.md §8, "a transcript
 * seen finishing"): the watcher sees the write at once, but passes it on only once the file has
 * been quiet for the write-stability wait and the debounce (about 0.2 s, §2), and the job's
 * run process would only be forked then. Its fork and module load are most of a cold run start
 * (BENCHMARKS.md, run start), so they start at the first raw event whose content already reads
 * as the trigger would take it (`wouldSummarize`); the settled event still decides whether a job
 * comes. A write that is not done yet, or a peek that was wrong, costs a process that ends at the
 * idle release, as after a run. Nothing is read while a run process is up: it needs no start.
 */

/** The place held this long after a start ahead: the settled event's job holds it well before. */
export const FINISHING_HOLD_MS = 10_000;
/**
 * Transcripts read at once, at most. A watch event without a file name tells of every note in
 * its folder (vault/scan/dir-watch.ts): thousands of reads at once for a head start only one of
 * them can give. A peek passed over costs nothing but that head start: the settled event starts
 * the process as before.
 */
export const MAX_PEEKS = 4;

export interface FinishingAheadOptions {
  /** A transcript note (vault.kindOf): no other note's write starts a summary. */
  isTranscript(absPath: string): boolean;
  /** Whether a run would need its run process started (none up, the daemon not stopping). */
  needsStart(): boolean;
  /** The note's text now (undefined when it is gone or cannot be read). */
  read(absPath: string): Promise<string | undefined>;
  /** The trigger rules' answer for this content (intake/triggers.ts `wouldSummarize`). */
  wouldSummarize(absPath: string, content: string): boolean;
  /** The run place's hold and start (RunPlace.hold, RunPlace.startAhead). */
  hold(): () => void;
  startAhead(): void;
  timers?: IdleTimers;
  holdMs?: number;
}

export class FinishingAhead {
  readonly #o: FinishingAheadOptions;
  readonly #timers: IdleTimers;
  /** Transcripts read now: a write comes as several raw events, one read is enough. */
  readonly #peeking = new Set<string>();
  readonly #holds = new Set<{ release: () => void; timer: unknown }>();
  #closed = false;

  constructor(o: FinishingAheadOptions) {
    this.#o = o;
    this.#timers = o.timers ?? realIdleTimers;
  }

  /** A raw event of a transcript note (not settled yet). Resolves once it has been looked at. */
  async changed(absPath: string): Promise<void> {
    if (this.#closed || !this.#o.isTranscript(absPath) || this.#peeking.has(absPath) || this.#peeking.size >= MAX_PEEKS) return;
    if (!this.#o.needsStart()) return;
    this.#peeking.add(absPath);
    try {
      const content = await this.#o.read(absPath).catch(() => undefined);
      if (content === undefined || this.#closed || !this.#o.needsStart() || !this.#o.wouldSummarize(absPath, content)) return;
      this.#start();
    } finally {
      this.#peeking.delete(absPath);
    }
  }

  /** The daemon stops: every hold ends, no timer stays. */
  close(): void {
    this.#closed = true;
    for (const hold of this.#holds) {
      this.#timers.clearTimeout(hold.timer);
      hold.release();
    }
    this.#holds.clear();
  }

  #start(): void {
    // Held before the start, as every caller of startAhead does (run-place.ts).
    const release = this.#o.hold();
    const hold = {
      release,
      timer: this.#timers.setTimeout(() => {
        this.#holds.delete(hold);
        release();
      }, this.#o.holdMs ?? FINISHING_HOLD_MS),
    };
    this.#holds.add(hold);
    this.#o.startAhead();
  }
}

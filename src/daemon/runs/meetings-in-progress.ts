import type { Clock } from '../../clock.js';
import { type IdleTimers, realIdleTimers } from '../../tools/binding/idle-release.js';

/**
 * The meetings being recorded, as the watcher sees their transcripts (docs/design.md §8): a
 * recorder writes a transcript in one of its states (`transcribing`, `speaker recognition`, …)
 * long before `finished`. While one is, the run process is held and warmed (RunPlace.warm), so
 * that the run the `finished` state starts meets a process with its code, tokenizer and the
 * meeting notes' heads ready. When none is (its state moved on, it was deleted, or nothing was
 * seen of it for `quietMs`: a recorder that died), the hold ends and the idle release ends the
 * process a minute later, as after a run. Only file events count, never a catch-up scan: a vault
 * with a transcript left `transcribing` for days does not keep a run process.
 */

/** A transcript in a recorder's state seen no more for this long is no longer a meeting in progress. */
export const RECORDING_QUIET_MS = 3 * 60 * 60_000;

export interface MeetingsInProgressOptions {
  /** The run place's hold (while a meeting is in progress) and warm-up (when one begins). */
  hold(): () => void;
  warm(): void;
  clock: Clock;
  timers?: IdleTimers;
  quietMs?: number;
}

export class MeetingsInProgress {
  /** Transcript -> when it was last seen in a recorder's state (clock ms). */
  readonly #seen = new Map<string, number>();
  readonly #o: MeetingsInProgressOptions;
  #release: (() => void) | undefined;
  #timer: unknown;
  #closed = false;

  constructor(o: MeetingsInProgressOptions) {
    this.#o = o;
  }

  /** Transcripts taken for meetings in progress. */
  get size(): number {
    return this.#seen.size;
  }

  /** True while the run place is held for them. */
  get holding(): boolean {
    return this.#release !== undefined;
  }

  /** A file event of a transcript: `recording` when its state is a recorder's, false when it moved on or is gone. */
  seen(transcript: string, recording: boolean): void {
    if (this.#closed) return;
    if (recording) this.#seen.set(transcript, this.#now());
    else if (!this.#seen.delete(transcript)) return;
    this.#update();
  }

  /** The daemon stops: the hold ends, no timer stays. */
  close(): void {
    this.#closed = true;
    this.#seen.clear();
    this.#update();
  }

  #now(): number {
    return this.#o.clock().getTime();
  }

  #update(): void {
    const quietMs = this.#o.quietMs ?? RECORDING_QUIET_MS;
    const now = this.#now();
    let oldest = Infinity;
    for (const [transcript, at] of this.#seen) {
      if (now - at >= quietMs) this.#seen.delete(transcript);
      else oldest = Math.min(oldest, at);
    }
    const timers = this.#o.timers ?? realIdleTimers;
    if (this.#timer !== undefined) timers.clearTimeout(this.#timer);
    this.#timer = undefined;
    if (this.#seen.size === 0) {
      const release = this.#release;
      this.#release = undefined;
      release?.();
      return;
    }
    if (!this.#release) {
      this.#release = this.#o.hold();
      this.#o.warm();
    }
    this.#timer = timers.setTimeout(() => {
      this.#timer = undefined;
      this.#update();
    }, oldest + quietMs - now);
  }
}

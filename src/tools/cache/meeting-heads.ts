import path from 'node:path';
import { CLAIM_CONCURRENCY, CLAIM_KEYS, type HeadSource } from '../../vault/notes/claims.js';
import { mapLimit } from '../../vault/files/concurrency.js';
import { type Head, HeadCache } from '../../vault/scan/head-cache.js';
import type { Vault } from '../../vault/files/vault.js';
import type { FileWatch } from './file-cache.js';

/**
 * The meeting notes' heads as the runs of one vault share them (run-caches.ts), for the check
 * that no other meeting has this one's notes (vault/notes/claims.ts, docs/design.md §1) at every run
 * start. A HeadCache, which compares each note's version with a stat and reads only the notes
 * that changed, kept in the state folder between run processes (`spillFile`); and, where the
 * daemon's watcher covers the meeting notes (FileWatch.trust), a head it checked within
 * `maxTrustMs` and no event named since is used without the stat: 4,000 stats were most of a
 * warm run start on the bench vault (BENCHMARKS.md, run start).
 */
export class MeetingHeads implements HeadSource {
  private readonly heads: HeadCache;
  /** When each head was last checked on disk, by the watch's clock. */
  private readonly checkedAt = new Map<string, number>();
  /**
   * Checks on disk under way, with the watch's invalidation count when each began. A cold run
   * start's claim check runs beside the warm-up of the same process (RunPlace.startAhead), and
   * each stat'ed the 4,000 notes the other was stat'ing (BENCHMARKS.md, run start, fifth pass).
   */
  private readonly checking = new Map<string, { head: Promise<Head | undefined>; invalidations: number }>();

  constructor(
    private readonly vault: Vault,
    private readonly watch: FileWatch,
    spillFile: string,
  ) {
    this.heads = new HeadCache(vault, CLAIM_KEYS, spillFile);
    watch.onInvalidate((p) => this.forget(p));
  }

  get stats(): HeadCache['stats'] {
    return this.heads.stats;
  }

  /** Heads held in memory. */
  get size(): number {
    return this.heads.size;
  }

  restore(): Promise<void> {
    return this.heads.restore();
  }

  async get(absPath: string): Promise<Head | undefined> {
    const checked = this.checkedAt.get(absPath);
    if (checked !== undefined && this.watch.covers(absPath) && this.watch.now() - checked <= this.watch.maxTrustMs) {
      const known = this.heads.known(absPath);
      if (known) return known;
    }
    // A check of this note under way is joined while no event came since it began: what it
    // finds is the note as it is now. After an event it may be of the note from before the
    // change: checked again. Only where the watcher covers the note: without one, no event
    // marks a change made since the check began.
    const under = this.checking.get(absPath);
    if (under && under.invalidations === this.watch.invalidations && this.watch.covers(absPath)) return under.head;
    const invalidations = this.watch.invalidations;
    const head = this.check(absPath, invalidations);
    const entry = { head, invalidations };
    this.checking.set(absPath, entry);
    const done = () => this.checking.get(absPath) === entry && this.checking.delete(absPath);
    void head.then(done, done);
    return head;
  }

  private async check(absPath: string, invalidations: number): Promise<Head | undefined> {
    const now = this.watch.now();
    const head = await this.heads.get(absPath);
    // An event during the read may be of this note, changed after it was read: vouched for,
    // the old head would hide a claim for `maxTrustMs`. Checked on disk at the next use instead.
    if (head && this.watch.invalidations === invalidations) this.checkedAt.set(absPath, now);
    else this.checkedAt.delete(absPath);
    return head;
  }

  /**
   * Every meeting note's head checked now, as a run start's claim check would (a meeting is being
   * recorded: its run's first request then waits for none of it, docs/design.md §8). A note that
   * cannot be looked at is left for the run, which reports what it must. `listed`: the meeting
   * notes when the caller has them (the run caches' listing); default a walk of the folder.
   */
  async warm(listed?: readonly string[]): Promise<void> {
    await this.restore();
    const notes = listed ?? (await this.vault.listNotesOf('Meetings'));
    await mapLimit(notes, CLAIM_CONCURRENCY, (note) => this.get(note).catch(() => undefined));
  }

  /** Out to the state folder and let go (the idle release): the next process checks each on disk once. */
  spill(): Promise<void> {
    this.checkedAt.clear();
    return this.heads.spill();
  }

  /** An event for a file or a folder: what is held of it, or below it, is checked on disk again. */
  private forget(absPath: string): void {
    if (this.checkedAt.delete(absPath)) return;
    const below = absPath.endsWith(path.sep) ? absPath : absPath + path.sep;
    for (const key of this.checkedAt.keys()) if (key.startsWith(below)) this.checkedAt.delete(key);
  }
}

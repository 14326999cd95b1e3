import path from 'node:path';
import { countTokens, releaseTokenizer } from '../../agent/window/tokens.js';
import { STATE_FOLDER } from '../../vault/files/state.js';
import type { Vault } from '../../vault/files/vault.js';
import { FileWatch } from '../cache/file-cache.js';
import { MeetingHeads } from '../cache/meeting-heads.js';
import { ProjectFolders } from '../cache/project-folders.js';
import { DEFAULT_IDLE_RELEASE_MS, IdleHolds, type IdleTimers, realIdleTimers } from './idle-release.js';
import { PastSummaryIndex } from '../cache/past-index.js';
import { VaultListing } from '../../vault/scan/vault-listing.js';
import { SearchPlans } from '../search/search-plans.js';
import { SearchWorkerPool } from '../search/worker-pool.js';

/**
 * The caches the runs of one vault share, with an owner and a lifetime (docs/design.md §4,
 * §8). The daemon or a command creates one (runtime.ts) and hands it to every run; nothing
 * below keeps a cache in module state. Each part is bounded: the search's texts by
 * `Agent.SearchCacheMegabytes`, its threads by the pool's size, its plans by `MAX_PLANS`,
 * the past-summary index by the summaries folder, the meeting notes' heads by the meetings
 * folder (two links each, for the check that no other meeting has this one's notes, §1), the
 * project folders by the projects folder, the token counts by their own small bound.
 *
 * Lifetime: what the runs built is let go once nothing used it for `idleMs` (default a
 * minute) while no run holds it: the worker threads end, the texts, plans and index are
 * dropped and the tokenizer's table is unloaded. The next run builds them again (a cold
 * search, one walk of the summaries folder). The watch (the watcher's trust and the
 * invalidations) lives as long as the owner.
 */

export { DEFAULT_IDLE_RELEASE_MS, type IdleTimers } from './idle-release.js';

export interface RunCachesOptions {
  /** How long unused and unheld before the release. Default one minute. */
  idleMs?: number;
  timers?: IdleTimers;
  /** Caching search workers (default: two on a multi-core machine). */
  searchShards?: number;
  /** Told after each idle release (the daemon logs it). */
  onRelease?: () => void;
}

/** The meeting notes' heads between two run processes, in the state folder. */
export const MEETING_HEADS_FILE = 'meeting-heads.json';

export class RunCaches {
  readonly watch: FileWatch;
  readonly search: SearchWorkerPool;
  readonly plans: SearchPlans;
  readonly pastSummaries: PastSummaryIndex;
  /**
   * The meeting notes' summary and context links (vault/notes/claims.ts): a run start reads only those
   * that changed, and stats none the watcher vouches for. Released to the state folder
   * (`MEETING_HEADS_FILE`), so that the next run process starts from them too.
   */
  readonly meetingHeads: MeetingHeads;
  /**
   * The vault's files for the links' look-ups and the meeting notes' listing
   * (vault/scan/vault-listing.ts): a run start checks a stat per folder instead of walking
   * the vault.
   */
  readonly listing: VaultListing;
  /** The project folders for `list_projects` and the tool offer: no readdir where the watcher vouches for the folder. */
  readonly projectFolders: ProjectFolders;
  /** Releases so far (tests read it). */
  releases = 0;
  private readonly idle: IdleHolds;
  private readonly onRelease: (() => void) | undefined;

  constructor(
    readonly vault: Vault,
    options: RunCachesOptions = {},
  ) {
    this.onRelease = options.onRelease;
    this.idle = new IdleHolds({
      idleMs: options.idleMs ?? DEFAULT_IDLE_RELEASE_MS,
      timers: options.timers ?? realIdleTimers,
      // Told once the threads have ended: what they held is gone from the process by then.
      onIdle: () => void this.release().then(() => this.onRelease?.()),
    });
    this.watch = new FileWatch(vault);
    this.search = new SearchWorkerPool(this.watch, options.searchShards ? { shards: options.searchShards } : {});
    const { Projects, Summaries } = vault.layout.folders;
    this.plans = new SearchPlans(this.watch, [Projects, Summaries]);
    this.listing = new VaultListing(vault);
    this.pastSummaries = new PastSummaryIndex(vault, this.watch, this.listing);
    this.projectFolders = new ProjectFolders(vault, this.watch);
    this.meetingHeads = new MeetingHeads(vault, this.watch, path.join(vault.root, STATE_FOLDER, MEETING_HEADS_FILE));
  }

  /** A run begins: nothing is released until the function returned is called (once). */
  hold(): () => void {
    return this.idle.hold();
  }

  /**
   * Ahead of a run (a meeting is being recorded, docs/design.md §8): the tokenizer's table loaded
   * (0.4–0.6 s on the loaded bench machine), the meeting notes' heads checked and the project
   * folders listed (the tool offer), so that the run's first model request waits for none of them.
   */
  async warm(): Promise<void> {
    const done = this.hold();
    try {
      await Promise.all([
        this.listing.meetingNotes().then((notes) => this.meetingHeads.warm(notes)),
        this.projectFolders.list(),
        // After the reads above are issued, so the disk works while the table loads synchronously
        // (BENCHMARKS.md, run start, sixth pass).
        Promise.resolve().then(() => countTokens('warm')),
      ]);
    } finally {
      done();
    }
  }

  /** The caches were used: the idle period starts again (when no run holds them). */
  touch(): void {
    this.idle.touch();
  }

  /** Let go of what the runs built now; resolves once the worker threads have ended. */
  release(): Promise<void> {
    this.idle.cancel();
    this.releases++;
    const ended = this.search.close();
    this.plans.clear();
    this.pastSummaries.clear();
    this.listing.clear();
    this.projectFolders.clear();
    // Written only when a run read a note anew; a state folder that cannot be written keeps them here.
    const spilled = this.meetingHeads.spill();
    releaseTokenizer();
    return Promise.all([ended, spilled]).then(() => undefined);
  }

  /**
   * The owner stops (daemon shutdown, the end of a command): release, and no timer again. A
   * run that still holds them (the shutdown's grace period lets it finish) keeps them until it
   * ends: its search is not cut off, and no worker it starts outlives the owner.
   */
  close(): void {
    // A run that still holds them (the shutdown's grace period) has them let go when it ends.
    this.idle.close(() => void this.release());
  }
}

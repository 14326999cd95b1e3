import { Vault } from '../vault/vault.js';
import type { FileWatch } from './file-cache.js';
import type { SearchPlan } from './search-worker.js';

/**
 * Warm searches of a scope the daemon's watcher covers reuse the previous search's plan (which
 * files, in which worker, in which order): no listing, no per-file work on the main thread.
 * Any event in the projects or summaries folders drops every plan; at most `MAX_PLANS` are
 * kept (the least recently made dropped first), and the owner (run-caches.ts) drops them all
 * when it releases what runs built.
 */

export interface PlanCounts {
  files: number;
  summaries: number;
  large: number;
}

export interface CachedPlan {
  plan: SearchPlan;
  counts: PlanCounts;
  madeAt: number;
}

export const MAX_PLANS = 8;

export class SearchPlans {
  private readonly plans = new Map<string, CachedPlan>();

  constructor(
    readonly watch: FileWatch,
    private readonly max = MAX_PLANS,
  ) {
    const { Projects, Summaries } = watch.vault.layout.folders;
    watch.onInvalidate((p) => {
      if ([Projects, Summaries].some((root) => Vault.isInside(root, p) || Vault.isInside(p, root))) this.plans.clear();
    });
  }

  /** Plans may be kept: the watcher reports every change to what they cover. */
  get usable(): boolean {
    const { Projects, Summaries } = this.watch.vault.layout.folders;
    return this.watch.covers(Projects) && this.watch.covers(Summaries);
  }

  get(key: string): CachedPlan | undefined {
    return this.usable ? this.plans.get(key) : undefined;
  }

  set(key: string, plan: CachedPlan): void {
    this.plans.delete(key);
    this.plans.set(key, plan);
    if (this.plans.size > this.max) this.plans.delete(this.plans.keys().next().value!);
  }

  clear(): void {
    this.plans.clear();
  }

  get size(): number {
    return this.plans.size;
  }
}

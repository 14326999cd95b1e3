import { Vault } from '../../vault/files/vault.js';
import type { FileWatch } from '../cache/file-cache.js';
import type { SearchPlan } from './worker-pool.js';

/**
 * Warm searches of a scope the watcher covers reuse the previous search's plan (which files, in
 * which worker, in which order): no listing, no per-file work on the main thread. Any event in
 * the folders the plans cover drops every plan, and so does the trust's age (`maxTrustMs`); at
 * most `MAX_PLANS` are kept (the least recently made dropped first), and the owner
 * (run-caches.ts) drops them all when it releases what runs built. The agent's `search` keeps
 * the counts it reports with a plan (projects and summaries folders); the MCP server's
 * `search_meetings` keeps its scope (meeting, summary and transcript folders).
 */

export interface PlanCounts {
  files: number;
  summaries: number;
  large: number;
}

export interface CachedPlan<C = PlanCounts> {
  plan: SearchPlan;
  /** What the caller reports with the plan's results. */
  counts: C;
  madeAt: number;
}

export const MAX_PLANS = 8;

export class SearchPlans<C = PlanCounts> {
  private readonly plans = new Map<string, CachedPlan<C>>();

  /** @param folders absolute folders whose files the plans may cover. */
  constructor(
    readonly watch: FileWatch,
    private readonly folders: readonly string[],
    private readonly max = MAX_PLANS,
  ) {
    watch.onInvalidate((p) => {
      if (folders.some((root) => Vault.isInside(root, p) || Vault.isInside(p, root))) this.plans.clear();
    });
  }

  /** Plans may be kept: the watcher reports every change to what they cover. */
  get usable(): boolean {
    return this.folders.every((folder) => this.watch.covers(folder));
  }

  get(key: string): CachedPlan<C> | undefined {
    const known = this.usable ? this.plans.get(key) : undefined;
    if (known && this.watch.now() - known.madeAt > this.watch.maxTrustMs) {
      this.plans.delete(key);
      return undefined;
    }
    return known;
  }

  set(key: string, plan: CachedPlan<C>): void {
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

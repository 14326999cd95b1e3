import { trustOf } from '../tools/file-cache.js';
import type { SearchPlan } from '../tools/search-worker.js';
import type { Vault } from '../vault/vault.js';

/** The files a search_meetings call covers, in result order, and how many of each kind. */
export interface Scope {
  files: string[];
  summaries: number;
  transcripts: number;
}

/**
 * Warm searches of a scope the watcher covers reuse the previous search's plan (which files,
 * in which worker, in which order), as the agent's search does (tools/search.ts): no scope to
 * build, no per-file work. Any file event in the vault drops them; so does the trust's age.
 */
export class SearchPlans {
  private readonly plans = new Map<string, { plan: SearchPlan; scope: Scope; madeAt: number; invalidations: number }>();

  constructor(private readonly vault: Vault) {}

  private usable(): boolean {
    const { folders } = this.vault.layout;
    const trust = trustOf(this.vault);
    return trust.covers(folders.Meetings) && trust.covers(folders.Summaries) && trust.covers(folders.Transcripts);
  }

  get(key: string): { plan: SearchPlan; scope: Scope } | undefined {
    const known = this.plans.get(key);
    const trust = trustOf(this.vault);
    if (!known || !this.usable() || known.invalidations !== trust.invalidations || trust.now() - known.madeAt > trust.maxTrustMs) return undefined;
    return known;
  }

  /** What a search made, kept when no file event came in since `invalidations` was read. */
  set(key: string, plan: SearchPlan, scope: Scope, madeAt: number, invalidations: number): void {
    if (!this.usable() || trustOf(this.vault).invalidations !== invalidations) return;
    this.plans.delete(key);
    this.plans.set(key, { plan, scope, madeAt, invalidations });
    if (this.plans.size > 8) this.plans.delete(this.plans.keys().next().value!);
  }
}

import { afterEach, describe, expect, it } from 'vitest';
import { countTokens, tokenizerLoaded } from '../../src/agent/window/tokens.js';
import { type IdleTimers, RunCaches } from '../../src/tools/run-caches.js';
import { MAX_PLANS, SearchPlans } from '../../src/tools/search/search-plans.js';
import { harness } from '../helpers/tool-harness.js';

/** Timers that fire only when the test says so. */
function manualTimers() {
  const pending = new Map<number, { fn: () => void; ms: number }>();
  let next = 1;
  const timers: IdleTimers = {
    setTimeout: (fn, ms) => {
      pending.set(next, { fn, ms });
      return next++;
    },
    clearTimeout: (handle) => void pending.delete(handle as number),
  };
  return {
    timers,
    get pending() {
      return [...pending.values()].map((p) => p.ms);
    },
    fireAll() {
      const due = [...pending.values()];
      pending.clear();
      for (const p of due) p.fn();
    },
  };
}

let open: RunCaches[] = [];
afterEach(() => {
  for (const caches of open) caches.close();
  open = [];
});

/** A harness whose tools use caches with manual idle timers, the watcher trusted as the daemon does. */
function setup(idleMs = 60_000) {
  const clock = manualTimers();
  const h = harness();
  const caches = new RunCaches(h.vault, { idleMs, timers: clock.timers });
  open.push(caches, h.ctx.caches);
  h.ctx.caches = caches;
  h.ctx.pastSummaries = caches.pastSummaries;
  caches.watch.trust(['/vault/Projects', '/vault/Meetings/Summaries']);
  return { h, caches, clock };
}

describe('the runs’ caches have an owner and a lifetime (docs/design.md §8)', () => {
  it('a minute after the last use they let go of everything a run built: 0 threads, no texts, no plans, an empty index, no tokenizer', async () => {
    const { h, caches, clock } = setup();
    expect((await h.call('search', { keywords: ['Alpha'] })).isError).toBe(false);
    await h.call('list_past_project_meetings');
    countTokens('x'.repeat(2000));
    expect(caches.search.threads).toBeGreaterThan(0);
    expect(caches.search.texts.size).toBeGreaterThan(0);
    expect(caches.plans.size).toBe(1);
    expect(caches.pastSummaries.size).toBeGreaterThan(0);
    expect(tokenizerLoaded()).toBe(true);
    // The delay is the one configured, started after the last call.
    expect(clock.pending).toEqual([60_000]);

    clock.fireAll();
    expect(caches.releases).toBe(1);
    expect(caches.search.threads).toBe(0);
    expect(caches.search.texts.size).toBe(0);
    expect(caches.search.texts.bytes).toBe(0);
    expect(caches.plans.size).toBe(0);
    expect(caches.pastSummaries.size).toBe(0);
    expect(tokenizerLoaded()).toBe(false);

    // The next run builds them again and answers the same.
    expect((await h.call('search', { keywords: ['Alpha line 2'] })).content).toContain('Projects/Alpha/notes.md:2:Alpha line 2');
    expect(caches.search.threads).toBeGreaterThan(0);
  });

  it('nothing is released while a run holds them, however long it takes; the idle period starts when it ends', async () => {
    const { h, caches, clock } = setup();
    const done = caches.hold();
    await h.call('search', { keywords: ['Alpha'] });
    // Calls during the run schedule nothing: the run holds the caches.
    expect(clock.pending).toEqual([]);
    clock.fireAll();
    expect(caches.releases).toBe(0);
    expect(caches.search.texts.size).toBeGreaterThan(0);
    done();
    done();
    expect(clock.pending).toEqual([60_000]);
    clock.fireAll();
    expect(caches.releases).toBe(1);
    expect(caches.search.threads).toBe(0);
  });

  it('a use during the idle period starts it again (one timer, never two)', async () => {
    const { h, caches, clock } = setup(5_000);
    await h.call('search', { keywords: ['Alpha'] });
    await h.call('search', { keywords: ['Alpha'] });
    expect(clock.pending).toEqual([5_000]);
    caches.close();
    expect(clock.pending).toEqual([]);
    expect(caches.search.threads).toBe(0);
    // Closed: a late use schedules nothing more.
    caches.touch();
    expect(clock.pending).toEqual([]);
  });

  it("closed while a run holds them (the daemon's shutdown grace period): the run's searches go on; all is let go when it ends", async () => {
    const { h, caches, clock } = setup();
    const done = caches.hold();
    await h.call('search', { keywords: ['Alpha'] });
    const during = h.call('search', { keywords: ['Alpha line 2'] });
    caches.close();
    const result = await during;
    expect(result.isError).toBe(false);
    expect(result.content).toContain('Projects/Alpha/notes.md:2:Alpha line 2');
    expect((await h.call('search', { keywords: ['Alpha line 2'] })).isError).toBe(false);
    expect(caches.releases).toBe(0);
    done();
    // No worker thread started during the grace period outlives the owner.
    expect(caches.releases).toBe(1);
    expect(caches.search.threads).toBe(0);
    expect(clock.pending).toEqual([]);
  });

  it('plans are bounded: the oldest is dropped past MAX_PLANS', () => {
    const { caches } = setup();
    const { Projects, Summaries } = caches.vault.layout.folders;
    const plans = new SearchPlans(caches.watch, [Projects, Summaries]);
    const plan = { plan: { orders: [], positions: [], group: [], epoch: 0 }, counts: { files: 0, summaries: 0, large: 0 }, madeAt: caches.watch.now() };
    for (let i = 0; i < MAX_PLANS + 3; i++) plans.set(`scope ${i}`, plan);
    expect(plans.size).toBe(MAX_PLANS);
    expect(plans.get('scope 0')).toBeUndefined();
    expect(plans.get(`scope ${MAX_PLANS + 2}`)).toBe(plan);
    // An event below the projects drops them all.
    caches.watch.invalidate('/vault/Projects/Alpha/notes.md');
    expect(plans.size).toBe(0);
  });
});

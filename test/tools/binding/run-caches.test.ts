import type { Worker } from 'node:worker_threads';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { countTokens, tokenizerLoaded } from '../../../src/agent/window/tokens.js';
import { type IdleTimers, RunCaches } from '../../../src/tools/binding/run-caches.js';
import { MAX_PLANS, SearchPlans } from '../../../src/tools/search/search-plans.js';
import { harness } from '../../helpers/tool-harness.js';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js';
import { silentLogger } from '../../../src/log.js';
import { createMeetingsServer } from '../../../src/mcp/server.js';
import { countFsCalls, memoryVault, testConfig } from '../../helpers/memfs.js';

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
  // The search's 5 s limit (a runaway pattern's) is not what these tests are about; a cold
  // worker's start on a loaded machine took longer than that (npm run test:stress).
  const h = harness({ ctx: { searchTimeoutMs: 10 * 60_000 } });
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

  it('the idle release is told once the search threads have ended (the daemon collects their garbage then)', async () => {
    const clock = manualTimers();
    const h = harness();
    let exitedAtRelease: number | undefined;
    let exited = 0;
    const caches = new RunCaches(h.vault, { timers: clock.timers, onRelease: () => (exitedAtRelease = exited) });
    open.push(caches, h.ctx.caches);
    h.ctx.caches = caches;
    caches.watch.trust(['/vault/Projects', '/vault/Meetings/Summaries']);
    expect((await h.call('search', { keywords: ['Alpha'] })).isError).toBe(false);
    type Threads = { caching?: { worker: Worker }[]; idle: { worker: Worker }[] };
    const pool = caches.search as unknown as Threads;
    const threads = [...(pool.caching ?? []), ...pool.idle].map((w) => w.worker);
    expect(threads.length).toBeGreaterThan(0);
    for (const thread of threads) thread.once('exit', () => exited++);
    clock.fireAll();
    // The threads' exit is the machine's to schedule: a roomy deadline, not vi.waitFor's 1 s.
    await vi.waitFor(() => expect(exitedAtRelease).toBeDefined(), { timeout: 15_000 });
    expect(exitedAtRelease).toBe(threads.length);
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

describe('the MCP server on the owned caches (docs/design.md §10)', () => {
  const transcript = (line: string) => `---\nmeeting: "[[Meetings/M]]"\nstate: finished\n---\n[00:00:01] Alice: ${line}\n`;

  /** The server over an in-memory pipe, its caches with manual idle timers, the folders trusted as its watcher does. */
  async function serve() {
    const clock = manualTimers();
    const vault = memoryVault({
      'Meetings/M.md': '---\ntitle: M\nstart_time: 2026-11-30T09:00:00Z\ntranscript: "[[Meetings/Transcripts/M]]"\n---\nNotes.\n',
      'Meetings/Transcripts/M.md': transcript('the budget is fine'),
    });
    const caches = new RunCaches(vault, { timers: clock.timers });
    open.push(caches);
    caches.watch.trust([vault.abs('Meetings')]);
    const config = testConfig();
    const server = createMeetingsServer({ vault, settings: config.settings, log: silentLogger, version: 'test', caches });
    const [a, b] = InMemoryTransport.createLinkedPair();
    await server.connect(a);
    const client = new Client({ name: 'test', version: '1' });
    await client.connect(b);
    const search = async (query: string) => {
      const r = await client.callTool({ name: 'search_meetings', arguments: { query, in: 'transcripts' } });
      return (r.content as { text: string }[])[0]!.text;
    };
    const file = vault.abs('Meetings/Transcripts/M.md');
    /** What a sync tool does: new bytes, the old mtime set back; the watcher reports the file. */
    const edit = async (line: string) => {
      const before = await vault.fs.stat(file);
      await vault.fs.writeFile(file, transcript(line));
      await (vault.fs as unknown as { utimes(p: string, a: Date, m: Date): Promise<void> }).utimes(file, new Date(before.mtimeMs), new Date(before.mtimeMs));
      caches.watch.invalidate(file);
    };
    const call = (name: string) => client.callTool({ name, arguments: {} });
    return { vault, caches, clock, search, call, edit, close: () => client.close() };
  }

  it('a warm search_meetings in the transcripts reads nothing, and an event there drops its plan: the edit is found at once', async () => {
    const s = await serve();
    expect(await s.search('budget')).toMatch(/^1 matching line/);
    const counts = countFsCalls(s.vault.fs);
    expect(await s.search('budget')).toMatch(/^1 matching line/);
    expect(counts).toEqual({ readFile: 0, stat: 0, lstat: 0, readdir: 0 });
    await s.edit('the budget is late');
    expect(await s.search('late')).toMatch(/Transcripts\/M\.md:5:\[00:00:01\] Alice: the budget is late$/);
    await s.close();
  });

  it('holds the caches while a call runs, releases them a minute after, and searches again on new workers, seeing an edit made while released', async () => {
    const s = await serve();
    expect(await s.search('budget')).toMatch(/^1 matching line/);
    expect(s.clock.pending).toEqual([60_000]);
    s.clock.fireAll();
    expect(s.caches.releases).toBe(1);
    expect(s.caches.search.threads).toBe(0);
    // A call after the release starts the idle period again…
    await s.call('list_meetings');
    expect(s.clock.pending).toEqual([60_000]);
    // …and one in flight (starting its new workers) holds the caches: no idle timer runs until it ends.
    let settled = false;
    const running = s.search('budget').finally(() => (settled = true));
    for (let i = 0; i < 10_000 && s.clock.pending.length > 0 && !settled; i++) await new Promise((r) => setImmediate(r));
    expect(settled).toBe(false);
    expect(s.clock.pending).toEqual([]);
    expect(await running).toMatch(/^1 matching line/);
    expect(s.caches.releases).toBe(1);
    expect(s.clock.pending).toEqual([60_000]);
    s.clock.fireAll();
    expect(s.caches.releases).toBe(2);
    await s.edit('the budget moved to March');
    expect(await s.search('March')).toMatch(/Alice: the budget moved to March$/);
    expect(s.caches.search.threads).toBeGreaterThan(0);
    // And warm again on the new workers.
    expect(await s.search('March')).toMatch(/^1 matching line/);
    await s.close();
  });
});

import { afterEach, describe, expect, it, vi } from 'vitest';
import { type Daemon, type DaemonOptions, type PipelineFns, startDaemon } from '../../../src/daemon/daemon.js';
import type { VaultEventSource } from '../../../src/daemon/intake/file-events.js';
import type { Fs } from '../../../src/vault/files/fs.js';
import { silentLogger } from '../../../src/log.js';
import type { IdleTimers, RunCaches } from '../../../src/tools/binding/run-caches.js';
import { memoryFs, testConfig } from '../../helpers/memfs.js';
import { contextAndSummaryLinks, meetingNote, transcriptNote } from '../../helpers/notes.js';

/**
 * docs/design.md §8, issue #25 point 3: what a run built (search worker threads, the
 * past-summary index) is let go once the daemon has been idle for a minute. The delay's
 * timers are injected; the run is a stand-in that builds what a real run's tools build.
 */

function manualTimers() {
  const pending = new Map<number, { fn: () => void; ms: number }>();
  let next = 1;
  const timers: IdleTimers = {
    setTimeout: (fn, ms) => (pending.set(next, { fn, ms }), next++),
    clearTimeout: (handle) => void pending.delete(handle as number),
  };
  return {
    timers,
    delays: () => [...pending.values()].map((p) => p.ms),
    fireAll() {
      const due = [...pending.values()];
      pending.clear();
      for (const p of due) p.fn();
    },
  };
}

/** A daemon on `fs` with no file events, no schedule and no HTTP: only what the test drives. */
function startQuietDaemon(fs: Fs, pipeline: PipelineFns, options: Partial<DaemonOptions>): Promise<Daemon> {
  const source: VaultEventSource = { on: () => undefined, ready: Promise.resolve(), close: async () => undefined };
  return startDaemon(testConfig({ Http: { Enabled: false } }), { log: silentLogger, fs, watch: () => source, pipeline, schedule: false, ...options });
}

let daemon: Daemon | undefined;
afterEach(async () => {
  await daemon?.stop('test over');
  daemon = undefined;
});

describe('the daemon lets go of what runs built once idle', () => {
  it('after a run: the threads and the index stay while it runs, and are gone one idle minute after it', async () => {
    const clock = manualTimers();
    let collections = 0;
    let seen: RunCaches | undefined;
    let during: { threads: number; index: number; releases: number } | undefined;
    let finish!: () => void;
    const finished = new Promise<void>((r) => (finish = r));
    const pipeline: PipelineFns = {
      async summarize(deps, meetingPath) {
        const caches = deps.caches!;
        seen = caches;
        // What the tools of a run build: a search's worker thread and the past-summary index.
        await caches.search.matchLines(
          (async function* () {
            yield { id: 'a.md', text: 'alpha\n' };
          })(),
          { patterns: [{ source: 'alpha', flags: '', scan: true }], maxResults: 10, deadline: Date.now() + 30_000, timeoutMs: 30_000 },
        );
        await caches.pastSummaries.all();
        // An idle timer that fired now would find the run holding the caches.
        clock.fireAll();
        during = { threads: caches.search.threads, index: caches.pastSummaries.size, releases: caches.releases };
        await finished;
        return { runId: 'r', status: 'done', meetingPath };
      },
      retry: async (_deps, summaryPath) => ({ runId: 'r', status: 'done', summaryPath }),
    };
    const fs = memoryFs({
      'Meetings/A.md': meetingNote('A', contextAndSummaryLinks('A')),
      'Meetings/Transcripts/A.md': transcriptNote('A', 'finished'),
      'Meetings/Summaries/Old.md': '---\nstatus: done\nprojects: [Alpha]\n---\n',
    });
    // A caller's own listener (a bench's) is called beside the daemon's, never instead of it.
    let callerReleases = 0;
    daemon = await startQuietDaemon(fs, pipeline, {
      caches: { idleMs: 60_000, timers: clock.timers, onRelease: () => callerReleases++ },
      collectGarbage: () => collections++,
    });
    await daemon.startupScan;
    const deadline = Date.now() + 10_000;
    while (!during && Date.now() < deadline) await new Promise((r) => setTimeout(r, 5));
    expect(during).toEqual({ threads: 1, index: 1, releases: 0 });
    finish();
    await daemon.queue.onIdle();
    expect(clock.delays()).toEqual([60_000]);
    expect(collections).toBe(0);
    clock.fireAll();
    expect(seen!.releases).toBe(1);
    // What was let go is collected once the threads have ended, not whenever V8 would
    // (runs/heap-collect.ts).
    // The threads' exit is the machine's to schedule: a roomy deadline, not vi.waitFor's 1 s.
    await vi.waitFor(() => expect(collections).toBe(1), { timeout: 15_000 });
    expect(callerReleases).toBe(1);
    expect(seen!.search.threads).toBe(0);
    expect(seen!.pastSummaries.size).toBe(0);
  });
});

describe('the garbage of a catch-up scan', () => {
  it('is collected after a scan that leaves nothing to run, not after one that queues a run', async () => {
    let collections = 0;
    let finish!: () => void;
    const finished = new Promise<void>((r) => (finish = r));
    let started = false;
    const pipeline: PipelineFns = {
      async summarize(_deps, meetingPath) {
        started = true;
        await finished;
        return { runId: 'r', status: 'done', meetingPath };
      },
      retry: async (_deps, summaryPath) => ({ runId: 'r', status: 'done', summaryPath }),
    };
    const fs = memoryFs({
      'Meetings/A.md': meetingNote('A', contextAndSummaryLinks('A')),
      'Meetings/Transcripts/A.md': transcriptNote('A', 'transcribing'),
    });
    daemon = await startQuietDaemon(fs, pipeline, { collectGarbage: () => collections++ });
    await daemon.startupScan;
    expect(collections).toBe(1);
    await fs.writeFile('/vault/Meetings/Transcripts/A.md', transcriptNote('A', 'finished'));
    const scan = await daemon.catchUp(false);
    expect(scan.jobs).toHaveLength(1);
    // The run that follows is what the idle release collects after.
    expect(collections).toBe(1);
    await vi.waitFor(() => expect(started).toBe(true));
    finish();
    await daemon.queue.onIdle();
  });
});

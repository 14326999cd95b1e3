import { describe, expect, it } from 'vitest';
import { type Job, type JobResult, type QueuedAs, RunQueue } from '../../../src/daemon/runs/queue.js';
import { silentLogger } from '../../../src/log.js';

interface Call {
  job: Job;
  signal: AbortSignal;
  queued: QueuedAs;
  finish(result?: JobResult): void;
}

/** A runner whose runs end when the test says so. */
function controlledRunner() {
  const calls: Call[] = [];
  let active = 0;
  let maxActive = 0;
  const waiters: (() => void)[] = [];
  const run = (job: Job, signal: AbortSignal, _stopWaiting: AbortSignal, queued: QueuedAs) =>
    new Promise<JobResult>((resolve) => {
      active++;
      maxActive = Math.max(maxActive, active);
      calls.push({
        job,
        signal,
        queued,
        finish: (result = { status: 'done' }) => {
          active--;
          resolve(result);
        },
      });
      for (const w of waiters.splice(0)) w();
    });
  return {
    run,
    calls,
    get maxActive() {
      return maxActive;
    },
    /** Resolves once `n` runs have started. */
    async started(n: number) {
      while (calls.length < n) await new Promise<void>((r) => waiters.push(r));
    },
  };
}

const job = (key: string, kind: Job['kind'] = 'summarize', trigger = 'transcript'): Job => ({
  key,
  kind,
  target: kind === 'retry' ? `${key}-summary` : key,
  trigger,
});

const flush = () => new Promise((r) => setImmediate(r));

describe('run queue', () => {
  it('runs at most MaxConcurrentSummaries at once and every job eventually', async () => {
    const runner = controlledRunner();
    const q = new RunQueue({ concurrency: 2, run: runner.run, log: silentLogger });
    for (let i = 0; i < 5; i++) expect(q.enqueue(job(`m${i}`))).toBe('queued');
    await runner.started(2);
    expect(q.size).toEqual({ pending: 3, running: 2 });
    for (let i = 0; i < 5; i++) {
      await runner.started(i + 1);
      runner.calls[i]!.finish();
    }
    await q.onIdle();
    expect(runner.calls.map((c) => c.job.key)).toEqual(['m0', 'm1', 'm2', 'm3', 'm4']);
    expect(runner.maxActive).toBe(2);
  });

  it('never runs one meeting twice at once: a trigger while running becomes one follow-up', async () => {
    const runner = controlledRunner();
    const q = new RunQueue({ concurrency: 3, run: runner.run, log: silentLogger });
    q.enqueue(job('m'));
    await runner.started(1);
    expect(q.enqueue(job('m'))).toBe('follow-up');
    expect(q.enqueue(job('m'))).toBe('follow-up');
    expect(q.enqueue(job('m'))).toBe('follow-up');
    await flush();
    expect(runner.calls).toHaveLength(1);
    expect(q.status().running[0]!.followUp).toBe(true);
    runner.calls[0]!.finish();
    await runner.started(2);
    runner.calls[1]!.finish();
    await q.onIdle();
    expect(runner.calls).toHaveLength(2);
    expect(runner.maxActive).toBe(1);
    // The runner is told which run waited for another (job-runner.ts skips a stale retry).
    expect(runner.calls.map((c) => c.queued)).toEqual([{ afterRun: false }, { afterRun: true }]);
    q.enqueue(job('m'));
    await runner.started(3);
    expect(runner.calls[2]!.queued).toEqual({ afterRun: false });
    runner.calls[2]!.finish();
    await q.onIdle();
  });

  it('a second trigger for a waiting meeting merges into it', async () => {
    const runner = controlledRunner();
    const q = new RunQueue({ concurrency: 1, run: runner.run, log: silentLogger });
    q.enqueue(job('a'));
    expect(q.enqueue(job('b'))).toBe('queued');
    expect(q.enqueue(job('b'))).toBe('merged');
    expect(q.size.pending).toBe(1);
    runner.calls[0]!.finish();
    await runner.started(2);
    runner.calls[1]!.finish();
    await q.onIdle();
    expect(runner.calls.map((c) => c.job.key)).toEqual(['a', 'b']);
  });

  it('a retry merged into a waiting summarize wins (it is the stronger request)', async () => {
    const runner = controlledRunner();
    const q = new RunQueue({ concurrency: 1, run: runner.run, log: silentLogger });
    q.enqueue(job('a'));
    q.enqueue(job('b'));
    q.enqueue(job('b', 'retry', 'link'));
    runner.calls[0]!.finish();
    await runner.started(2);
    expect(runner.calls[1]!.job).toMatchObject({ key: 'b', kind: 'retry', trigger: 'link' });
    runner.calls[1]!.finish();
    await q.onIdle();
  });

  it('a runner that throws is recorded as failed and the queue goes on', async () => {
    const seen: string[] = [];
    const q = new RunQueue({
      concurrency: 1,
      log: silentLogger,
      run: async (j) => {
        seen.push(j.key);
        if (j.key === 'bad') throw new Error('boom');
        return { status: 'done' };
      },
    });
    q.enqueue(job('bad'));
    q.enqueue(job('good'));
    await q.onIdle();
    expect(seen).toEqual(['bad', 'good']);
    const recent = q.status().recent;
    expect(recent.map((r) => [r.key, r.status])).toEqual([
      ['good', 'done'],
      ['bad', 'failed'],
    ]);
    expect(recent[1]!.message).toBe('boom');
  });

  it('stop: no new intake, running runs finish within the grace period, waiting jobs stay unstarted', async () => {
    const runner = controlledRunner();
    const q = new RunQueue({ concurrency: 1, run: runner.run, log: silentLogger });
    q.enqueue(job('a'));
    q.enqueue(job('b'));
    await runner.started(1);
    const stopping = q.stop(60_000);
    expect(q.enqueue(job('c'))).toBe('stopped');
    runner.calls[0]!.finish();
    await expect(stopping).resolves.toEqual({ finished: 1, aborted: 0, leftPending: 1 });
    expect(runner.calls).toHaveLength(1);
    expect(runner.calls[0]!.signal.aborted).toBe(false);
  });

  it('stop: a run still going after the grace period has its signal aborted', async () => {
    const signals: AbortSignal[] = [];
    const q = new RunQueue({
      concurrency: 2,
      log: silentLogger,
      run: (_j, signal) =>
        new Promise<JobResult>((resolve) => {
          signals.push(signal);
          signal.addEventListener('abort', () => resolve({ status: 'failed', message: 'aborted' }));
        }),
    });
    q.enqueue(job('a'));
    q.enqueue(job('b'));
    await expect(q.stop(1)).resolves.toEqual({ finished: 0, aborted: 2, leftPending: 0 });
    expect(signals.every((s) => s.aborted)).toBe(true);
    expect(q.size.running).toBe(0);
  });

  it('stop: a run only waiting to retry ends at once (stopWaiting) and is kept to resume; a working run gets the grace period', async () => {
    const stopWaitingSeen: AbortSignal[] = [];
    let finishWorking!: () => void;
    const q = new RunQueue({
      concurrency: 2,
      log: silentLogger,
      run: (j, _signal, stopWaiting) =>
        new Promise<JobResult>((resolve) => {
          stopWaitingSeen.push(stopWaiting);
          if (j.key === 'waiting') stopWaiting.addEventListener('abort', () => resolve({ status: 'failed', aborted: true }));
          else finishWorking = () => resolve({ status: 'done' });
        }),
    });
    q.enqueue(job('waiting'));
    q.enqueue(job('working'));
    q.enqueue(job('queued'));
    await flush();
    expect(stopWaitingSeen).toHaveLength(2);
    expect(stopWaitingSeen.some((s) => s.aborted)).toBe(false);
    const stopping = q.stop(60_000);
    await flush();
    // The waiting run is gone at once; the working one is still in its grace period.
    expect(q.status().running.map((r) => r.key)).toEqual(['working']);
    finishWorking();
    await expect(stopping).resolves.toEqual({ finished: 1, aborted: 1, leftPending: 1 });
    expect(q.unfinished().map((j) => j.key)).toEqual(['waiting', 'queued']);
  });

  it('status lists waiting, running and recent results', async () => {
    const runner = controlledRunner();
    const q = new RunQueue({ concurrency: 1, run: runner.run, log: silentLogger, recentLimit: 1 });
    q.enqueue(job('a'));
    q.enqueue(job('b', 'retry', 'api'));
    let status = q.status();
    expect(status.running.map((r) => r.key)).toEqual(['a']);
    expect(status.pending.map((p) => [p.key, p.kind, p.trigger])).toEqual([['b', 'retry', 'api']]);
    runner.calls[0]!.finish({ status: 'failed', message: 'endpoint down' });
    await runner.started(2);
    runner.calls[1]!.finish();
    await q.onIdle();
    status = q.status();
    expect(status.recent).toHaveLength(1);
    expect(status.recent[0]).toMatchObject({ key: 'b', status: 'done' });
  });

  it('rejects a concurrency below 1', () => {
    expect(() => new RunQueue({ concurrency: 0, run: async () => ({ status: 'done' }), log: silentLogger })).toThrow(
      RangeError,
    );
  });
});

import { EventEmitter } from 'node:events';
import { afterEach, describe, expect, it, vi } from 'vitest';
import type { EndpointGate } from '../../../src/agent/model/retry.js';
import type { RunHooks } from '../../../src/daemon/runs/job-runner.js';
import type { RunPlace } from '../../../src/daemon/runs/run-place.js';
import { ABORT_ANSWER_MS, type RunChild, STOP_EXIT_GRACE_MS } from '../../../src/daemon/runs/run-process/child-process.js';
import { runsInRunProcess } from '../../../src/daemon/runs/run-process/host.js';
import type { FromRunProcess, ToRunProcess } from '../../../src/daemon/runs/run-process/messages.js';
import { systemClock } from '../../../src/clock.js';
import { EndpointWaiter } from '../../../src/agent/model/endpoint-wait.js';
import { gateOnBoard } from '../../../src/daemon/runs/endpoint-gate.js';
import { RunBoard } from '../../../src/daemon/runs/run-board.js';
import { RunHistory } from '../../../src/daemon/runs/run-history.js';
import { silentLogger } from '../../../src/log.js';
import type { RunOutcome } from '../../../src/meeting/pipeline.js';
import type { IdleTimers } from '../../../src/tools/binding/run-caches.js';
import { capturedLogger } from '../../helpers/captured-log.js';
import { memoryFs, memoryVault, testConfig } from '../../helpers/memfs.js';

/**
 * The daemon's side of the run process (docs/design.md §8), with a stand-in child: what it is
 * told, what it says back, when it is started and ended. The real child runs in
 * test/integration/run-process.test.ts.
 */

class FakeChild extends EventEmitter implements RunChild {
  static count = 0;
  readonly pid = 1000 + ++FakeChild.count;
  readonly sent: ToRunProcess[] = [];
  killed: NodeJS.Signals[] = [];
  /** Frozen (SIGSTOP) or busy: reads nothing, ends only when killed. */
  frozen = false;

  send(message: ToRunProcess, callback?: (err: Error | null) => void): boolean {
    this.sent.push(structuredClone(message));
    callback?.(null);
    // A real run process ends once told to (after letting go of its threads).
    if (message.type === 'exit' && !this.frozen) queueMicrotask(() => this.emit('exit', 0, null));
    return true;
  }

  kill(signal: NodeJS.Signals = 'SIGTERM'): boolean {
    this.killed.push(signal);
    queueMicrotask(() => this.emit('exit', null, signal));
    return true;
  }

  say(message: FromRunProcess): void {
    this.emit('message', message);
  }

  runs(): Extract<ToRunProcess, { type: 'run' }>[] {
    return this.sent.filter((m): m is Extract<ToRunProcess, { type: 'run' }> => m.type === 'run');
  }
}

function manualTimers() {
  const pending = new Map<number, () => void>();
  let next = 1;
  const timers: IdleTimers = {
    setTimeout: (fn) => (pending.set(next, fn), next++),
    clearTimeout: (handle) => void pending.delete(handle as number),
  };
  return {
    timers,
    get pending() {
      return pending.size;
    },
    fireAll() {
      const due = [...pending.values()];
      pending.clear();
      for (const fn of due) fn();
    },
  };
}

async function hostWith(options: { onRelease?: () => void; frozen?: boolean; spawnFails?: () => boolean } = {}) {
  const children: FakeChild[] = [];
  const clock = manualTimers();
  const { log, lines } = capturedLogger('debug');
  const place: RunPlace = await runsInRunProcess(testConfig({ Http: { Enabled: false } }), {
    log,
    clock: systemClock,
    fs: memoryFs(),
    caches: { timers: clock.timers, ...(options.onRelease && { onRelease: options.onRelease }) },
    spawn: () => {
      // fork() throws at once for some errors (ENOMEM, not EAGAIN or ENOENT, which come as 'error').
      if (options.spawnFails?.()) throw Object.assign(new Error('spawn ENOMEM'), { code: 'ENOMEM' });
      const child = new FakeChild();
      child.frozen = options.frozen ?? false;
      children.push(child);
      return child;
    },
  });
  return { place, children, clock, lines };
}

const hooks = (over: Partial<RunHooks> = {}): RunHooks & { progress: unknown[] } => {
  const progress: unknown[] = [];
  return { progress, onProgress: (runId, event) => progress.push({ runId, event }), ...over };
};

const done = (runId: string): RunOutcome => ({ runId, status: 'done', summaryPath: '/vault/Meetings/Summaries/A.md' });

describe('the run process as the daemon holds it', () => {
  it('is started for the first run, told the configuration first, shared by a second run; its progress, writes and log lines reach the daemon', async () => {
    const { place, children, lines } = await hostWith();
    const writes: string[] = [];
    place.onWrite((p) => writes.push(p));
    const h = hooks();
    const first = place.runs.summarize(h, '/vault/Meetings/A.md', { trigger: 'transcript' });
    const second = place.runs.retry(hooks(), '/vault/Meetings/Summaries/B.md', {});
    expect(children).toHaveLength(1);
    const child = children[0]!;
    expect(child.sent[0]).toMatchObject({ type: 'start', config: { settings: { Http: { Enabled: false } } } });
    // The daemon's own token (generated, kept in the vault): the retry links the run writes are the daemon's.
    expect(place.base.token).toMatch(/^[\w-]{20,}$/);
    expect(child.sent[0]).toMatchObject({ config: { settings: { Http: { Token: place.base.token } } } });
    expect(child.runs().map((r) => [r.kind, r.path, r.trigger])).toEqual([
      ['summarize', '/vault/Meetings/A.md', 'transcript'],
      ['retry', '/vault/Meetings/Summaries/B.md', undefined],
    ]);
    const [a, b] = child.runs();
    child.say({ type: 'progress', id: a!.id, runId: 'r1', event: { kind: 'turn', turn: 1, maxTurns: 40 } });
    child.say({ type: 'write', path: '/vault/Meetings/Summaries/A.md', content: '---\nstatus: done\n---\n' });
    child.say({ type: 'log', line: JSON.stringify({ level: 'warn', time: '2026-01-01T00:00:00.000Z', pid: child.pid, runId: 'r1', msg: 'from the run' }) });
    child.say({ type: 'log', line: 'not json' });
    const err = { type: 'ModelError', message: 'HTTP 400 from the endpoint', stack: 'ModelError: HTTP 400…', kind: 'http', status: 400 };
    child.say({ type: 'log', line: JSON.stringify({ level: 'error', time: '2026-01-01T00:00:00.000Z', pid: child.pid, err, msg: 'run failed' }) });
    child.say({ type: 'outcome', id: a!.id, outcome: done('r1') });
    child.say({ type: 'outcome', id: b!.id, outcome: done('r2') });
    expect(await first).toEqual(done('r1'));
    expect(await second).toEqual(done('r2'));
    expect(h.progress).toEqual([{ runId: 'r1', event: { kind: 'turn', turn: 1, maxTurns: 40 } }]);
    expect(writes).toEqual(['/vault/Meetings/Summaries/A.md']);
    const relogged = lines.find((l) => l.msg === 'from the run');
    // One log, one writer: the daemon's pid and time, the run's own fields.
    expect(relogged).toMatchObject({ level: 'warn', runId: 'r1', pid: process.pid, childPid: child.pid });
    expect(relogged?.time).not.toBe('2026-01-01T00:00:00.000Z');
    expect(lines.some((l) => l.msg === 'the run process logged a line that is not JSON' && l.line === 'not json')).toBe(true);
    // Its error as the run process serialized it: not re-serialized into a plain "Object".
    expect(lines.find((l) => l.msg === 'run failed')).toMatchObject({ level: 'error', err });
    expect(lines.some((l) => l.msg === `run process started (pid ${child.pid})`)).toBe(true);
  });

  it('a job about to begin starts a run process and warms it when none is up, before the run is asked for; one already up is told nothing', async () => {
    const { place, children } = await hostWith();
    const held = place.hold();
    // What a transcript seen finishing asks before it reads the note (runs/finishing-ahead.ts).
    expect(place.needsStart()).toBe(true);
    place.startAhead();
    expect(place.needsStart()).toBe(false);
    expect(children).toHaveLength(1);
    const child = children[0]!;
    expect(child.sent.map((m) => m.type)).toEqual(['start', 'warm']);
    // The run that follows goes to that process; the next job's start ahead adds nothing.
    const run = place.runs.summarize(hooks(), '/vault/Meetings/A.md', { trigger: 'transcript' });
    place.startAhead();
    expect(children).toHaveLength(1);
    expect(child.sent.map((m) => m.type)).toEqual(['start', 'warm', 'run']);
    child.say({ type: 'outcome', id: child.runs()[0]!.id, outcome: done('r1') });
    expect(await run).toEqual(done('r1'));
    held();
    await place.close();
    // Stopping: nothing is started any more.
    expect(place.needsStart()).toBe(false);
    place.startAhead();
    expect(children).toHaveLength(1);
  });

  it('a start ahead whose fork throws (ENOMEM) throws nothing at the job that asked: the run tries the start itself and fails it, and the hold is not lost', async () => {
    let fail = true;
    const { place, children, lines } = await hostWith({ spawnFails: () => fail });
    const held = place.hold();
    // The daemon's queue calls this before its try/finally: a throw here would leak the hold.
    expect(() => place.startAhead()).not.toThrow();
    expect(children).toHaveLength(0);
    expect(lines.some((l) => l.level === 'warn' && typeof l.msg === 'string' && l.msg.includes('could not start the run process ahead'))).toBe(true);
    fail = false;
    const run = place.runs.summarize(hooks(), '/vault/Meetings/A.md', { trigger: 'transcript' });
    expect(children).toHaveLength(1);
    children[0]!.say({ type: 'outcome', id: children[0]!.runs()[0]!.id, outcome: done('r1') });
    expect(await run).toEqual(done('r1'));
    held();
    await place.close();
  });

  it('ends it one idle period after the last run, says so once it has exited, and starts a new one for the next run; a run in between keeps it', async () => {
    const released: number[] = [];
    const { place, children, clock } = await hostWith({ onRelease: () => released.push(children[0]!.listenerCount('exit')) });
    const hold = place.hold();
    const run = place.runs.summarize(hooks(), '/vault/Meetings/A.md', {});
    const child = children[0]!;
    child.say({ type: 'outcome', id: child.runs()[0]!.id, outcome: done('r1') });
    await run;
    hold();
    expect(clock.pending).toBe(1);
    // Another run before the idle period is over: the timer is off, the process stays.
    const again = place.hold();
    expect(clock.pending).toBe(0);
    again();
    clock.fireAll();
    expect(child.sent.at(-1)).toEqual({ type: 'exit' });
    await new Promise<void>((resolve) => child.once('exit', () => setImmediate(resolve)));
    expect(released).toHaveLength(1);

    const next = place.runs.summarize(hooks(), '/vault/Meetings/C.md', {});
    expect(children).toHaveLength(2);
    const second = children[1]!;
    second.say({ type: 'outcome', id: second.runs()[0]!.id, outcome: done('r3') });
    expect(await next).toEqual(done('r3'));
    await place.close();
    expect(second.sent.at(-1)).toEqual({ type: 'exit' });
  });

  it('a job that comes while the idle process is still ending gets a new process, and the release is not announced while that one runs', async () => {
    let released = 0;
    const { place, children, clock } = await hostWith({ frozen: true, onRelease: () => released++ });
    const run = place.runs.summarize(hooks(), '/vault/Meetings/A.md', {});
    const first = children[0]!;
    first.say({ type: 'outcome', id: first.runs()[0]!.id, outcome: done('r1') });
    await run;
    place.hold()();
    clock.fireAll();
    expect(first.sent.at(-1)).toEqual({ type: 'exit' });
    // 'exit' is sent, the process has not ended yet: the next job does not go to it.
    const hold = place.hold();
    const next = place.runs.summarize(hooks(), '/vault/Meetings/B.md', {});
    expect(children).toHaveLength(2);
    expect(first.runs()).toHaveLength(1);
    first.emit('exit', 0, null);
    await new Promise((resolve) => setImmediate(resolve));
    expect(released).toBe(0);
    const second = children[1]!;
    second.say({ type: 'outcome', id: second.runs()[0]!.id, outcome: done('r2') });
    expect(await next).toEqual(done('r2'));
    hold();
    second.frozen = false;
    clock.fireAll();
    await new Promise((resolve) => second.once('exit', () => setImmediate(resolve)));
    expect(released).toBe(1);
  });

  it('a run process that dies under a run fails that run with the reason, for catch-up to run again; the next run gets a new process', async () => {
    const { place, children } = await hostWith();
    const h = hooks();
    const run = place.runs.summarize(h, '/vault/Meetings/A.md', {});
    const child = children[0]!;
    child.say({ type: 'progress', id: child.runs()[0]!.id, runId: 'r9', event: { kind: 'turn', turn: 2, maxTurns: 40 } });
    child.emit('exit', null, 'SIGKILL');
    expect(await run).toEqual({
      runId: 'r9',
      status: 'failed',
      error: 'the run process was ended by SIGKILL before the run ended',
      reportProblem: 'the run process ended, so no failure report was written',
    });
    void place.runs.summarize(hooks(), '/vault/Meetings/B.md', {});
    expect(children).toHaveLength(2);
  });

  it('a run process that dies leaves no temporary file of a write it had begun; those of live writers stay', async () => {
    const { place, children } = await hostWith();
    const run = place.runs.summarize(hooks(), '/vault/Meetings/A.md', {});
    const child = children[0]!;
    // A pid no system gives (above the largest pid_max): the dead child's, for the sweep.
    Object.defineProperty(child, 'pid', { value: 2 ** 22 + 12345 });
    const fs = place.base.vault.fs;
    await fs.mkdir('/vault/Meetings/Summaries', { recursive: true });
    const dead = `/vault/Meetings/Summaries/.A.md.${child.pid}-abc123.ma-tmp`;
    const live = `/vault/Meetings/Summaries/.B.md.${process.pid}-def456.ma-tmp`;
    await fs.writeFile(dead, 'half');
    await fs.writeFile(live, 'in flight');
    child.emit('exit', null, 'SIGKILL');
    await run;
    await vi.waitFor(async () => expect(await fs.stat(dead).then(() => true, () => false)).toBe(false));
    expect(Buffer.from(await fs.readFile(live)).toString('utf8')).toBe('in flight');
  });

  it('a run process that dies between runs is in the log; one told to end is not', async () => {
    const { place, children, lines, clock } = await hostWith();
    const first = place.runs.summarize(hooks(), '/vault/Meetings/A.md', {});
    children[0]!.say({ type: 'outcome', id: children[0]!.runs()[0]!.id, outcome: done('r1') });
    await first;
    children[0]!.emit('exit', null, 'SIGKILL');
    expect(lines.filter((l) => l.level === 'warn' && l.msg === 'the run process was ended by SIGKILL between runs')).toHaveLength(1);

    const second = place.runs.summarize(hooks(), '/vault/Meetings/B.md', {});
    children[1]!.say({ type: 'outcome', id: children[1]!.runs()[0]!.id, outcome: done('r2') });
    await second;
    place.hold()();
    clock.fireAll();
    await new Promise((resolve) => children[1]!.once('exit', () => setImmediate(resolve)));
    expect(lines.filter((l) => typeof l.msg === 'string' && l.msg.endsWith('between runs'))).toHaveLength(1);
  });

  it('passes the run’s abort and stop-waiting on, and answers its endpoint waits with the daemon’s gate', async () => {
    const { place, children } = await hostWith();
    let up!: (waited: boolean) => void;
    const asked: AbortSignal[] = [];
    const gate: { -readonly [K in keyof EndpointGate]: EndpointGate[K] } = {
      downSince: new Date('2026-12-01T10:00:00Z'),
      waitUntilUp: (signal) => {
        asked.push(signal!);
        return new Promise<boolean>((resolve) => (up = resolve));
      },
    };
    const abort = new AbortController();
    const stopWaiting = new AbortController();
    const run = place.runs.summarize(hooks({ endpoint: gate }), '/vault/Meetings/A.md', { signal: abort.signal, stopWaiting: stopWaiting.signal });
    const child = children[0]!;
    const { id, endpointDownSince } = child.runs()[0]!;
    expect(endpointDownSince).toBe('2026-12-01T10:00:00.000Z');
    child.say({ type: 'endpoint-wait', id, wait: 7 });
    expect(asked).toHaveLength(1);
    await Promise.resolve();
    expect(child.sent.at(-1)).toEqual({ type: 'endpoint-state', downSince: '2026-12-01T10:00:00.000Z' });
    gate.downSince = undefined;
    up(true);
    await new Promise((resolve) => setImmediate(resolve));
    expect(child.sent.slice(-2)).toEqual([
      { type: 'endpoint-up', wait: 7, waited: true },
      { type: 'endpoint-state', downSince: undefined },
    ]);
    stopWaiting.abort();
    abort.abort();
    expect(child.sent.slice(-2)).toEqual([
      { type: 'stop-waiting', id },
      { type: 'abort', id },
    ]);
    // A wait still open when the run ends is ended with it.
    child.say({ type: 'endpoint-wait', id, wait: 8 });
    child.say({ type: 'outcome', id, outcome: { runId: 'r1', status: 'failed', aborted: true } });
    await run;
    expect(asked[1]?.aborted).toBe(true);
  });

  it('tells the run process the moment the daemon’s wait finds the endpoint down, so its other runs join the wait before asking', async () => {
    const { place, children } = await hostWith();
    // Each probe answered by the test: false, nothing answered; true, the endpoint is back.
    const answers: ((answered: boolean) => void)[] = [];
    let resume!: () => void;
    const waiter = new EndpointWaiter({
      url: 'http://127.0.0.1:9/v1/models',
      probe: () => new Promise<boolean>((resolve) => answers.push(resolve)),
      log: silentLogger,
      clock: () => new Date('2026-12-01T10:00:00Z'),
      sleep: () => new Promise<void>((resolve) => (resume = resolve)),
    });
    const board = new RunBoard(new RunHistory(memoryVault(), silentLogger));
    board.start('/vault/Meetings/A.md', { meeting: 'Meetings/A.md', kind: 'summarize', trigger: 'transcript', startedAt: '2026-12-01T09:59:00Z' });
    const run = place.runs.summarize(hooks({ endpoint: gateOnBoard(waiter, board, '/vault/Meetings/A.md') }), '/vault/Meetings/A.md', {});
    const child = children[0]!;
    const { id } = child.runs()[0]!;
    child.say({ type: 'endpoint-wait', id, wait: 1 });
    // Not known when the wait begins: its first probe is still out.
    await vi.waitFor(() => expect(child.sent.at(-1)).toEqual({ type: 'endpoint-state', downSince: undefined }));
    answers[0]!(false);
    // Known once that probe got no answer, while the wait goes on.
    await vi.waitFor(() => expect(child.sent.at(-1)).toEqual({ type: 'endpoint-state', downSince: '2026-12-01T10:00:00.000Z' }));
    resume();
    await vi.waitFor(() => expect(answers).toHaveLength(2));
    answers[1]!(true);
    await vi.waitFor(() => expect(child.sent.at(-1)).toEqual({ type: 'endpoint-state', downSince: undefined }));
    expect(child.sent).toContainEqual({ type: 'endpoint-up', wait: 1, waited: true });
    child.say({ type: 'outcome', id, outcome: done('r1') });
    await run;
  });

  it('forwards the watcher’s trust and the daemon’s own writes to the run process’s caches; the stop ends the process only after the runs that hold it', async () => {
    const { place, children } = await hostWith();
    place.watch.trust(['/vault/Projects', '/vault/Meetings/Summaries'], { maxTrustMs: 1000 });
    const hold = place.hold();
    const run = place.runs.summarize(hooks(), '/vault/Meetings/A.md', {});
    const child = children[0]!;
    expect(child.sent[0]).toMatchObject({ type: 'start', trust: { folders: ['/vault/Projects', '/vault/Meetings/Summaries'], maxTrustMs: 1000 } });
    await place.base.vault.write('/vault/Projects/Alpha/notes.md', 'x\n');
    expect(child.sent).toContainEqual({ type: 'invalidate', path: '/vault/Projects/Alpha/notes.md' });
    place.watch.stopTrusting();
    expect(child.sent.at(-1)).toEqual({ type: 'trust', trust: undefined });

    let closed = false;
    const closing = place.close().then(() => (closed = true));
    // Closed again (a start that failed closes what it opened): the same close, still ended by the run.
    const again = place.close();
    await new Promise((resolve) => setImmediate(resolve));
    expect(closed).toBe(false);
    expect(child.sent.some((m) => m.type === 'exit')).toBe(false);
    child.say({ type: 'outcome', id: child.runs()[0]!.id, outcome: done('r1') });
    await run;
    hold();
    await closing;
    await again;
    expect(child.sent.at(-1)).toEqual({ type: 'exit' });
  });
});

describe('a run process that does not answer', () => {
  afterEach(() => {
    vi.useRealTimers();
  });

  it('is killed when an aborted run has not ended soon after the abort: the run is stopped unfinished (resumed at next start), not a failure', async () => {
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout'] });
    const { place, children, lines } = await hostWith({ frozen: true });
    const abort = new AbortController();
    const run = place.runs.summarize(hooks(), '/vault/Meetings/A.md', { signal: abort.signal });
    const child = children[0]!;
    child.say({ type: 'progress', id: child.runs()[0]!.id, runId: 'r5', event: { kind: 'turn', turn: 1, maxTurns: 40 } });
    abort.abort();
    expect(child.sent.at(-1)).toEqual({ type: 'abort', id: child.runs()[0]!.id });
    vi.advanceTimersByTime(ABORT_ANSWER_MS - 1);
    expect(child.killed).toEqual([]);
    vi.advanceTimersByTime(1);
    expect(child.killed).toEqual(['SIGKILL']);
    expect(await run).toEqual({ runId: 'r5', status: 'failed', aborted: true, error: 'the run process was ended by SIGKILL after the run was aborted' });
    expect(lines.some((l) => l.level === 'warn' && l.msg === `the run process did not end its aborted run within ${ABORT_ANSWER_MS / 1000} s: killed (pid ${child.pid})`)).toBe(true);
  });

  it('is not killed when the aborted run answers in time', async () => {
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout'] });
    const { place, children } = await hostWith();
    const abort = new AbortController();
    const run = place.runs.summarize(hooks(), '/vault/Meetings/A.md', { signal: abort.signal });
    const child = children[0]!;
    abort.abort();
    child.say({ type: 'outcome', id: child.runs()[0]!.id, outcome: { runId: 'r1', status: 'failed', aborted: true } });
    await run;
    vi.advanceTimersByTime(ABORT_ANSWER_MS * 2);
    expect(child.killed).toEqual([]);
  });

  it('is killed at the stop when it has not ended within the stop’s shorter grace, also when it was already ending after the idle period', async () => {
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout'] });
    const { place, children, clock } = await hostWith({ frozen: true });
    const hold = place.hold();
    const run = place.runs.summarize(hooks(), '/vault/Meetings/A.md', {});
    const child = children[0]!;
    child.say({ type: 'outcome', id: child.runs()[0]!.id, outcome: done('r1') });
    await run;
    hold();
    clock.fireAll();
    expect(child.sent.at(-1)).toEqual({ type: 'exit' });
    let closed = false;
    const closing = place.close().then(() => (closed = true));
    await vi.advanceTimersByTimeAsync(STOP_EXIT_GRACE_MS - 1);
    expect(child.killed).toEqual([]);
    await vi.advanceTimersByTimeAsync(1);
    expect(child.killed).toEqual(['SIGKILL']);
    await closing;
    expect(closed).toBe(true);
  });
});

describe('the run process’s environment', () => {
  it('is the daemon’s without the service files’ small young generation, whatever else NODE_OPTIONS holds', async () => {
    const { runProcessEnv } = await import('../../../src/daemon/runs/run-process/child-process.js');
    expect(runProcessEnv({ PATH: '/bin', NODE_OPTIONS: '--max-semi-space-size=1', MALLOC_ARENA_MAX: '2' })).toEqual({ PATH: '/bin', MALLOC_ARENA_MAX: '2' });
    expect(runProcessEnv({ NODE_OPTIONS: '--max-semi-space-size=1  --enable-source-maps --max-old-space-size=4096' })).toEqual({
      NODE_OPTIONS: '--enable-source-maps --max-old-space-size=4096',
    });
    expect(runProcessEnv({ HOME: '/h' })).toEqual({ HOME: '/h' });
  });
});

import { EventEmitter } from 'node:events';
import { describe, expect, it } from 'vitest';
import { MeetingsInProgress } from '../../../src/daemon/runs/meetings-in-progress.js';
import type { RunChild } from '../../../src/daemon/runs/run-process/child-process.js';
import { runsInRunProcess } from '../../../src/daemon/runs/run-process/host.js';
import type { FromRunProcess, ToRunProcess } from '../../../src/daemon/runs/run-process/messages.js';
import { silentLogger } from '../../../src/log.js';
import type { IdleTimers } from '../../../src/tools/binding/idle-release.js';
import { memoryFs, testConfig } from '../../helpers/memfs.js';

/**
 * A meeting being recorded holds the run process, started and warmed ahead of its run
 * (docs/design.md §8); with none in progress the daemon keeps no run process. The daemon's
 * side of it, with a stand-in child (test/daemon/runs/run-process-host.test.ts).
 */

class FakeChild extends EventEmitter implements RunChild {
  static count = 0;
  readonly pid = 2000 + ++FakeChild.count;
  readonly sent: ToRunProcess[] = [];
  send(message: ToRunProcess, callback?: (err: Error | null) => void): boolean {
    this.sent.push(structuredClone(message));
    callback?.(null);
    if (message.type === 'exit') queueMicrotask(() => this.emit('exit', 0, null));
    return true;
  }
  kill(): boolean {
    queueMicrotask(() => this.emit('exit', null, 'SIGTERM'));
    return true;
  }
  say(message: FromRunProcess): void {
    this.emit('message', message);
  }
  types(): string[] {
    return this.sent.map((m) => m.type);
  }
}

/** Timers fired by hand, each at its time on a clock the test moves. */
function manualTime() {
  let now = 0;
  const pending = new Map<number, { at: number; fn: () => void }>();
  let next = 1;
  const timers: IdleTimers = {
    setTimeout: (fn, ms) => (pending.set(next, { at: now + ms, fn }), next++),
    clearTimeout: (handle) => void pending.delete(handle as number),
  };
  return {
    timers,
    clock: () => new Date(now),
    get pending() {
      return pending.size;
    },
    /** The clock moved on by `ms`; the timers due by then fire. */
    advance(ms: number) {
      now += ms;
      for (const [id, t] of [...pending]) {
        if (t.at > now) continue;
        pending.delete(id);
        t.fn();
      }
    },
  };
}

const IDLE_MS = 60_000;

async function setup() {
  const children: FakeChild[] = [];
  const time = manualTime();
  const place = await runsInRunProcess(testConfig({ Http: { Enabled: false } }), {
    log: silentLogger,
    clock: time.clock,
    fs: memoryFs(),
    caches: { timers: time.timers, idleMs: IDLE_MS },
    spawn: () => {
      const child = new FakeChild();
      children.push(child);
      return child;
    },
  });
  const recording = new MeetingsInProgress({ hold: () => place.hold(), warm: () => place.warm(), clock: time.clock, timers: time.timers, quietMs: 3 * 3_600_000 });
  const exited = (child: FakeChild) => new Promise<void>((resolve) => child.once('exit', () => setImmediate(resolve)));
  return { place, children, time, recording, exited };
}

const T = '/vault/Meetings/Transcripts/2026-12-01 1400 Weekly.md';
const U = '/vault/Meetings/Transcripts/2026-12-01 1400 Design.md';

describe('the run process while a meeting is recorded', () => {
  it('a transcript seen in a recorder’s state starts the run process and warms it; more events of it start nothing more', async () => {
    const { place, children, recording } = await setup();
    recording.seen(T, true);
    expect(children).toHaveLength(1);
    expect(children[0]!.types()).toEqual(['start', 'warm']);
    recording.seen(T, true);
    recording.seen(U, true);
    expect(children).toHaveLength(1);
    expect(children[0]!.types()).toEqual(['start', 'warm']);
    recording.close();
    await place.close();
  });

  it('nothing being recorded: no run process, however long the daemon is idle', async () => {
    const { place, children, time, recording } = await setup();
    // A transcript that is finished, or another note's event, is no meeting in progress.
    recording.seen(T, false);
    time.advance(24 * 3_600_000);
    expect(children).toHaveLength(0);
    expect(recording.holding).toBe(false);
    await place.close();
  });

  it('is kept while a meeting is still recorded, and let go after it: ended one idle period after its transcript is finished', async () => {
    const { place, children, time, recording, exited } = await setup();
    recording.seen(T, true);
    recording.seen(U, true);
    const child = children[0]!;
    // Longer than the idle period: held, the process stays.
    time.advance(2 * IDLE_MS);
    expect(child.types()).not.toContain('exit');
    recording.seen(T, false);
    time.advance(2 * IDLE_MS);
    expect(child.types()).not.toContain('exit');
    // The last meeting finished (or its transcript deleted): the idle release ends it.
    recording.seen(U, false);
    expect(recording.holding).toBe(false);
    const gone = exited(child);
    time.advance(IDLE_MS);
    expect(child.types().at(-1)).toBe('exit');
    await gone;
    expect(children).toHaveLength(1);
    await place.close();
  });

  it('a transcript left in a recorder’s state (a recorder that died) holds it no longer than the quiet period', async () => {
    const { place, children, time, recording, exited } = await setup();
    recording.seen(T, true);
    time.advance(2 * 3_600_000);
    // Written again: its quiet period starts again.
    recording.seen(T, true);
    time.advance(2 * 3_600_000);
    expect(recording.holding).toBe(true);
    const gone = exited(children[0]!);
    time.advance(3_600_000);
    expect(recording.holding).toBe(false);
    expect(recording.size).toBe(0);
    time.advance(IDLE_MS);
    await gone;
    expect(children[0]!.types().at(-1)).toBe('exit');
    await place.close();
  });
});

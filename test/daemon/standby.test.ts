import { describe, expect, it, onTestFinished } from 'vitest';
import { type Daemon, type PipelineFns, startDaemon, StoppedInStandby } from '../../src/daemon/daemon.js';
import { silentLogger } from '../../src/log.js';
import { STALE_BEATS, SETTLE_BEATS } from '../../src/instance/machine-roles.js';
import { setContextState } from '../../src/vault/notes/context.js';
import { readTextIfExists, walkFiles } from '../../src/vault/files/fs.js';
import { waitFor } from '../helpers/daemon-process.js';
import { memoryFs, testConfig } from '../helpers/memfs.js';
import { contextAndSummaryLinks, contextNote, meetingNote, transcriptNote } from '../helpers/notes.js';

/**
 * The daemon on a vault another machine runs (docs/design.md §2, two machines): a standby that
 * writes nothing but its own record and runs nothing, until the other machine falls silent.
 * memfs; the other machine is a record the test beats by hand.
 *
 * The claim judges every heartbeat by the daemon's clock, and here that clock is the test's: it
 * moves one heartbeat at a `step()`, which ends once the laptop has beaten at the new time, and
 * stands still otherwise. On the system clock, a loaded machine that left the process
 * unscheduled for LAPSE_BEATS heartbeats (0.2 s) made the laptop, just active, take its own
 * heartbeat for lapsed and stop its work before catch-up's job ran (issue 37), and could make
 * the standby take the beating desktop for silent; by the test's clock neither happens unless
 * the test moves it so.
 */

const HEARTBEAT_SECONDS = 0.05;
const HEARTBEAT_MS = HEARTBEAT_SECONDS * 1000;
const DESKTOP = '/vault/.meeting-assistant/machines/desktop.json';
const LAPTOP = '/vault/.meeting-assistant/machines/laptop.json';

function setup() {
  const fs = memoryFs({
    '.meeting-assistant/machines/desktop.json': '',
    'Meetings/A.md': meetingNote('A', contextAndSummaryLinks('A')),
    'Meetings/Transcripts/A.md': transcriptNote('A', 'finished'),
    'Meetings/Context/A.md': contextNote('A', 'transcribing'),
  });
  const runs: string[] = [];
  const pipeline: PipelineFns = {
    async summarize(deps, meetingPath) {
      runs.push(meetingPath);
      await setContextState(deps.vault, '/vault/Meetings/Context/A.md', 'finished');
      return { runId: 'r', status: 'done', meetingPath };
    },
    retry: async (_deps, summaryPath) => ({ runId: 'r', status: 'done', summaryPath }),
  };
  let now = Date.parse('2026-12-02T09:00:00Z');
  const clock = () => new Date(now);
  let silent = false;
  // The desktop's daemon: active, beating at every step until `silence()`.
  const beat = () =>
    fs.writeFile(DESKTOP, JSON.stringify({ machine: 'desktop', role: 'active', beatAt: clock().toISOString(), heartbeatMs: HEARTBEAT_MS, pid: 4242, startedAt: 'then' }));
  const config = testConfig({ Http: { Enabled: false }, Daemon: { MachineName: 'Laptop', HeartbeatSeconds: HEARTBEAT_SECONDS } });
  const files = async () => {
    const out: string[] = [];
    await walkFiles(fs, '/vault/.meeting-assistant', {}, (f) => void out.push(f.rel));
    return out.sort();
  };
  const record = async () => JSON.parse((await readTextIfExists(fs, LAPTOP)) ?? '{}') as { role?: string; beatAt?: string };
  const role = async () => (await record()).role;
  /**
   * One heartbeat of both machines: the desktop beats (unless silent), the clock moves on a
   * heartbeat, and the step ends once the laptop's daemon has beaten by the new time (its own
   * timer beats it every HEARTBEAT_MS of real time, however slowly the machine gets to it).
   */
  const step = async () => {
    now += HEARTBEAT_MS;
    if (!silent) await beat();
    const at = clock().toISOString();
    await waitFor(async () => (await record()).beatAt === at, `the laptop's heartbeat at ${at}`);
  };
  return { fs, runs, pipeline, config, clock, beat, step, silence: () => (silent = true), files, role };
}

describe('a standby daemon', () => {
  it('writes nothing but its own record and runs nothing while the other machine beats; a stop ends its wait', async () => {
    const s = setup();
    await s.beat();
    const stop = new AbortController();
    const started = startDaemon(s.config, { log: silentLogger, fs: s.fs, clock: s.clock, watch: () => ({ on: () => undefined, ready: Promise.resolve(), close: async () => undefined }), pipeline: s.pipeline, schedule: false, signal: stop.signal });
    await waitFor(async () => (await s.role()) === 'standby', 'the standby record');
    // Heartbeats of both machines, more than it takes a silent machine to be taken over.
    for (let i = 0; i < 2 * (STALE_BEATS + SETTLE_BEATS); i++) await s.step();
    expect(await s.role()).toBe('standby');
    expect(s.runs).toEqual([]);
    expect(await s.files()).toEqual(['machines/desktop.json', 'machines/laptop.json']);
    stop.abort();
    await expect(started).rejects.toBeInstanceOf(StoppedInStandby);
    expect(await s.role()).toBe('stopped');
  });

  it('takes over once the other machine has fallen silent, then runs what catch-up finds', async () => {
    const s = setup();
    await s.beat();
    let daemon: Daemon | undefined;
    onTestFinished(async () => void (await daemon?.stop('test over')));
    const started = startDaemon(s.config, { log: silentLogger, fs: s.fs, clock: s.clock, watch: () => ({ on: () => undefined, ready: Promise.resolve(), close: async () => undefined }), pipeline: s.pipeline, schedule: false });
    void started.then((d) => (daemon = d));
    await waitFor(async () => (await s.role()) === 'standby', 'the standby record');
    await s.step();
    expect(s.runs).toEqual([]);
    s.silence();
    // (How many heartbeats of silence it takes exactly is vault-claim.test.ts's.) From the
    // takeover on the clock stands still: no heartbeat of the laptop's can lapse.
    for (let i = 0; i < 2 * (STALE_BEATS + SETTLE_BEATS) && (await s.role()) !== 'active'; i++) await s.step();
    expect(await s.role()).toBe('active');
    // Active, the daemon starts its work: the first start in this file loads the runtime's modules
    // (seconds, on a loaded machine, through the test's transform): bounded by the test's timeout only.
    const active = await started;
    // The start-up scan has enqueued what it found once it resolves; idle, that job has run.
    await active.startupScan;
    await active.queue.onIdle();
    expect(active.yielded()).toBe(false);
    expect(s.runs).toEqual(['/vault/Meetings/A.md']);
    expect(active.status().machine).toMatchObject({ machine: 'laptop', role: 'active', activeMachine: 'laptop', others: [{ machine: 'desktop', role: 'active', fresh: false }] });
    expect(await s.role()).toBe('active');
});
});

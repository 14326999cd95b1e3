import { describe, expect, it, onTestFinished } from 'vitest';
import { type Daemon, type PipelineFns, startDaemon, StoppedInStandby } from '../../src/daemon/daemon.js';
import { silentLogger } from '../../src/log.js';
import { setContextState } from '../../src/vault/notes/context.js';
import { readTextIfExists, walkFiles } from '../../src/vault/files/fs.js';
import { memoryFs, testConfig } from '../helpers/memfs.js';
import { contextAndSummaryLinks, contextNote, meetingNote, transcriptNote } from '../helpers/notes.js';

/**
 * The daemon on a vault another machine runs (docs/design.md §2, two machines): a standby that
 * writes nothing but its own record and runs nothing, until the other machine falls silent.
 * memfs; the other machine is a record the test beats by hand.
 */

const HEARTBEAT_SECONDS = 0.05;
const DESKTOP = '/vault/.meeting-assistant/machines/desktop.json';
const LAPTOP = '/vault/.meeting-assistant/machines/laptop.json';

async function until(check: () => boolean | Promise<boolean>, what: string, ms = 10_000): Promise<void> {
  const deadline = Date.now() + ms;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 10));
  }
}

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
  // The desktop's daemon: active, beating every heartbeat until `silence()`.
  const beat = () =>
    fs.writeFile(DESKTOP, JSON.stringify({ machine: 'desktop', role: 'active', beatAt: new Date().toISOString(), heartbeatMs: HEARTBEAT_SECONDS * 1000, pid: 4242, startedAt: 'then' }));
  const timer = setInterval(() => void beat(), HEARTBEAT_SECONDS * 1000);
  onTestFinished(() => clearInterval(timer));
  const config = testConfig({ Http: { Enabled: false }, Daemon: { MachineName: 'Laptop', HeartbeatSeconds: HEARTBEAT_SECONDS } });
  const files = async () => {
    const out: string[] = [];
    await walkFiles(fs, '/vault/.meeting-assistant', {}, (f) => void out.push(f.rel));
    return out.sort();
  };
  const role = async () => (JSON.parse((await readTextIfExists(fs, LAPTOP)) ?? '{}') as { role?: string }).role;
  return { fs, runs, pipeline, config, beat, silence: () => clearInterval(timer), files, role };
}

describe('a standby daemon', () => {
  it('writes nothing but its own record and runs nothing while the other machine beats; a stop ends its wait', async () => {
    const s = setup();
    await s.beat();
    const stop = new AbortController();
    const started = startDaemon(s.config, { log: silentLogger, fs: s.fs, watch: () => ({ on: () => undefined, ready: Promise.resolve(), close: async () => undefined }), pipeline: s.pipeline, schedule: false, signal: stop.signal });
    await until(async () => (await s.role()) === 'standby', 'the standby record');
    // Many heartbeats of both machines.
    const seen = await readTextIfExists(s.fs, LAPTOP);
    await until(async () => (await readTextIfExists(s.fs, LAPTOP)) !== seen, 'a second heartbeat');
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
    const started = startDaemon(s.config, { log: silentLogger, fs: s.fs, watch: () => ({ on: () => undefined, ready: Promise.resolve(), close: async () => undefined }), pipeline: s.pipeline, schedule: false });
    void started.then((d) => (daemon = d));
    await until(async () => (await s.role()) === 'standby', 'the standby record');
    // (How many heartbeats of silence it takes is vault-claim.test.ts's, with a clock of its own.)
    expect(s.runs).toEqual([]);
    s.silence();
    await until(() => daemon !== undefined, 'the takeover');
    await daemon!.startupScan;
    await daemon!.queue.onIdle();
    expect(s.runs).toEqual(['/vault/Meetings/A.md']);
    expect(daemon!.status().machine).toMatchObject({ machine: 'laptop', role: 'active', activeMachine: 'laptop', others: [{ machine: 'desktop', role: 'active', fresh: false }] });
    expect(await s.role()).toBe('active');
  });
});

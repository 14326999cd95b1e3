import { describe, expect, it, onTestFinished } from 'vitest';
import { type Daemon, type PipelineFns, startDaemon, StoppedInStandby } from '../../src/daemon/daemon.js';
import { silentLogger } from '../../src/log.js';
import type { Fs } from '../../src/vault/files/fs.js';
import { readTextIfExists } from '../../src/vault/files/fs.js';
import { waitFor } from '../helpers/daemon-process.js';
import { memoryFs, testConfig } from '../helpers/memfs.js';

/**
 * Whether a vault looks shared (instance/shared-vault.ts: sync tools' markers in the vault and the
 * folders above it, up to the home folder) decides only a first start with no other machine's
 * record (docs/design.md §2, two machines; issue #45 point 1). Every other start is decided by
 * the records, and must neither pay for the look nor wait on it: here the Syncthing marker's
 * stat never answers (a marker on a hung network mount, a link into one). Before, every start
 * looked, and hung there.
 */

const LAPTOP = '/vault/.meeting-assistant/machines/laptop.json';
const DESKTOP = '/vault/.meeting-assistant/machines/desktop.json';
const NOW = Date.parse('2026-12-02T09:00:00Z');
const HEARTBEAT_MS = 50;

const pipeline: PipelineFns = {
  summarize: async (_deps, meetingPath) => ({ runId: 'r', status: 'done', meetingPath }),
  retry: async (_deps, summaryPath) => ({ runId: 'r', status: 'done', summaryPath }),
};

/** `fs`, but a stat of `.stfolder` never answers. */
function hungMarker(fs: Fs): { fs: Fs; looked: () => boolean } {
  let looked = false;
  const proxy = new Proxy(fs, {
    get(target, key, receiver) {
      const value: unknown = Reflect.get(target, key, receiver);
      if (key === 'stat') {
        return (file: string, ...rest: unknown[]) => {
          if (String(file).endsWith('/.stfolder')) {
            looked = true;
            return new Promise(() => undefined);
          }
          return (value as (...a: unknown[]) => unknown).call(target, file, ...rest);
        };
      }
      return typeof value === 'function' ? (value as (...a: unknown[]) => unknown).bind(target) : value;
    },
  });
  return { fs: proxy, looked: () => looked };
}

const record = (machine: string, role: string, beatAt: number) =>
  JSON.stringify({ machine, role, beatAt: new Date(beatAt).toISOString(), heartbeatMs: HEARTBEAT_MS, pid: 4242, startedAt: new Date(NOW - 86_400_000).toISOString() });

function start(files: Record<string, string | null>, signal?: AbortSignal) {
  const memory = memoryFs({ '.stfolder': null, ...files });
  const { fs, looked } = hungMarker(memory);
  const config = testConfig({ Http: { Enabled: false }, Daemon: { MachineName: 'Laptop', HeartbeatSeconds: HEARTBEAT_MS / 1000 } });
  const noWatch = () => ({ on: () => undefined, ready: Promise.resolve(), close: async () => undefined });
  const started = startDaemon(config, { log: silentLogger, fs, clock: () => new Date(NOW), watch: noWatch, pipeline, schedule: false, ...(signal && { signal }) });
  const role = async () => (JSON.parse((await readTextIfExists(memory, LAPTOP)) ?? '{}') as { role?: string; pid?: number }).role;
  const pid = async () => (JSON.parse((await readTextIfExists(memory, LAPTOP)) ?? '{}') as { pid?: number }).pid;
  return { started, role, pid, looked };
}

describe('a start on a vault that looks shared, other than the first', () => {
  it.each([
    ['a restart after a clean stop (its record says `stopped`)', 'stopped'],
    ['a restart after a crash (its record says `active`, a day old)', 'active'],
  ])('%s: active at once, the signs not looked at', async (_, ownRole) => {
    const s = start({ [LAPTOP]: record('laptop', ownRole, NOW - 86_400_000) });
    let daemon: Daemon | undefined;
    onTestFinished(async () => void (await daemon?.stop('test over')));
    void s.started.then((d) => (daemon = d));
    await waitFor(async () => (await s.role()) === 'active' && (await s.pid()) === process.pid, 'its record, active, written by this daemon');
    daemon = await s.started;
    expect(s.looked()).toBe(false);
  });

  it("the other machine's record arrived (active, beating): a standby at once, the signs not looked at", async () => {
    const stop = new AbortController();
    const s = start({ [DESKTOP]: record('desktop', 'active', NOW) }, stop.signal);
    await waitFor(async () => (await s.role()) === 'standby', 'the standby record');
    expect(s.looked()).toBe(false);
    stop.abort();
    await expect(s.started).rejects.toBeInstanceOf(StoppedInStandby);
  });
});

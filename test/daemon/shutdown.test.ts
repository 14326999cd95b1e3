import { describe, expect, it } from 'vitest';
import { silentLogger } from '../../src/log.js';
import { RunQueue } from '../../src/daemon/runs/queue.js';
import { createShutdown } from '../../src/daemon/shutdown.js';
import { Vault } from '../../src/vault/files/vault.js';
import { waitFor } from '../helpers/daemon-process.js';
import { memoryFs, testConfig } from '../helpers/memfs.js';

/** The daemon's stop (src/daemon/shutdown.ts) with the daemon's parts stood in for. */

describe('the stop', () => {
  it('does not wait out the late-write watch of a note written a moment before (Ctrl-C stops at once, docs/design.md §2)', async () => {
    // A watch far longer than any test: the stop returns only if it ends the watch early
    // (one last look at the file), instead of waiting for it as vault.settled() would. The
    // daemon's real watch is 2 s, too short to tell the two apart by anything but a clock.
    const config = testConfig();
    const vault = new Vault(memoryFs({ 'Meetings/Context/A.md': 'state: summarizing\n' }), config.layout, { lateWatchMs: 600_000 });
    await vault.update('/vault/Meetings/Context/A.md', () => 'state: finished\n');
    const queue = new RunQueue({ concurrency: 1, run: () => Promise.reject(new Error('no job runs here')), log: silentLogger });
    const shutdown = createShutdown({
      vault,
      settings: config.settings,
      log: silentLogger,
      queue,
      instance: { release: () => Promise.resolve() },
      begin: () => undefined,
      closeIntake: () => Promise.resolve(),
      settled: () => Promise.resolve(),
    });
    let result: Awaited<ReturnType<typeof shutdown.stop>> | undefined;
    void shutdown.stop('SIGINT').then((r) => (result = r));
    // The deadline only bounds the wait (the watch would hold the stop for 600 s).
    await waitFor(() => result, 'the stop', 20_000);
    expect(result).toEqual({ finished: 0, aborted: 0, leftPending: 0 });
  });
});

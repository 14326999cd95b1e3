import { describe, expect, it } from 'vitest';
import { CatchUp } from '../../../src/daemon/intake/catch-up.js';
import { Intake } from '../../../src/daemon/intake/intake.js';
import { TriggerTracker } from '../../../src/daemon/intake/triggers.js';
import { FileWatch } from '../../../src/tools/cache/file-cache.js';
import { capturedLogger } from '../../helpers/captured-log.js';
import { memoryVault, testConfig } from '../../helpers/memfs.js';
import { contextAndSummaryLinks, meetingNote, transcriptNote } from '../../helpers/notes.js';

describe('a catch-up scan the stop overtakes', () => {
  it('enqueues nothing and says nothing once the stop began during the inbox part', async () => {
    const vault = memoryVault({
      'Meetings/A.md': meetingNote('A', contextAndSummaryLinks('A')),
      'Meetings/Transcripts/A.md': transcriptNote('A', 'finished'),
    });
    const { settings } = testConfig();
    const { log, lines } = capturedLogger();
    let stopping = false;
    const enqueued: string[] = [];
    const intake = new Intake({
      vault,
      settings,
      log,
      tracker: new TriggerTracker({ triggerState: 'finished', kindOf: (p) => vault.kindOf(p), readFacts: () => undefined }),
      catchUp: new CatchUp({ vault, settings, log, isQueued: () => false }),
      enqueue: (job) => (enqueued.push(job.key), 'queued'),
      stopping: () => stopping,
      clock: () => new Date(),
      watch: new FileWatch(vault),
      // The stop begins while the inbox is looked at (Ctrl-C right after start).
      onScan: async () => void (stopping = true),
    });
    const result = await intake.catchUp(true);
    expect(result.jobs).toHaveLength(1);
    expect(enqueued).toEqual([]);
    expect(lines.filter((l) => l.msg.startsWith('catch-up scan'))).toEqual([]);
  });
});

describe('a catch-up scan that throws', () => {
  it('still lets go of what it built (afterScan), and its error reaches the caller', async () => {
    const vault = memoryVault({});
    const { settings } = testConfig();
    const { log } = capturedLogger();
    let after = 0;
    const catchUp = new CatchUp({ vault, settings, log, isQueued: () => false });
    catchUp.scan = () => Promise.reject(new Error('EACCES: the meetings folder cannot be read'));
    const intake = new Intake({
      vault,
      settings,
      log,
      tracker: new TriggerTracker({ triggerState: 'finished', kindOf: (p) => vault.kindOf(p), readFacts: () => undefined }),
      catchUp,
      enqueue: () => 'queued',
      stopping: () => false,
      clock: () => new Date(),
      watch: new FileWatch(vault),
      afterScan: () => void after++,
    });
    await expect(intake.catchUp(false)).rejects.toThrow('EACCES: the meetings folder cannot be read');
    expect(after).toBe(1);
  });
});

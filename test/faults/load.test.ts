import { beforeAll, describe, expect, it } from 'vitest';
import { parseNote } from '../../src/vault/format/frontmatter.js';
import { FaultTally, vaultHealth } from '../helpers/faults.js';
import { type DaemonProcess, startDaemonProcess, waitFor } from '../helpers/daemon-process.js';
import { toolCallsSoFar, toolNamesOf } from '../helpers/scripted-server.js';
import {
  daemonSetup,
  type DaemonSetup,
  daemonTestFile,
  dataOf,
  editProperty,
  meetingNote,
  meetingOfRequest,
  summarizingModel,
  SUMMARY_BODY,
  transcriptNote,
} from '../helpers/daemon-helpers.js';

/**
 * Load: 100 transcripts flipped to finished in one burst (one loop, nothing awaited between
 * the flips) while the real daemon runs with MaxConcurrentSummaries 3 against a fast scripted
 * model. How long the flips take is the machine's, not the daemon's: it is not asserted.
 */

const tally = new FaultTally('load');
const COUNT = 100;
const BOUND = 3;
const names = Array.from({ length: COUNT }, (_, i) => `Load ${String(i + 1).padStart(3, '0')}`);
let setup: DaemonSetup;
let daemon: DaemonProcess;

const file = daemonTestFile('all');

beforeAll(async () => {
  // A little latency per answer, so that three runs really overlap.
  file.server.setFallback(summarizingModel(20));
  setup = await daemonSetup(file.server, { Daemon: { MaxConcurrentSummaries: BOUND }, Logging: { Level: 'info' } });
  for (const name of names) {
    setup.write(`Meetings/${name}.md`, meetingNote(name));
    setup.write(`Meetings/Transcripts/${name}.md`, transcriptNote(name, 'transcribing'));
  }
  daemon = await startDaemonProcess({ configPath: setup.configPath });
  await daemon.waitForLog((l) => typeof l.msg === 'string' && l.msg.startsWith('catch-up scan'), 15_000, 'the start-up scan');
  for (const name of names) editProperty(setup, `Meetings/Transcripts/${name}.md`, 'state', 'transcribing', 'finished');
  // The run process writes the notes, and its log lines ("run started") reach the daemon's
  // log through the daemon, which says each outcome after them: the notes alone may be in
  // before the lines the tests count. So a meeting is through once its outcome is logged.
  await waitFor(
    () => {
      const logged = new Set(daemon.logs.filter((l) => String(l.msg).startsWith('summary written: ')).map((l) => l.meeting));
      return names.every((n) => logged.has(`Meetings/${n}.md`) && dataOf(setup, `Meetings/Context/${n}.md`)?.state === 'finished');
    },
    '100 meetings finished and their outcomes logged',
    80_000,
    100,
  );
}, 120_000);

describe('fault suite: load (100 transcripts finished at once, MaxConcurrentSummaries 3)', () => {
  it('every meeting has its whole summary and state finished', async () => {
    for (const name of names) {
      await tally.check(name, () => {
        const summary = parseNote(setup.read(`Meetings/Summaries/${name}.md`));
        expect(summary.data.status, name).toBe('done');
        expect(summary.body, name).toBe(SUMMARY_BODY);
        expect(dataOf(setup, `Meetings/Context/${name}.md`)?.state, name).toBe('finished');
      });
    }
  });

  it('the concurrency bound held: never more than 3 model requests open, and 3 were used', () => {
    expect(file.server.maxInFlight).toBeLessThanOrEqual(BOUND);
    expect(file.server.maxInFlight).toBe(BOUND);
    const running = daemon.logs.filter((l) => l.msg === 'run started').length;
    expect(running).toBe(COUNT);
  });

  it('no meeting was run twice: one trigger, one run, one first request per meeting', () => {
    const requests = file.server.modelRequests();
    expect(requests).toHaveLength(2 * COUNT);
    const firsts = new Map<string, number>();
    for (const req of requests) {
      // The first request of a run (its project phase, issue 21, starts a conversation of its own).
      if (toolCallsSoFar(req).length > 0 || !toolNamesOf(req).includes('write_summary')) continue;
      const meeting = meetingOfRequest(req)!;
      firsts.set(meeting, (firsts.get(meeting) ?? 0) + 1);
    }
    expect(firsts.size).toBe(COUNT);
    expect([...firsts.values()].every((n) => n === 1)).toBe(true);
    const runs = new Map<string, number>();
    for (const l of daemon.logs.filter((l) => l.msg === 'run started')) runs.set(String(l.meeting), (runs.get(String(l.meeting)) ?? 0) + 1);
    expect(runs.size).toBe(COUNT);
    expect([...runs.values()].every((n) => n === 1)).toBe(true);
    expect(daemon.logs.filter((l) => typeof l.msg === 'string' && l.msg.startsWith('summarize queued'))).toHaveLength(COUNT);
  });

  it('survived the load: 100/100, no half-written note, the daemon still answers', async () => {
    expect(vaultHealth(setup.vault)).toEqual({ temps: [], unparsable: [] });
    expect(await (await fetch(`http://127.0.0.1:${setup.port}/healthz`)).text()).toBe('ok');
    console.log(tally.summary());
    expect(tally.lost).toEqual([]);
    expect(tally.runCount).toBe(COUNT);
    expect(tally.survivedCount).toBe(COUNT);
  });
});

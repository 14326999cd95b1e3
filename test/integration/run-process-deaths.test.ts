import { readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { COLD_RUN_WAIT_MS, type DaemonProcess, waitFor } from '../helpers/daemon-process.js';
import { type DaemonSetup, daemonSetup, daemonTestFile, dataOf, meetingNote, summarizingModel, testScope, transcriptNote } from '../helpers/daemon-helpers.js';

/**
 * Issue 43 point 10 with the real daemon (docs/design.md §3 step 4, §8): a run process that
 * dies under the same meeting every time is not given it for ever, and one that stops answering
 * (SIGSTOP) does not hold the slot for ever; both end in a failure report that says so.
 *
 * The two tests run at once, each with a vault, a scripted endpoint and a daemon of its own.
 */

// Each test ends its own daemon and server (testScope); the vaults go after the file.
daemonTestFile('all');

async function runProcessPid(d: DaemonProcess, after: number): Promise<number> {
  const line = await waitFor(() => d.logs.slice(after).find((l) => l.msg?.startsWith('run process started')), 'the run process to start', COLD_RUN_WAIT_MS);
  return line.childPid as number;
}

async function summarizeNow(s: DaemonSetup, meeting: string): Promise<void> {
  const token = readFileSync(path.join(s.vault, '.meeting-assistant/token'), 'utf8').trim();
  const res = await fetch(`http://127.0.0.1:${s.port}/api/summarize`, { method: 'POST', headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' }, body: JSON.stringify({ meeting }) });
  expect(res.status, await res.text()).toBe(202);
}

describe.concurrent('a run process that dies or stops under a meeting', () => {
  it(`killed at each of three runs of the same meeting: the third death writes a failure report that says so`, async ({ expect, onTestFinished }) => {
    const file = await testScope(onTestFinished);
    let daemon: DaemonProcess | undefined;
    file.server.setFallback({ hang: true });
    const setup = await daemonSetup(file.server);
    try {
      daemon = await file.start({ configPath: setup.configPath });
      setup.write('Meetings/Dies.md', meetingNote('Dies'));
      setup.write('Meetings/Transcripts/Dies.md', transcriptNote('Dies', 'finished'));
      for (let death = 1; death <= 3; death++) {
        const after = daemon.logs.length;
        const seen = file.server.modelRequests().length;
        if (death > 1) await summarizeNow(setup, 'Meetings/Dies.md');
        const pid = await runProcessPid(daemon, after);
        await waitFor(() => file.server.modelRequests().length > seen, 'the run to reach the model', COLD_RUN_WAIT_MS);
        process.kill(pid, 'SIGKILL');
        await daemon.waitForLog((l) => l.msg?.startsWith('meeting failed: Meetings/Dies.md') === true && daemon!.logs.indexOf(l) >= after, 15_000, `death ${death}`);
        if (death < 3) expect(dataOf(setup, 'Meetings/Summaries/Dies.md')).toBeUndefined();
      }
      const report = await waitFor(() => (dataOf(setup, 'Meetings/Summaries/Dies.md')?.status === 'failed' ? setup.read('Meetings/Summaries/Dies.md') : undefined), 'the failure report', 15_000);
      expect(report).toContain('ended during each of the last 3 runs');
      expect(dataOf(setup, 'Meetings/Context/Dies.md')?.state).toBe('error');
    } finally {
      await daemon?.stop();
      daemon = undefined;
    }
  }, 180_000);

  it('stopped (SIGSTOP) in its run: ended after Endpoint.TimeoutSeconds and the margin, the failure report says so, the slot is free', async ({ expect, onTestFinished }) => {
    const file = await testScope(onTestFinished);
    let daemon: DaemonProcess | undefined;
    file.server.setFallback({ hang: true });
    const setup = await daemonSetup(file.server, { Endpoint: { TimeoutSeconds: 3 } });
    let stopped: number | undefined;
    try {
      daemon = await file.start({ configPath: setup.configPath, env: { MEETING_ASSISTANT_STALL_MARGIN_MS: '1500' } });
      const seen = file.server.modelRequests().length;
      setup.write('Meetings/Frozen.md', meetingNote('Frozen'));
      setup.write('Meetings/Transcripts/Frozen.md', transcriptNote('Frozen', 'finished'));
      stopped = await runProcessPid(daemon, 0);
      await waitFor(() => file.server.modelRequests().length > seen, 'the run to reach the model', COLD_RUN_WAIT_MS);
      process.kill(stopped, 'SIGSTOP');
      const report = await waitFor(() => (dataOf(setup, 'Meetings/Summaries/Frozen.md')?.status === 'failed' ? setup.read('Meetings/Summaries/Frozen.md') : undefined), 'the failure report', 30_000);
      expect(report).toContain('made no progress for');
      expect(daemon.logs.some((l) => String(l.msg).includes('made no progress'))).toBe(true);
      // The only slot is free: the next meeting is summarized.
      file.server.setFallback(summarizingModel());
      setup.write('Meetings/Next.md', meetingNote('Next'));
      setup.write('Meetings/Transcripts/Next.md', transcriptNote('Next', 'finished'));
      await waitFor(() => dataOf(setup, 'Meetings/Summaries/Next.md')?.status === 'done', 'the next summary', COLD_RUN_WAIT_MS);
    } finally {
      if (stopped !== undefined) {
        try {
          process.kill(stopped, 'SIGKILL');
        } catch {
          // gone already: the daemon killed it
        }
      }
      await daemon?.stop();
      daemon = undefined;
    }
  }, 120_000);
});

import { describe, expect, it } from 'vitest';
import { parseNote } from '../../src/vault/format/frontmatter.js';
import { startDaemonProcess, waitFor } from '../helpers/daemon-process.js';
import { daemonSetup, daemonTestFile, dataOf, meetingNote, meetingOfRequest, SUMMARY_BODY, transcriptNote } from '../helpers/daemon-helpers.js';
import { projectStepCalls, type RecordedRequest, type Step, toolCallsSoFar } from '../helpers/scripted-server.js';

/**
 * Issue #24 points 2 and 8 against the real daemon (its logger masks the HTTP token, which is
 * where an abort DOMException once killed the run): an endpoint that sends headers and then
 * stalls, one that trickles, and one that sends 40 MB. Each meeting ends in a failure report
 * with the context note `error`, within Endpoint.TimeoutSeconds per attempt.
 */

const file = daemonTestFile('all');
// Long enough to read 32 MB over loopback on a loaded machine; the stall costs it twice.
const TIMEOUT_SECONDS = 3;

const FAULTS: Record<string, Step> = {
  'H01 stall': { stall: {} },
  'H02 trickle': { trickle: { intervalMs: 200 } },
  'H03 oversized': { oversized: { bytes: 40 * 1024 * 1024, announce: true } },
  'H04 oversized, no length': { oversized: { bytes: 40 * 1024 * 1024, announce: false } },
};

/** A meeting whose summary is written, then whose project update stalls (in one conversation or its own phase). */
const PROJECT_STALL = 'H05 project phase stall';

function projectPhaseStall(req: RecordedRequest): Step {
  const calls = toolCallsSoFar(req).map((c) => c.name);
  if (projectStepCalls(req)) return { stall: {} };
  if (!calls.includes('read_transcript')) return { reply: { toolCalls: [{ name: 'read_transcript', arguments: {} }] } };
  return { reply: { toolCalls: [{ name: 'write_summary', arguments: { content: SUMMARY_BODY } }] } };
}

describe('hostile answers, real daemon (Reconnect.Attempts 1, Endpoint.TimeoutSeconds 3)', () => {
  it('a stall, a trickle and a 40 MB answer each end in a failure report; the daemon stays up', async () => {
    const counts = new Map<string, number>();
    file.server.setFallback({
      handler: (req: RecordedRequest): Step => {
        const meeting = meetingOfRequest(req) ?? '';
        counts.set(meeting, (counts.get(meeting) ?? 0) + 1);
        const name = meeting.replace(/^Meetings\//, '').replace(/\.md$/, '');
        if (name === PROJECT_STALL) return projectPhaseStall(req);
        return FAULTS[name] ?? { status: 400, body: { error: { message: 'unknown meeting', type: 'x', param: null, code: null } } };
      },
    });
    const setup = await daemonSetup(file.server, {
      Endpoint: { TimeoutSeconds: TIMEOUT_SECONDS },
      Reconnect: { Attempts: 1, DelaySeconds: 0.05 },
      Daemon: { MaxConcurrentSummaries: 4 },
      Http: { Token: 'hostile-answers-token' },
    });
    setup.write('Projects/Alpha/Plan.md', '# Plan\n');
    for (const name of [...Object.keys(FAULTS), PROJECT_STALL]) {
      setup.write(`Meetings/${name}.md`, meetingNote(name));
      setup.write(`Meetings/Transcripts/${name}.md`, transcriptNote(name, 'finished'));
    }
    const daemon = await startDaemonProcess({ configPath: setup.configPath });
    const settled = (name: string) =>
      dataOf(setup, `Meetings/Summaries/${name}.md`)?.status === 'failed' && dataOf(setup, `Meetings/Context/${name}.md`)?.state === 'error';
    await waitFor(() => Object.keys(FAULTS).every(settled), 'every hostile meeting to end in a failure report', 45_000);
    // A stall after the summary was written: the summary stays, the context note says what failed.
    await waitFor(() => dataOf(setup, `Meetings/Context/${PROJECT_STALL}.md`)?.state === 'error', 'the project phase stall to settle', 20_000);
    expect(dataOf(setup, `Meetings/Summaries/${PROJECT_STALL}.md`)?.status).not.toBe('failed');
    expect(setup.read(`Meetings/Summaries/${PROJECT_STALL}.md`)).toContain('The team reviewed the release.');
    const stallContext = parseNote(setup.read(`Meetings/Context/${PROJECT_STALL}.md`)).body;
    expect(stallContext).toContain('The summary was written, but the run then failed');
    expect(stallContext).toContain('Endpoint.TimeoutSeconds');

    const report = (name: string) => parseNote(setup.read(`Meetings/Summaries/${name}.md`)).body;
    expect(report('H01 stall')).toContain('Endpoint.TimeoutSeconds');
    expect(report('H01 stall')).toMatch(/- Attempts: 2/);
    expect(report('H02 trickle')).toContain('Endpoint.TimeoutSeconds');
    expect(report('H03 oversized')).toContain('larger than 32 MB');
    // Refused, not retried.
    expect(report('H03 oversized')).toMatch(/- Attempts: 1/);
    expect(counts.get('Meetings/H03 oversized.md')).toBe(1);
    // Read up to 32 MB, then refused; a first try cut by the timeout on a loaded machine is retried.
    expect(report('H04 oversized, no length')).toContain('larger than 32 MB');
    expect(daemon.logs.some((l) => /DOMException/.test(JSON.stringify(l)) && l.level === 'fatal')).toBe(false);
    expect(await (await fetch(`http://127.0.0.1:${setup.port}/healthz`)).text()).toBe('ok');
    await daemon.stop();
});
});

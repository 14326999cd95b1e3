import { randomUUID } from 'node:crypto';
import { systemClock } from '../clock.js';
import { resolveMeeting } from '../vault/notes/meeting.js';
import { findMeetingOfSummary } from '../vault/notes/locate-meeting.js';
import type { PipelineDeps, RunOutcome } from './pipeline.js';
import { settleContext, writeFailureReport, type FailureWriter } from './run-failure.js';

/**
 * A meeting whose runs end the run process every time (docs/design.md §3 step 4, issue 43):
 * killed by the out-of-memory killer, a crash in a native module, a person's `kill`. The daemon
 * stops trying after a few deaths and has this written instead of another run: the failure
 * report that says so, the context note `error`. Nothing of the meeting is read but its links,
 * so what killed the runs does not kill this. Never throws.
 */
export async function reportRunDeaths(deps: PipelineDeps, kind: 'summarize' | 'retry', target: string, message: string): Promise<RunOutcome> {
  const runId = randomUUID().slice(0, 8);
  const w: FailureWriter = { vault: deps.vault, log: deps.log, clock: deps.clock ?? systemClock, retryUrl: deps.retryUrl };
  try {
    const meetingPath = kind === 'summarize' ? target : await findMeetingOfSummary(deps.vault, target);
    const artifacts = await resolveMeeting(deps.vault, meetingPath, { writeBack: false });
    const details = {
      type: 'RunProcessDied',
      message,
      notes: ['The process that runs the agent ended during every one of the last runs of this meeting, so the daemon stopped trying. Look at the log for what ended it (out of memory?), then tick `retry`.'],
    };
    const problem = await writeFailureReport(w, artifacts, details);
    await settleContext(w, artifacts, 'error', `## Error (${w.clock().toISOString()})\n\nThe run failed: ${message}`);
    return { runId, status: 'failed', meetingPath, summaryPath: artifacts.summaryPath, error: message, ...(problem !== undefined && { reportProblem: problem }) };
  } catch (err) {
    const why = err instanceof Error ? err.message : String(err);
    return { runId, status: 'failed', error: message, reportProblem: `the meeting's notes could not be found: ${why}` };
  }
}

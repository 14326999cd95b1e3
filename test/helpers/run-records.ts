import type { RunRecord } from '../../src/daemon/runs/run-history.js';

/** A finished run of `Meetings/<meeting>.md` at 10:<minute> (42 s long), as the run history keeps it. */
export const runRecord = (meeting: string, status: 'done' | 'failed', minute: number, extra: Partial<RunRecord> = {}): RunRecord => ({
  runId: `r${minute}`,
  kind: 'summarize',
  trigger: 'transcript',
  meeting: `Meetings/${meeting}.md`,
  title: meeting,
  startedAt: `2026-11-30T10:${String(minute).padStart(2, '0')}:00Z`,
  finishedAt: `2026-11-30T10:${String(minute).padStart(2, '0')}:42Z`,
  status,
  summary: `Meetings/Summaries/${meeting}.md`,
  modelRequests: 4,
  ...(status === 'failed' && { error: 'ModelError (http): model "x" is not loaded' }),
  ...extra,
});

import { describe, expect, it } from 'vitest';
import { judgeDeath, MAX_RUN_DEATHS } from '../../../src/daemon/runs/run-process/host.js';
import { DIED_PROBLEM, DIED_SHARED_PROBLEM, STALLED } from '../../../src/daemon/runs/run-process/child-process.js';
import type { RunOutcome } from '../../../src/meeting/pipeline.js';

/** The run process's deaths, counted by the meeting it ran (issue 43 point 10). */
const died = (reportProblem: string, error = 'the run process was ended by SIGKILL before the run ended'): RunOutcome =>
  ({ runId: 'r', status: 'failed', error, reportProblem }) as RunOutcome;

describe('judgeDeath', () => {
  it('reports the meeting at its third death in a row alone in the process; another outcome starts the count again', () => {
    const deaths = new Map<string, number>();
    for (let i = 1; i < MAX_RUN_DEATHS; i++) expect(judgeDeath(deaths, 'M.md', died(DIED_PROBLEM))).toBeUndefined();
    expect(judgeDeath(deaths, 'M.md', died(DIED_PROBLEM))).toMatch(/ended during each of the last 3 runs/);
    judgeDeath(deaths, 'M.md', died(DIED_PROBLEM));
    judgeDeath(deaths, 'M.md', { runId: 'r', status: 'done' } as RunOutcome);
    expect(deaths.has('M.md')).toBe(false);
  });

  it('does not count a death the meeting shared with other work in the process, but reports a stall at once', () => {
    const deaths = new Map<string, number>();
    for (let i = 0; i < MAX_RUN_DEATHS + 2; i++) expect(judgeDeath(deaths, 'Bystander.md', died(DIED_SHARED_PROBLEM))).toBeUndefined();
    expect(deaths.has('Bystander.md')).toBe(false);
    expect(judgeDeath(deaths, 'Bystander.md', died(DIED_SHARED_PROBLEM, `${STALLED} for 61 s`))).toMatch(/the run was ended$/);
  });
});

import { describe, expect, it } from 'vitest';
import { endTimeOf, lastStampSeconds } from '../../../src/vault/notes/end-time.js';

/** docs/design.md §2: end_time from the transcript's last stamp, in start_time's format (#22 point 12). */

const transcript = '---\nstate: finished\n---\n[00:00:05] Alice: Hi.\n[00:44:12] **Bob**: Bye.\nA line without a stamp.\n';
const runTime = new Date('2026-12-02T18:30:00Z');

describe('end_time of a meeting note without one', () => {
  it('is start_time plus the last stamp, with start_time\'s offset', () => {
    expect(endTimeOf('2026-11-30T09:00:00+01:00', transcript, runTime)).toBe('2026-11-30T09:44:12+01:00');
    expect(endTimeOf('2026-11-30T23:30:00-05:00', transcript, runTime)).toBe('2026-12-01T00:14:12-05:00');
    expect(endTimeOf('2026-11-30T08:00:00Z', transcript, runTime)).toBe('2026-11-30T08:44:12Z');
  });

  it('keeps the separator and the precision start_time is written with', () => {
    expect(endTimeOf('2026-11-30 09:00', transcript, runTime)).toBe('2026-11-30 09:44');
    expect(endTimeOf('2026-11-30T09:00:00', transcript, runTime)).toBe('2026-11-30T09:44:12');
  });

  it('reads hours, minutes-only and fractional stamps; the largest counts', () => {
    expect(lastStampSeconds('[1:02:03.500] A: x\n[05:10] B: y\n')).toBe(3723);
    expect(lastStampSeconds('no stamps here')).toBeUndefined();
  });

  it('without a stamp: the run time, never before start_time, in its format', () => {
    expect(endTimeOf('2026-11-30T09:00:00+01:00', 'no speech yet\n', runTime)).toBe('2026-12-02T19:30:00+01:00');
    expect(endTimeOf('2026-12-03T09:00:00+01:00', 'no speech yet\n', runTime)).toBe('2026-12-03T09:00:00+01:00');
    expect(endTimeOf(undefined, transcript, runTime)).toBe('2026-12-02T18:30:00Z');
  });
});

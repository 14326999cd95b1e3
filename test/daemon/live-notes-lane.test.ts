import { describe, expect, it } from 'vitest';
import { type Logger, silentLogger } from '../../src/log.js';
import { capturedLogger } from '../helpers/captured-log.js';
import type { LiveNotesResult } from '../../src/meeting/long-transcript/live-notes.js';
import { type LiveNotesRun, LiveNotesLane, liveNotesLine, meetingsOfTranscripts } from '../../src/daemon/runs/live-notes-lane.js';
import { writeNotesSection } from '../../src/vault/notes/transcript-notes-section.js';
import { countFsCalls, memoryVault } from '../helpers/memfs.js';

/** Timers the test fires by hand, and a clock it moves. */
function manualTime() {
  let now = 0;
  const due: { at: number; fn: () => void }[] = [];
  return {
    clock: () => new Date(now),
    timers: {
      setTimeout: (fn: () => void, ms: number) => {
        const timer = { at: now + ms, fn };
        due.push(timer);
        return timer;
      },
      clearTimeout: (handle: unknown) => {
        const i = due.indexOf(handle as (typeof due)[number]);
        if (i >= 0) due.splice(i, 1);
      },
    },
    /** Moves the clock on and fires what is due. */
    advance(ms: number) {
      now += ms;
      for (const timer of due.filter((t) => t.at <= now)) {
        due.splice(due.indexOf(timer), 1);
        timer.fn();
      }
    },
  };
}

/** A notes pass the test ends: each call waits until `finish` (or its abort). */
function scriptedNotes() {
  const calls: { meeting: string; run: LiveNotesRun; finish(result: LiveNotesResult): void }[] = [];
  const notes = (meeting: string, run: LiveNotesRun) =>
    new Promise<LiveNotesResult>((resolve) => {
      run.signal.addEventListener('abort', () => resolve({ status: 'failed', error: 'aborted', aborted: true }), { once: true });
      calls.push({ meeting, run, finish: resolve });
    });
  return { calls, notes };
}

function lane(log: Logger = silentLogger, files: Record<string, string> = {}) {
  const vault = memoryVault(files);
  const time = manualTime();
  const { calls, notes } = scriptedNotes();
  let holds = 0;
  const l = new LiveNotesLane({
    vault,
    log,
    notes,
    hold: () => {
      holds++;
      return () => holds--;
    },
    settleMs: 3000,
    retryMs: 60_000,
    timers: time.timers,
    clock: time.clock,
  });
  return { lane: l, vault, time, calls, holds: () => holds, meeting: vault.abs('Meetings/M.md'), other: vault.abs('Meetings/N.md') };
}

const settled = () => new Promise<void>((resolve) => setImmediate(resolve));

describe('the live notes lane', () => {
  it('notes a transcript once it has settled, and shows its parts', async () => {
    const t = lane();
    t.lane.touched(t.meeting);
    t.time.advance(2000);
    t.lane.touched(t.meeting);
    t.time.advance(2999);
    expect(t.calls).toHaveLength(0);
    t.time.advance(1);
    expect(t.calls).toHaveLength(1);
    expect(t.holds()).toBe(1);
    t.calls[0]!.run.onPart({ part: 4, parts: 6 });
    expect(t.lane.status()).toEqual([{ meeting: 'Meetings/M.md', parts: 3, about: 6, active: true }]);
    t.calls[0]!.finish({ status: 'noted', parts: 4, about: 6, requests: 1 });
    await settled();
    expect(t.holds()).toBe(0);
    expect(t.lane.status().map(liveNotesLine)).toEqual(['notes: parts 1–4 of ~6']);
  });

  it('never takes a summary\'s place: a summary stops the notes being made, and they wait until no summary runs', async () => {
    const t = lane();
    t.lane.touched(t.other);
    t.time.advance(3000);
    expect(t.calls).toHaveLength(1);
    // A summary of another meeting begins: the notes pass is aborted, and the summary waits only for it to end.
    await t.lane.summaryStarts(t.meeting);
    expect(t.calls[0]!.run.signal.aborted).toBe(true);
    t.lane.touched(t.other);
    t.time.advance(10_000);
    expect(t.calls).toHaveLength(1);
    t.lane.summaryEnded();
    t.time.advance(0);
    expect(t.calls).toHaveLength(2);
    expect(t.calls[1]!.meeting).toBe(t.other);
  });

  it('leaves a meeting whose summary begins to that summary', async () => {
    const t = lane();
    t.lane.touched(t.meeting);
    await t.lane.summaryStarts(t.meeting);
    t.lane.summaryEnded();
    t.time.advance(10_000);
    expect(t.calls).toHaveLength(0);
    expect(t.lane.status()).toEqual([]);
  });

  it('tries a failed meeting again a minute later, and ends the pass being made when the daemon stops', async () => {
    const t = lane();
    t.lane.touched(t.meeting);
    t.time.advance(3000);
    t.calls[0]!.finish({ status: 'failed', error: 'connect ECONNREFUSED' });
    await settled();
    t.time.advance(59_000);
    expect(t.calls).toHaveLength(1);
    t.time.advance(1000);
    expect(t.calls).toHaveLength(2);
    await t.lane.close();
    expect(t.calls[1]!.run.signal.aborted).toBe(true);
    t.lane.touched(t.meeting);
    t.time.advance(10_000);
    expect(t.calls).toHaveLength(2);
  });

  it('resumes at the start only notes begun', () => {
    const t = lane();
    t.lane.touched(t.meeting, { resume: true });
    t.time.advance(3000);
    expect(t.calls[0]!.run.onlyIfStarted).toBe(true);
  });

  it('tries a meeting whose passes keep failing less and less often, warns of it once, and does not let a change cut the wait short', async () => {
    // A transcript left in `transcribing` (the transcriber died) behind a server that is down,
    // or one that always fails (its window too small): not a pass and a warning every minute for good.
    const { log, lines } = capturedLogger('warn');
    const t = lane(log);
    t.lane.touched(t.meeting);
    t.time.advance(3000);
    // The transcript changes while the failing pass runs (the meeting goes on, the endpoint down).
    t.lane.touched(t.meeting);
    t.calls[0]!.finish({ status: 'failed', error: 'connect ECONNREFUSED' });
    await settled();
    t.time.advance(3000);
    expect(t.calls).toHaveLength(1);
    for (let s = 3; s < 3600; s += 5) {
      t.time.advance(5000);
      for (const call of t.calls) call.finish({ status: 'failed', error: 'connect ECONNREFUSED' });
      await settled();
    }
    // 1, 2, 4, 8, 16 and 32 minutes after the first: six retries within the hour.
    expect(t.calls.length).toBeLessThanOrEqual(7);
    expect(lines.map((l) => l.level)).toEqual(['warn']);
    // Once a pass succeeds, a later failure is tried again a minute after it, and warned of.
    t.lane.touched(t.meeting);
    t.time.advance(40 * 60_000);
    const before = t.calls.length;
    t.calls.at(-1)!.finish({ status: 'noted', parts: 1, about: 2, requests: 1 });
    await settled();
    t.lane.touched(t.meeting);
    t.time.advance(3000);
    expect(t.calls).toHaveLength(before + 1);
    t.calls.at(-1)!.finish({ status: 'failed', error: 'connect ECONNREFUSED' });
    await settled();
    t.time.advance(60_000);
    expect(t.calls).toHaveLength(before + 2);
    expect(lines).toHaveLength(2);
  });

  it('notes a transcript written without a pause of 3 s too: at most 30 s after the first change not yet noted', () => {
    // A transcriber that appends a line every second or two, all meeting long.
    const t = lane();
    for (let s = 0; s < 29; s++) {
      t.lane.touched(t.meeting);
      t.time.advance(1000);
    }
    expect(t.calls).toHaveLength(0);
    for (let s = 29; s < 120 && t.calls.length === 0; s++) {
      t.lane.touched(t.meeting);
      t.time.advance(1000);
    }
    expect(t.calls).toHaveLength(1);
  });

  it('a change of a meeting waiting after a failure does not hold another meeting up', async () => {
    const t = lane();
    t.lane.touched(t.meeting);
    t.time.advance(3000);
    t.calls[0]!.finish({ status: 'failed', error: 'connect ECONNREFUSED' });
    await settled();
    t.lane.touched(t.other);
    t.time.advance(1000);
    t.lane.touched(t.meeting);
    t.time.advance(2000);
    expect(t.calls.map((c) => c.meeting)).toEqual([t.meeting, t.other]);
  });

  it('at the start, resumes only meetings whose notes were begun, without a pass for the others (the run process is not started for them)', async () => {
    const meetingNote = (name: string) => `---\ntitle: ${name}\ntranscript: "[[Meetings/Transcripts/${name}]]"\n---\n`;
    const t = lane(silentLogger, {
      'Meetings/M.md': meetingNote('M'),
      'Meetings/Transcripts/M.md': '---\nmeeting: "[[Meetings/M]]"\nstate: transcribing\n---\nAlice: hello\n',
      'Meetings/N.md': meetingNote('N'),
      'Meetings/Transcripts/N.md': '---\nmeeting: "[[Meetings/N]]"\nstate: transcribing\n---\nBob: hello\n',
      'Meetings/Broken.md': '---\ntitle: [unclosed\n---\n',
    });
    await t.vault.write(t.vault.abs('Meetings/Context/N.md'), '---\nstate: transcribing\n---\n');
    await writeNotesSection(t.vault, t.vault.abs('Meetings/Context/N.md'), { fingerprint: 'sha256:0', progress: 'Noted while the meeting runs.', parts: [{ from: 5, to: 5, text: '- hello', hash: 'sha256:1' }], condensed: [] });
    await Promise.all([t.lane.resume(t.meeting), t.lane.resume(t.other), t.lane.resume(t.vault.abs('Meetings/Broken.md'))]);
    t.time.advance(3000);
    expect(t.calls.map((c) => [c.meeting, c.run.onlyIfStarted])).toEqual([[t.other, true]]);
  });

  it('finds the meeting of a growing transcript once, not by reading every meeting note at each change', async () => {
    // A transcript with no `meeting` link: its meeting is the note whose `transcript` links to it.
    const files: Record<string, string> = { 'Meetings/Transcripts/Big.md': '---\nstate: transcribing\n---\nAlice: hello\n' };
    for (let i = 0; i < 200; i++) files[`Meetings/Old ${i}.md`] = `---\ntitle: Old ${i}\ntranscript: "[[Meetings/Transcripts/Old ${i}]]"\n---\n`;
    files['Meetings/Big.md'] = '---\ntitle: Big\ntranscript: "[[Meetings/Transcripts/Big]]"\n---\n';
    const vault = memoryVault(files);
    const find = meetingsOfTranscripts(vault);
    const counts = countFsCalls(vault.fs);
    const transcript = vault.abs('Meetings/Transcripts/Big.md');
    expect(await find(transcript)).toBe(vault.abs('Meetings/Big.md'));
    const once = counts.readFile;
    // A 3-hour meeting's transcript changes thousands of times.
    for (let n = 0; n < 50; n++) expect(await find(transcript)).toBe(vault.abs('Meetings/Big.md'));
    expect(counts.readFile).toBe(once);
    // One not found is looked for again at its next change (its meeting note may come later).
    await expect(find(vault.abs('Meetings/Transcripts/Nobody.md'))).rejects.toThrow();
  });
});

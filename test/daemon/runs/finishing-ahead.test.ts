import { describe, expect, it } from 'vitest';
import { FinishingAhead, type FinishingAheadOptions, MAX_PEEKS } from '../../../src/daemon/runs/finishing-ahead.js';
import type { IdleTimers } from '../../../src/tools/binding/idle-release.js';

/**
 * A transcript written `finished` with no run process up starts the process at its first raw
 * event, before the write-stability wait and the debounce (docs/design.md §8): the settled event
 * still decides the job. Stand-ins for the run place, the trigger rules and the disk.
 */

const T = '/vault/Meetings/Transcripts/Sync.md';
const FINISHED = '---\nstate: finished\n---\ntext\n';

function setup(over: Partial<FinishingAheadOptions> & { up?: boolean; texts?: Map<string, string> } = {}) {
  const texts = over.texts ?? new Map([[T, FINISHED]]);
  const log = { reads: 0, holds: 0, released: 0, starts: 0, up: over.up ?? false };
  const timers = new Map<number, () => void>();
  let next = 1;
  const manual: IdleTimers = {
    setTimeout: (fn) => (timers.set(next, fn), next++),
    clearTimeout: (h) => void timers.delete(h as number),
  };
  const ahead = new FinishingAhead({
    isTranscript: (p) => p.startsWith('/vault/Meetings/Transcripts/') && p.endsWith('.md'),
    needsStart: () => !log.up,
    read: (p) => {
      log.reads++;
      return Promise.resolve(texts.get(p));
    },
    wouldSummarize: (_p, content) => content.includes('state: finished'),
    hold: () => {
      log.holds++;
      return () => log.released++;
    },
    startAhead: () => {
      log.starts++;
      log.up = true;
    },
    timers: manual,
    ...over,
  });
  const fire = () => {
    for (const [id, fn] of [...timers]) {
      timers.delete(id);
      fn();
    }
  };
  return { ahead, log, texts, timers, fire };
}

describe('a transcript seen finishing starts the run process ahead of its settled event (docs/design.md §8)', () => {
  it('a raw event whose content the trigger would take: held, started once, the hold let go after its time', async () => {
    const { ahead, log, timers, fire } = setup();
    await ahead.changed(T);
    expect(log).toMatchObject({ reads: 1, holds: 1, starts: 1, released: 0 });
    expect(timers.size).toBe(1);
    // The process is up now: the write's further raw events read nothing.
    await ahead.changed(T);
    expect(log.reads).toBe(1);
    fire();
    expect(log.released).toBe(1);
  });

  it('a write’s several raw events at once read the note once', async () => {
    const { ahead, log } = setup();
    await Promise.all([ahead.changed(T), ahead.changed(T), ahead.changed(T)]);
    expect(log).toMatchObject({ reads: 1, starts: 1 });
  });

  it('nothing for a content the trigger would not take, a note gone, another note, or a run process already up', async () => {
    const other = setup({ texts: new Map([[T, '---\nstate: transcribing\n---\n']]) });
    await other.ahead.changed(T);
    expect(other.log).toMatchObject({ reads: 1, holds: 0, starts: 0 });

    const gone = setup({ texts: new Map() });
    await gone.ahead.changed(T);
    expect(gone.log).toMatchObject({ reads: 1, holds: 0, starts: 0 });

    const failing = setup({ read: () => Promise.reject(new Error('EIO')) });
    await failing.ahead.changed(T);
    expect(failing.log).toMatchObject({ holds: 0, starts: 0 });

    const notATranscript = setup();
    await notATranscript.ahead.changed('/vault/Meetings/Sync.md');
    await notATranscript.ahead.changed('/vault/Meetings/Transcripts/Sync.md.tmp-1');
    expect(notATranscript.log).toMatchObject({ reads: 0, starts: 0 });

    const up = setup({ up: true });
    await up.ahead.changed(T);
    expect(up.log).toMatchObject({ reads: 0, holds: 0, starts: 0 });
  });

  it('a watch event without a name (every note of a folder told at once): at most MAX_PEEKS transcripts read at a time', async () => {
    const texts = new Map<string, string>(Array.from({ length: 50 }, (_, i) => [`/vault/Meetings/Transcripts/M${i}.md`, '---\nstate: transcribing\n---\n']));
    let reading = 0;
    let most = 0;
    let hold = true;
    const waiting: (() => void)[] = [];
    const { ahead, log } = setup({
      texts,
      read: (p) => {
        log.reads++;
        most = Math.max(most, ++reading);
        if (!hold) return Promise.resolve((reading--, texts.get(p)));
        // Each read is held until all fifty events have been told.
        return new Promise((resolve) => waiting.push(() => (reading--, resolve(texts.get(p)))));
      },
    });
    const told = [...texts.keys()].map((p) => ahead.changed(p));
    for (const release of waiting.splice(0)) release();
    await Promise.all(told);
    expect(most).toBe(MAX_PEEKS);
    expect(log).toMatchObject({ reads: MAX_PEEKS, starts: 0 });
    // The peeks done, the next raw event is read again.
    hold = false;
    await ahead.changed('/vault/Meetings/Transcripts/M0.md');
    expect(log.reads).toBe(MAX_PEEKS + 1);
  });

  it('a process started while the note was read (a job meanwhile) is not started again', async () => {
    let started: () => void = () => undefined;
    const { ahead, log } = setup({
      read: () => {
        log.reads++;
        started();
        return Promise.resolve(FINISHED);
      },
    });
    started = () => (log.up = true);
    await ahead.changed(T);
    expect(log).toMatchObject({ reads: 1, holds: 0, starts: 0 });
  });

  it('closed (the daemon stops): its holds end, their timers go, no raw event starts anything', async () => {
    const { ahead, log, timers } = setup();
    await ahead.changed(T);
    ahead.close();
    expect(log.released).toBe(1);
    expect(timers.size).toBe(0);
    log.up = false;
    await ahead.changed(T);
    expect(log).toMatchObject({ reads: 1, starts: 1 });
  });
});

import { describe, expect, it } from 'vitest';
import {
  createDebouncer,
  isIgnoredPath,
  isNoteEvent,
  type TimerApi,
  triggerFolders,
  type VaultEvent,
} from '../../../src/daemon/intake/file-events.js';
import { memoryVault } from '../../helpers/memfs.js';

/** A manual clock: timers fire only when the test advances it. */
function manualTimers() {
  let now = 0;
  let nextId = 0;
  const timers = new Map<number, { at: number; fn: () => void }>();
  const api: TimerApi = {
    setTimeout(fn, ms) {
      const id = ++nextId;
      timers.set(id, { at: now + ms, fn });
      return id;
    },
    clearTimeout(handle) {
      timers.delete(handle as number);
    },
  };
  return {
    api,
    now: () => now,
    advance(ms: number) {
      now += ms;
      for (const [id, t] of [...timers].sort((a, b) => a[1].at - b[1].at)) {
        if (t.at <= now) {
          timers.delete(id);
          t.fn();
        }
      }
    },
  };
}

describe('file events', () => {
  it('a file rewritten more often than the quiet period still has its event, at most maxMs after the first (issue 43)', () => {
    const clock = manualTimers();
    const out: VaultEvent[] = [];
    const d = createDebouncer(150, (e) => out.push(e), clock.api, 1000, clock.now);
    // Every 100 ms for 3 s: never 150 ms of quiet.
    const times: number[] = [];
    for (let t = 0; t < 3000; t += 100) {
      d.push({ type: 'change', path: '/v/a.md' });
      const before = out.length;
      clock.advance(100);
      if (out.length > before) times.push(clock.now());
    }
    expect(times.length).toBeGreaterThanOrEqual(2);
    expect(times[0]).toBeLessThanOrEqual(1100);
  });

  it('a burst of saves to one file becomes one event after the quiet period', () => {
    const clock = manualTimers();
    const out: VaultEvent[] = [];
    const d = createDebouncer(100, (e) => out.push(e), clock.api);
    d.push({ type: 'change', path: '/v/a.md' });
    clock.advance(60);
    d.push({ type: 'change', path: '/v/a.md' });
    clock.advance(60);
    d.push({ type: 'change', path: '/v/a.md' });
    expect(out).toEqual([]);
    clock.advance(100);
    expect(out).toEqual([{ type: 'change', path: '/v/a.md' }]);
  });

  it('debounces per file: another file is not delayed by the first', () => {
    const clock = manualTimers();
    const out: VaultEvent[] = [];
    const d = createDebouncer(100, (e) => out.push(e), clock.api);
    d.push({ type: 'change', path: '/v/a.md' });
    clock.advance(50);
    d.push({ type: 'change', path: '/v/b.md' });
    clock.advance(50);
    expect(out.map((e) => e.path)).toEqual(['/v/a.md']);
    clock.advance(50);
    expect(out.map((e) => e.path)).toEqual(['/v/a.md', '/v/b.md']);
  });

  it('an add followed by changes stays an add; an unlink wins', () => {
    const clock = manualTimers();
    const out: VaultEvent[] = [];
    const d = createDebouncer(10, (e) => out.push(e), clock.api);
    d.push({ type: 'add', path: '/v/a.md' });
    d.push({ type: 'change', path: '/v/a.md' });
    d.push({ type: 'change', path: '/v/b.md' });
    d.push({ type: 'unlink', path: '/v/b.md' });
    clock.advance(10);
    expect(out).toEqual([
      { type: 'add', path: '/v/a.md' },
      { type: 'unlink', path: '/v/b.md' },
    ]);
  });

  it('cancel drops pending events', () => {
    const clock = manualTimers();
    const out: VaultEvent[] = [];
    const d = createDebouncer(10, (e) => out.push(e), clock.api);
    d.push({ type: 'change', path: '/v/a.md' });
    expect(d.pending).toBe(1);
    d.cancel();
    clock.advance(100);
    expect(out).toEqual([]);
  });

  it('ignores .trash, .obsidian, .git, our state folder, dot-files and editor temporaries', () => {
    const root = '/vault';
    for (const p of [
      '.trash/Meetings/Transcripts/a.md',
      '.obsidian/workspace.md',
      '.git/x.md',
      '.meeting-assistant/token',
      'Meetings/Transcripts/.a.md.1f2e3d.ma-tmp',
      'Meetings/Transcripts/.a.md.swp',
      'Meetings/Transcripts/a.md.swp',
      'Meetings/Transcripts/a.md~',
      'Meetings/Transcripts/.#a.md',
      'Meetings/Transcripts/#a.md#',
      'Meetings/Transcripts/4913',
    ]) {
      expect(isIgnoredPath(root, `${root}/${p}`), p).toBe(true);
      expect(isNoteEvent(root, `${root}/${p}`), p).toBe(false);
    }
    expect(isIgnoredPath(root, '/vault/Meetings/Transcripts')).toBe(false);
    expect(isNoteEvent(root, '/vault/Meetings/Transcripts/2026-11-30 Sync.md')).toBe(true);
    expect(isNoteEvent(root, '/vault/Meetings/Transcripts/audio.m4a')).toBe(false);
  });

  it('watches transcripts and summaries, once when one folder contains the other', () => {
    expect(triggerFolders(memoryVault())).toEqual(['/vault/Meetings/Transcripts', '/vault/Meetings/Summaries']);
    const nested = memoryVault({}, { Folders: { Transcripts: 'M', Summaries: 'M/S' } });
    expect(triggerFolders(nested)).toEqual(['/vault/M']);
  });
});

import { mkdirSync, mkdtempSync, rmSync, watch as fsWatch, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { type Daemon, type PipelineFns, startDaemon } from '../../../src/daemon/daemon.js';
import { DirectoryWatcher } from '../../../src/vault/scan/dir-watch.js';
import { type VaultEvent, watchVault } from '../../../src/daemon/intake/file-events.js';
import { createRuntime } from '../../../src/runtime.js';
import { nodeFs } from '../../../src/vault/files/fs.js';
import { testConfig } from '../../helpers/memfs.js';
import { capturedLogger } from '../../helpers/captured-log.js';

/**
 * The folder watcher at the system's limits: a folder whose watch cannot be made (ENOSPC once
 * fs.inotify.max_user_watches is reached, EMFILE) is said once, clearly, in the log; the
 * daemon runs on, the other folders are watched, and the caches stop trusting the watcher
 * (their files are checked on disk again: no stale search for the unwatched folder).
 */

let dir: string;
let daemon: Daemon | undefined;
beforeEach(() => {
  dir = mkdtempSync(path.join(os.tmpdir(), 'ma-limits-'));
  for (const p of ['Meetings/Transcripts', 'Meetings/Summaries', 'Projects/Alpha', 'Projects/Beta']) mkdirSync(path.join(dir, p), { recursive: true });
});
afterEach(async () => {
  await daemon?.stop('test over');
  daemon = undefined;
  rmSync(dir, { recursive: true, force: true });
});

/** fs.watch failing the way it does once the limit of inotify watches is reached, for one folder. */
function failingFor(folder: string): typeof fsWatch {
  return ((p: string, ...rest: unknown[]) => {
    if (path.resolve(p) === folder) {
      throw Object.assign(new Error(`ENOSPC: System limit for number of file watchers reached, watch '${p}'`), { code: 'ENOSPC', errno: -28, syscall: 'watch' });
    }
    return (fsWatch as (...a: unknown[]) => ReturnType<typeof fsWatch>)(p, ...rest);
  }) as typeof fsWatch;
}

const never: PipelineFns = {
  summarize: () => Promise.reject(new Error('no run expected')),
  retry: () => Promise.reject(new Error('no run expected')),
};

describe('a folder the system will not let the daemon watch', () => {
  it('ENOSPC: logged once with the way out, the daemon runs on, the caches check files on disk, other folders are watched', async () => {
    const { log, lines } = capturedLogger('info');
    const config = testConfig({ VaultPath: dir, Http: { Enabled: false } });
    const runtime = await createRuntime(config, { log, fs: nodeFs, fetch: () => Promise.reject(new Error('offline')) });
    const events: VaultEvent[] = [];
    const alpha = path.join(dir, 'Projects/Alpha');
    daemon = await startDaemon(config, {
      log,
      runtime,
      pipeline: never,
      schedule: false,
      watch: (vault) => {
        const source = watchVault(vault, config.settings, log, { cacheFolders: [vault.layout.folders.Projects], watchFolder: failingFor(alpha) });
        source.on((e) => events.push(e));
        return source;
      },
    });
    await daemon.startupScan;
    const errors = lines.filter((l) => l.level === 'error' || l.level === 'fatal');
    expect(errors).toHaveLength(1);
    expect(errors[0]!.msg).toContain('cannot watch the folder Projects/Alpha');
    expect(errors[0]!.msg).toContain('fs.inotify.max_user_watches');
    // Trusted, a cached Alpha file would be searched from memory after it changed on disk.
    expect(runtime.caches.watch.covers(path.join(alpha, 'Plan.md'))).toBe(false);
    expect(runtime.caches.watch.covers(path.join(dir, 'Projects/Beta/Plan.md'))).toBe(false);
    // The transcripts are still watched.
    const note = path.join(dir, 'Meetings/Transcripts/Late.md');
    writeFileSync(note, '---\nstate: recording\n---\n');
    const deadline = Date.now() + 10_000;
    while (!events.some((e) => e.path === note) && Date.now() < deadline) await new Promise((r) => setTimeout(r, 10));
    expect(events.map((e) => e.path)).toContain(note);
  });

  it('a folder out of the cached ones (a calendar folder) that cannot be watched leaves the caches trusting the watcher', async () => {
    const { log, lines } = capturedLogger('info');
    const config = testConfig({ VaultPath: dir, Http: { Enabled: false } });
    const runtime = await createRuntime(config, { log, fs: nodeFs, fetch: () => Promise.reject(new Error('offline')) });
    const calendars = path.join(dir, 'Calendars');
    mkdirSync(calendars);
    daemon = await startDaemon(config, {
      log,
      runtime,
      pipeline: never,
      schedule: false,
      watch: (vault) => watchVault(vault, config.settings, log, { cacheFolders: [vault.layout.folders.Projects, calendars], watchFolder: failingFor(calendars) }),
    });
    await daemon.startupScan;
    expect(lines.filter((l) => l.level === 'error').map((l) => l.msg)).toEqual([expect.stringContaining('cannot watch the folder Calendars')]);
    expect(runtime.caches.watch.covers(path.join(dir, 'Projects/Alpha/Plan.md'))).toBe(true);
    expect(runtime.caches.watch.covers(path.join(dir, 'Meetings/2026-12-01 Sync.md'))).toBe(true);
  });

  it('with every folder watched, the caches do trust the watcher', async () => {
    const { log } = capturedLogger('info');
    const config = testConfig({ VaultPath: dir, Http: { Enabled: false } });
    const runtime = await createRuntime(config, { log, fs: nodeFs, fetch: () => Promise.reject(new Error('offline')) });
    daemon = await startDaemon(config, { log, runtime, pipeline: never, schedule: false });
    await daemon.startupScan;
    expect(runtime.caches.watch.covers(path.join(dir, 'Projects/Alpha/Plan.md'))).toBe(true);
    // The meeting notes too: a run start's claim check stats none of them (tools/cache/meeting-heads.ts).
    expect(runtime.caches.watch.covers(path.join(dir, 'Meetings/2026-12-01 Sync.md'))).toBe(true);
  });
});

/** `fs.watch`, each watch it makes kept in `made` (so a test can emit on it). */
function recordingWatch(made: ReturnType<typeof fsWatch>[]): typeof fsWatch {
  return ((...args: Parameters<typeof fsWatch>) => {
    const w = fsWatch(...args);
    made.push(w);
    return w;
  }) as typeof fsWatch;
}

describe("a watch's 'error' event", () => {
  it('is logged, unlinks nothing that is still there, and the folder is watched again', async () => {
    const folder = path.join(dir, 'Meetings/Transcripts');
    writeFileSync(path.join(folder, 'Kept.md'), 'kept\n');
    const made: ReturnType<typeof fsWatch>[] = [];
    const events: string[] = [];
    const errors: string[] = [];
    const watcher = new DirectoryWatcher({
      roots: [folder],
      ignored: () => false,
      onRaw: () => undefined,
      onSettled: (type, p) => events.push(`${type} ${path.basename(p)}`),
      quietMs: 50,
      onError: (err) => errors.push(String(err)),
      onUnwatched: (_f, err) => errors.push(`unwatched ${String(err)}`),
      watch: recordingWatch(made),
    });
    try {
      await watcher.ready;
      made[0]!.emit('error', new Error('the watch broke'));
      expect(errors).toEqual(['Error: the watch broke']);
      const deadline = Date.now() + 10_000;
      while (made.length < 2 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 10));
      writeFileSync(path.join(folder, 'New.md'), 'new\n');
      while (!events.includes('add New.md') && Date.now() < deadline) await new Promise((r) => setTimeout(r, 10));
      expect(events).toContain('add New.md');
      expect(events.filter((e) => e.startsWith('unlink'))).toEqual([]);
    } finally {
      await watcher.close();
    }
  });
});

describe('an event without a file name (some platforms, an overflow)', () => {
  it('looks at the whole folder again and tells the caches of every entry at once (onRaw), as named events do', async () => {
    const folder = path.join(dir, 'Meetings/Transcripts');
    writeFileSync(path.join(folder, 'Known.md'), 'known\n');
    const made: ReturnType<typeof fsWatch>[] = [];
    const raw: string[] = [];
    const events: string[] = [];
    const watcher = new DirectoryWatcher({
      roots: [folder],
      ignored: (p) => p.endsWith('~'),
      onRaw: (p) => raw.push(path.basename(p)),
      onSettled: (type, p) => events.push(`${type} ${path.basename(p)}`),
      quietMs: 50,
      onError: (err) => events.push(`error ${String(err)}`),
      onUnwatched: () => undefined,
      watch: recordingWatch(made),
    });
    try {
      await watcher.ready;
      // Written while the watch heard nothing of it (an overflow), then the nameless event.
      made[0]!.close();
      writeFileSync(path.join(folder, 'Missed.md'), 'missed\n');
      writeFileSync(path.join(folder, 'Draft~'), 'temp\n');
      made[0]!.emit('change', 'rename', null);
      const deadline = Date.now() + 10_000;
      // The folder is read again first (a readdir), then each entry is told of before its quiet period.
      while (raw.length < 2 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 5));
      expect(raw.sort()).toEqual(['Known.md', 'Missed.md']);
      while (!events.includes('add Missed.md') && Date.now() < deadline) await new Promise((r) => setTimeout(r, 10));
      expect(events.sort()).toEqual(['add Missed.md', 'change Known.md']);
    } finally {
      await watcher.close();
    }
  });
});

import { appendFileSync, mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync, utimesSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { DirectoryWatcher } from '../../../src/vault/scan/dir-watch.js';
import { type VaultEvent, type VaultEventSource, watchVault } from '../../../src/daemon/intake/file-events.js';
import { resolveConfig } from '../../../src/config.js';
import { silentLogger } from '../../../src/log.js';
import { nodeFs } from '../../../src/vault/files/fs.js';
import { Vault } from '../../../src/vault/files/vault.js';

/** The watcher on a real folder: write stability, ignore rules, our own atomic writes. */

let dir: string;
let vault: Vault;
let source: VaultEventSource | undefined;
const seen: { event: VaultEvent; content: string | undefined }[] = [];
/** Told of each raw event the watcher has (what restarts that file's quiet period). */
let onRaw: (absPath: string) => void = () => undefined;

beforeEach(() => {
  dir = mkdtempSync(path.join(os.tmpdir(), 'ma-watch-'));
  const config = resolveConfig({ MeetingAssistant: { VaultPath: dir } });
  for (const folder of Object.values(config.layout.folders)) mkdirSync(folder, { recursive: true });
  vault = new Vault(nodeFs, config.layout);
  seen.length = 0;
  onRaw = () => undefined;
});

afterEach(async () => {
  await source?.close();
  source = undefined;
  // After the close: it clears the watcher's timers, fake ones too when a test faked the clock.
  vi.useRealTimers();
  rmSync(dir, { recursive: true, force: true });
});

async function watch(stabilityMs?: number): Promise<void> {
  source = watchVault(vault, resolveConfig({}).settings, silentLogger, stabilityMs ? { stabilityMs } : {});
  source.on((event) => {
    let content: string | undefined;
    try {
      content = readFileSync(event.path, 'utf8');
    } catch {
      content = undefined;
    }
    seen.push({ event, content });
  });
  source.onChange?.((p) => onRaw(p));
  await source.ready;
}

/**
 * Runs `write` and resolves once the watcher has had an event for `file` since: from then on
 * its quiet period runs from the watcher's clock's present. Bounded by the test's timeout, not
 * a timer of its own, so that it works while the test fakes the clock.
 */
function writeSeen(file: string, write: () => void): Promise<void> {
  return new Promise((resolve) => {
    onRaw = (p) => {
      if (p !== file) return;
      onRaw = () => undefined;
      resolve();
    };
    write();
  });
}

function eventFor(file: string, timeoutMs = 10_000): Promise<VaultEvent> {
  const deadline = Date.now() + timeoutMs;
  return new Promise((resolve, reject) => {
    const poll = () => {
      const hit = seen.find((s) => s.event.path === file);
      if (hit) return resolve(hit.event);
      if (Date.now() > deadline) return reject(new Error(`no event for ${file}`));
      setTimeout(poll, 10);
    };
    poll();
  });
}

const T = (name: string) => path.join(dir, 'Meetings/Transcripts', name);

describe('watching the vault', () => {
  it('a transcript written in pieces is reported once, after the last piece, with its whole content', async () => {
    // The quiet period is time: on a loaded machine a real gap between two pieces can outlast
    // any period, and such a write then rightly is two events. So the watcher's clock is fake
    // here (the file events are real): each gap is exactly 400 ms, inside the 600 ms period,
    // and only once the watcher has seen the piece before it; eight gaps together outlast the
    // period, which each piece must start again.
    await watch(600);
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout'] });
    const file = T('Growing.md');
    const head = '---\nmeeting: "[[Meetings/Growing]]"\nstate: finished\n---\n';
    await writeSeen(file, () => writeFileSync(file, head));
    let full = head;
    for (let i = 0; i < 8; i++) {
      await vi.advanceTimersByTimeAsync(400);
      expect(seen).toEqual([]);
      const line = `[00:00:${String(i).padStart(2, '0')}] Alice: part ${i}\n`;
      await writeSeen(file, () => appendFileSync(file, line));
      full += line;
    }
    await vi.advanceTimersByTimeAsync(599);
    expect(seen).toEqual([]);
    // vi.waitFor (not the helpers' waitFor, whose sleeps are on the faked clock): each of its
    // checks moves the fake clock on, until the period has passed and the event is through.
    const settled = { timeout: 10_000, interval: 20 };
    await vi.waitFor(() => expect(seen.some((s) => s.event.path === file)).toBe(true), settled);
    // A sentinel written afterwards proves every event of the growing file has been delivered.
    writeFileSync(T('Sentinel.md'), '---\nstate: transcribing\n---\n');
    await vi.waitFor(() => expect(seen.some((s) => s.event.path === T('Sentinel.md'))).toBe(true), settled);
    const events = seen.filter((s) => s.event.path === file);
    expect(events).toHaveLength(1);
    expect(events[0]!.content).toBe(full);
  });

  it('ignores editor swap and backup files, temporaries, .trash and non-Markdown files', async () => {
    mkdirSync(path.join(dir, '.trash/Meetings/Transcripts'), { recursive: true });
    await watch();
    const ignored = [
      T('.Sync.md.swp'),
      T('Sync.md~'),
      T('.#Sync.md'),
      T('4913'),
      T('.Sync.md.a1b2c3.ma-tmp'),
      T('recording.m4a'),
      path.join(dir, '.trash/Meetings/Transcripts/Old.md'),
    ];
    for (const file of ignored) writeFileSync(file, '---\nstate: finished\n---\n');
    writeFileSync(T('Sentinel.md'), '---\nstate: transcribing\n---\n');
    await eventFor(T('Sentinel.md'));
    expect(seen.map((s) => path.relative(dir, s.event.path))).toEqual(['Meetings/Transcripts/Sentinel.md']);
  });

  it("the vault's own atomic write is one change event for the note, never one for its temporary file", async () => {
    const file = path.join(dir, 'Meetings/Summaries/S.md');
    writeFileSync(file, '---\nstatus: failed\nretry: false\n---\n');
    await watch();
    await vault.write(file, '---\nstatus: done\n---\n## Summary\n');
    await eventFor(file);
    writeFileSync(T('Sentinel.md'), '---\nstate: transcribing\n---\n');
    await eventFor(T('Sentinel.md'));
    const forSummary = seen.filter((s) => s.event.path !== T('Sentinel.md'));
    expect(forSummary).toEqual([{ event: { type: 'change', path: file }, content: '---\nstatus: done\n---\n## Summary\n' }]);
  });
});

describe('the folder watcher (one watch per folder, none per file)', () => {
  it('watches folders, not files; a folder made later is watched, its notes are adds; removing it unlinks them', async () => {
    mkdirSync(path.join(dir, 'Meetings/Transcripts/2025'), { recursive: true });
    for (let i = 0; i < 30; i++) writeFileSync(T(`2025/Old ${i}.md`), '---\nstate: finished\n---\n');
    const events: VaultEvent[] = [];
    const errors: string[] = [];
    const watcher = new DirectoryWatcher({
      roots: [path.join(dir, 'Meetings/Transcripts')],
      ignored: () => false,
      onRaw: () => undefined,
      onSettled: (type, p) => events.push({ type, path: p }),
      quietMs: 50,
      onError: (err) => errors.push(String(err)),
      onUnwatched: (_folder, err) => errors.push(String(err)),
    });
    try {
      await watcher.ready;
      expect(watcher.watchedFolders).toBe(2);
      mkdirSync(T('2026'));
      writeFileSync(T('2026/New.md'), '---\nstate: recording\n---\n');
      const until = async (check: () => boolean, what: string) => {
        const deadline = Date.now() + 10_000;
        while (!check()) {
          if (Date.now() > deadline) throw new Error(`no ${what}: ${JSON.stringify(events)}`);
          await new Promise((r) => setTimeout(r, 10));
        }
      };
      await until(() => events.some((e) => e.path === T('2026/New.md')), 'add');
      expect(events).toEqual([{ type: 'add', path: T('2026/New.md') }]);
      expect(watcher.watchedFolders).toBe(3);
      writeFileSync(T('2026/New.md'), '---\nstate: finished\n---\n');
      await until(() => events.length === 2, 'change');
      expect(events[1]).toEqual({ type: 'change', path: T('2026/New.md') });
      rmSync(T('2025'), { recursive: true });
      await until(() => events.length === 32, 'unlinks');
      expect(new Set(events.slice(2).map((e) => e.type))).toEqual(new Set(['unlink']));
      // The files' own events may settle before the folder's: its watch ends when the folder's does.
      await until(() => watcher.watchedFolders === 2, 'removed folder let go');
      expect(events).toHaveLength(32);
      expect(errors).toEqual([]);
    } finally {
      await watcher.close();
    }
  });
});

describe('folders removed and made again (git checkout, a sync tool replacing a folder)', () => {
  const note = '---\nstate: finished\n---\n';

  it('a folder removed and made again at once is watched again: its notes are seen', async () => {
    mkdirSync(T('2026'));
    writeFileSync(T('2026/Old.md'), note);
    await watch();
    // Within the quiet period, and the new folder often gets the old one's inode number.
    rmSync(T('2026'), { recursive: true });
    mkdirSync(T('2026'));
    writeFileSync(T('2026/New.md'), note);
    await eventFor(T('2026/New.md'));
    writeFileSync(T('2026/Later.md'), note);
    expect(await eventFor(T('2026/Later.md'))).toEqual({ type: 'add', path: T('2026/Later.md') });
  });

  it('the transcripts folder itself removed and made again: notes written in it later are seen', async () => {
    writeFileSync(T('Old.md'), note);
    await watch();
    rmSync(T(''), { recursive: true });
    await eventFor(T('Old.md'));
    mkdirSync(T(''));
    writeFileSync(T('New.md'), note);
    expect(await eventFor(T('New.md'))).toEqual({ type: 'add', path: T('New.md') });
    // At once, this time: the old watch hears nothing of the new folder.
    rmSync(T(''), { recursive: true });
    mkdirSync(T(''));
    writeFileSync(T('Again.md'), note);
    expect(await eventFor(T('Again.md'))).toEqual({ type: 'add', path: T('Again.md') });
  });
});

describe('a sync tool that sets the old mtime back (docs/design.md §4)', () => {
  // Obsidian Sync writes new bytes in place, then restores the file's old mtime: chokidar's
  // own change test (mtime changed, or atime not newer) let that pass unseen.
  const OLD = new Date('2026-11-01T10:00:00Z');
  const syncWrite = (file: string, text: string) => {
    writeFileSync(file, text);
    utimesSync(file, new Date(), OLD);
  };

  it('a transcript rewritten in place with its old mtime restored is reported with the new content', async () => {
    const file = T('Synced.md');
    writeFileSync(file, '---\nstate: recording\n---\n');
    utimesSync(file, OLD, OLD);
    await watch();
    syncWrite(file, '---\nstate: finished!\n---\n');
    await eventFor(file);
    expect(seen.find((s) => s.event.path === file)).toEqual({ event: { type: 'change', path: file }, content: '---\nstate: finished!\n---\n' });
  });

  it('a project file rewritten that way reaches the caches', async () => {
    const note = path.join(dir, 'Projects/Alpha/Budget.md');
    mkdirSync(path.dirname(note), { recursive: true });
    writeFileSync(note, 'budget: 1000 EUR\n');
    utimesSync(note, OLD, OLD);
    source = watchVault(vault, resolveConfig({}).settings, silentLogger, { cacheFolders: [vault.layout.folders.Projects] });
    const changed: string[] = [];
    source.onChange?.((p) => changed.push(p));
    await source.ready;
    syncWrite(note, 'budget: 9000 EUR\n');
    const deadline = Date.now() + 10_000;
    while (!changed.includes(note) && Date.now() < deadline) await new Promise((r) => setTimeout(r, 10));
    expect(changed).toContain(note);
  });
});

describe('watching the projects for the search cache', () => {
  it('reports every change below a cache folder at once, and no note event for it', async () => {
    source = watchVault(vault, resolveConfig({}).settings, silentLogger, { cacheFolders: [vault.layout.folders.Projects] });
    const changed: string[] = [];
    source.onChange?.((p) => changed.push(p));
    source.on((event) => seen.push({ event, content: undefined }));
    await source.ready;

    const note = path.join(dir, 'Projects/Alpha/Overview.md');
    const data = path.join(dir, 'Projects/Alpha/data.csv');
    mkdirSync(path.dirname(note), { recursive: true });
    writeFileSync(note, '# Alpha\n');
    writeFileSync(data, 'a,b\n');
    const transcript = T('2026-11-30 Sync.md');
    writeFileSync(transcript, '---\nstate: transcribing\n---\n');

    await eventFor(transcript);
    const deadline = Date.now() + 10_000;
    while (!(changed.includes(note) && changed.includes(data)) && Date.now() < deadline) {
      await new Promise((r) => setTimeout(r, 10));
    }
    expect(changed).toContain(note);
    expect(changed).toContain(data);
    expect(changed).toContain(path.join(dir, 'Projects/Alpha'));
    expect(seen.map((s) => s.event.path)).toEqual([transcript]);
  });
});

describe('a project folder that is a link', () => {
  it('to a folder elsewhere in the vault: its changes reach the caches under the project path; links out of the vault or inside it are not followed', async () => {
    const outside = mkdtempSync(path.join(os.tmpdir(), 'ma-outside-'));
    try {
      mkdirSync(path.join(dir, 'Shared/Alpha'), { recursive: true });
      writeFileSync(path.join(dir, 'Shared/Alpha/Plan.md'), 'budget: 1000 EUR\n');
      symlinkSync(path.join(dir, 'Shared/Alpha'), path.join(dir, 'Projects/Alpha'));
      // A loop back to the projects from inside the linked folder, and a link out of the vault.
      symlinkSync(path.join(dir, 'Projects'), path.join(dir, 'Shared/Alpha/Back'));
      symlinkSync(outside, path.join(dir, 'Projects/Out'));
      source = watchVault(vault, resolveConfig({}).settings, silentLogger, { cacheFolders: [vault.layout.folders.Projects] });
      const changed: string[] = [];
      source.onChange?.((p) => changed.push(path.relative(dir, p)));
      await source.ready;
      writeFileSync(path.join(outside, 'Secret.md'), 'x\n');
      writeFileSync(path.join(dir, 'Shared/Alpha/Plan.md'), 'budget: 9000 EUR\n');
      const deadline = Date.now() + 10_000;
      while (!changed.includes('Projects/Alpha/Plan.md') && Date.now() < deadline) await new Promise((r) => setTimeout(r, 10));
      expect(changed).toContain('Projects/Alpha/Plan.md');
      expect(changed.filter((p) => p.startsWith('Projects/Out') || p.startsWith('Projects/Alpha/Back/'))).toEqual([]);
    } finally {
      rmSync(outside, { recursive: true, force: true });
    }
  });
});

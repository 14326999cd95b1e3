import { describe, expect, it } from 'vitest';
import type { Fs } from '../../../src/vault/files/fs.js';
import { LateMergeError, lateMerge } from '../../../src/vault/files/late-writes.js';
import { ConcurrentEditError, UNCHANGED, updateFile } from '../../../src/vault/files/update.js';
import { FileTooLargeError } from '../../../src/vault/files/regular-file.js';
import { type LateWriteEvent, LinkOutsideVaultError, Vault } from '../../../src/vault/files/vault.js';
import { eventWithin, renameGate } from '../../helpers/gates.js';
import { memoryFs, testConfig } from '../../helpers/memfs.js';
import { symlink } from '../../helpers/tool-harness.js';

/** Compare before replacing (vault/files/update.ts) on memfs, with another writer simulated at exact moments. */

const FILE = '/vault/Projects/Alpha/Log.md';
const append = (line: string) => (current: string | undefined) => `${current ?? ''}${line}\n`;

/** An fs whose `hook` runs before the n-th read of FILE by path (the compare reads by path; the first read is by handle). */
function withReadHook(fs: Fs, hook: (n: number) => Promise<void>): Fs {
  let n = 0;
  return new Proxy(fs, {
    get(target, prop, receiver) {
      if (prop === 'readFile') {
        return async (file: string) => {
          if (file === FILE) await hook(++n);
          return target.readFile(file);
        };
      }
      return Reflect.get(target, prop, receiver) as unknown;
    },
  });
}

interface OpenedByEditor {
  write(content: string): Promise<void>;
  append(content: string): Promise<void>;
  /** An open with truncate, its write still to come. */
  truncate(): Promise<void>;
}

/**
 * An fs where a person's editor opens FILE right before the daemon's first rename over it
 * (the `at`-th): its writes (`beforeRename`, or later) land in the replaced file (an editor
 * descheduled between open and write).
 */
function editorHoldingReplacedFile(
  base: Fs,
  beforeRename?: (editor: OpenedByEditor) => Promise<void>,
  at = 1,
): { fs: Fs; editor: Promise<OpenedByEditor> } {
  let resolve!: (e: OpenedByEditor) => void;
  const editor = new Promise<OpenedByEditor>((r) => (resolve = r));
  let renames = 0;
  const fs = new Proxy(base, {
    get(target, prop, receiver) {
      if (prop === 'rename') {
        return async (from: string, to: string) => {
          if (to === FILE && ++renames === at) {
            const h = (await target.open(FILE, 'r+')) as unknown as {
              truncate(n: number): Promise<void>;
              write(s: string, pos: number): Promise<unknown>;
              stat(): Promise<{ size: number }>;
            };
            const opened: OpenedByEditor = {
              write: async (content) => {
                await h.truncate(0);
                await h.write(content, 0);
              },
              append: async (content) => void (await h.write(content, (await h.stat()).size)),
              truncate: () => h.truncate(0),
            };
            await beforeRename?.(opened);
            resolve(opened);
          }
          return target.rename(from, to);
        };
      }
      return Reflect.get(target, prop, receiver) as unknown;
    },
  });
  return { fs, editor };
}

const readNow = async (fs: Fs) => Buffer.from(await fs.readFile(FILE)).toString();

/**
 * The daemon appends `agent` to 'title\nx\n' with a watch window of five looks (5 + 10 + 20 +
 * 40 + 80 ms); an editor that opened the file before the rename truncates it within that
 * window, and its write is still to come once the watch has looked eight times more (past the
 * window: without the wait for a rewrite under way, it would have ended).
 */
async function truncatedPastWindow() {
  const base = memoryFs({ 'Projects/Alpha/Log.md': 'title\nx\n' });
  const { fs: editorFs, editor } = editorHoldingReplacedFile(base);
  const { fs, reads } = countingHandleReads(editorFs);
  const vault = new Vault(fs, testConfig().layout, { lateWatchMs: 100 });
  await vault.update(FILE, append('agent'));
  const opened = await editor;
  await opened.truncate();
  const before = reads();
  expect(await eventWithin(() => reads() >= before + 8, 10_000)).toBe(true);
  return { base, vault, opened, reads };
}

/** An fs that counts the reads made through handles of FILE (a watch's looks at the replaced file). */
function countingHandleReads(base: Fs): { fs: Fs; reads: () => number } {
  let reads = 0;
  const fs = new Proxy(base, {
    get(target, prop, receiver) {
      if (prop === 'open') {
        return async (file: string, flags: string | number, mode?: number) => {
          const handle = await target.open(file, flags, mode);
          if (file !== FILE) return handle;
          return new Proxy(handle, {
            get(h, p, r) {
              if (p === 'read') return (...args: unknown[]) => (reads++, (h.read as (...a: unknown[]) => unknown).apply(h, args));
              const value = Reflect.get(h, p, r) as unknown;
              return typeof value === 'function' ? (value as (...a: unknown[]) => unknown).bind(h) : value;
            },
          });
        };
      }
      return Reflect.get(target, prop, receiver) as unknown;
    },
  });
  return { fs, reads: () => reads };
}

describe('lateMerge (a write that landed in a replaced file, merged into the file as it is now)', () => {
  it('nothing new, or a rewrite under way (empty or a prefix of what was seen): nothing to merge yet', () => {
    expect(lateMerge('a\nb\n', 'a\nb\n')).toBeUndefined();
    expect(lateMerge('a\nb\n', '')).toBeUndefined();
    expect(lateMerge('a\nb\n', 'a\nb')).toBeUndefined();
  });

  it('an addition at the end is appended to the current content', () => {
    expect(lateMerge('a\n', 'a\nperson\n')?.('a\nagent\n')).toBe('a\nagent\nperson\n');
  });

  it('any other change is a three-way merge: the person\'s line and the daemon\'s lines are all kept', () => {
    // The editor inserted a line in the middle of what it read; the daemon appended since.
    const merge = lateMerge('title\nx\ny\nz\n', 'title\nperson\nx\ny\nz\n');
    expect(merge?.('title\nx\ny\nz\nagent\nsecond\n')).toBe('title\nperson\nx\ny\nz\nagent\nsecond\n');
  });

  it('when the diff does not apply (its lines changed meanwhile), the lines it added are inserted after the line they followed', () => {
    const merge = lateMerge('a\nold\nc\n', 'a\nnew\nc\n');
    expect(merge?.('a\nother\nc\nmore\n')).toBe('a\nnew\nother\nc\nmore\n');
    expect(merge?.('unrelated\n')).toBe('unrelated\nnew\n');
  });

  it('a frontmatter line that does not apply is not doubled (the note would not parse): LateMergeError', () => {
    const merge = lateMerge('---\nattendees: [A]\n---\nbody\n', '---\nattendees: [A, B]\n---\nbody\n');
    expect(() => merge?.('---\nattendees: [A, C]\n---\nbody\n')).toThrow(LateMergeError);
    expect(() => merge?.(undefined)).toThrow(LateMergeError);
  });
});

describe('updateFile', () => {
  it('applies the change to the file as it is, writing nothing when the transform changes nothing', async () => {
    const fs = memoryFs({ 'Projects/Alpha/Log.md': 'a\n' });
    const r = await updateFile(fs, FILE, append('b'));
    expect(r).toMatchObject({ before: 'a\n', after: 'a\nb\n', changed: true, attempts: 1 });
    const same = await updateFile(fs, FILE, () => UNCHANGED);
    expect(same).toMatchObject({ changed: false, after: 'a\nb\n' });
  });

  it('a line another program appends between the read and the rename is kept, after the change', async () => {
    const base = memoryFs({ 'Projects/Alpha/Log.md': 'a\n' });
    const fs = withReadHook(base, async (n) => {
      if (n === 1) await base.writeFile(FILE, 'a\nperson\n');
    });
    const r = await updateFile(fs, FILE, append('agent'));
    expect(Buffer.from(await base.readFile(FILE)).toString()).toBe('a\nagent\nperson\n');
    // The result is this write's own change: the audit shows the agent's line, not the person's.
    expect(r).toMatchObject({ before: 'a\n', after: 'a\nagent\n', attempts: 1 });
  });

  it('a file rewritten between the read and the rename gets the change applied again to the new content', async () => {
    const base = memoryFs({ 'Projects/Alpha/Log.md': 'a\n' });
    const fs = withReadHook(base, async (n) => {
      if (n === 1) await base.writeFile(FILE, 'rewritten by a person\n');
    });
    const r = await updateFile(fs, FILE, append('agent'));
    expect(Buffer.from(await base.readFile(FILE)).toString()).toBe('rewritten by a person\nagent\n');
    expect(r).toMatchObject({ before: 'rewritten by a person\n', after: 'rewritten by a person\nagent\n', attempts: 2 });
  });

  it('a line appended to the replaced file in the last instant (after the compare) is appended to the new one', async () => {
    const base = memoryFs({ 'Projects/Alpha/Log.md': 'a\n' });
    // Into the old file, which the rename is about to replace.
    const { fs } = editorHoldingReplacedFile(base, (editor) => editor.append('late\n'));
    await updateFile(fs, FILE, append('agent'));
    expect(Buffer.from(await base.readFile(FILE)).toString()).toBe('a\nagent\nlate\n');
  });

  it('gives up after the bound, leaving the other program\'s content, when the file never stops changing', async () => {
    const base = memoryFs({ 'Projects/Alpha/Log.md': 'a\n' });
    let i = 0;
    const fs = withReadHook(base, async () => base.writeFile(FILE, `a\nchanged ${++i}\n`));
    await expect(updateFile(fs, FILE, append('agent'), { maxAttempts: 5 })).rejects.toBeInstanceOf(ConcurrentEditError);
    expect(Buffer.from(await base.readFile(FILE)).toString()).toBe(`a\nchanged ${i}\n`);
    expect((await base.readdir('/vault/Projects/Alpha', { withFileTypes: true })).map((e) => e.name)).toEqual(['Log.md']);
  });

  it('a refusal thrown by the transform writes nothing', async () => {
    const fs = memoryFs({ 'Projects/Alpha/Log.md': 'a\n' });
    await expect(
      updateFile(fs, FILE, () => {
        throw new Error('refused');
      }),
    ).rejects.toThrow('refused');
    expect(Buffer.from(await fs.readFile(FILE)).toString()).toBe('a\n');
  });

  it('a file that grows past maxBytes between the read and the rename: refused, and no temp file is left behind', async () => {
    const base = memoryFs({ 'Projects/Alpha/Log.md': 'a\n' });
    const fs = withReadHook(base, async (n) => {
      if (n === 1) await base.writeFile(FILE, `a\n${'x'.repeat(100)}\n`);
    });
    await expect(updateFile(fs, FILE, append('agent'), { maxBytes: 50 })).rejects.toThrow(FileTooLargeError);
    expect((await base.readdir('/vault/Projects/Alpha', { withFileTypes: true })).map((e) => e.name)).toEqual(['Log.md']);
  });
});

describe('Vault.update', () => {
  it('one writer per file: 40 concurrent appends from many callers all land', async () => {
    const vault = new Vault(memoryFs({ 'Projects/Alpha/Log.md': '' }), testConfig().layout);
    await Promise.all(Array.from({ length: 40 }, (_, i) => vault.update(FILE, append(`line ${i}`))));
    const lines = (await vault.read(FILE)).trim().split('\n');
    expect(lines.sort()).toEqual(Array.from({ length: 40 }, (_, i) => `line ${i}`).sort());
    expect(vault.locks.size).toBe(0);
  });

  it('one writer per file: a second update of the path waits while the first is between its read and its rename', async () => {
    const { fs, held, release } = renameGate(memoryFs({ 'Projects/Alpha/Log.md': 'a\n' }), FILE);
    const vault = new Vault(fs, testConfig().layout, { lateWatchMs: 0 });
    const log: string[] = [];
    const first = vault.update(FILE, (current) => (log.push('first: transform'), `${current ?? ''}first\n`));
    await held;
    const second = vault.update(FILE, (current) => (log.push('second: transform'), `${current ?? ''}second\n`));
    // The second transform must not run before the first has renamed (bounded wait for an event that must not come).
    expect(await eventWithin(() => log.includes('second: transform'), 200)).toBe(false);
    log.push('first: rename');
    release();
    await Promise.all([first, second]);
    expect(log).toEqual(['first: transform', 'first: rename', 'second: transform']);
    expect(await vault.read(FILE)).toBe('a\nfirst\nsecond\n');
  });

  it('a symbolic link inside the vault is written through and stays a link', async () => {
    const fs = memoryFs({ 'People/Real note.md': '---\nattendees: [A]\n---\nbody\n', 'Meetings/Other.md': '' });
    await symlink(fs, '/vault/People/Real note.md', '/vault/Meetings/Link.md');
    const vault = new Vault(fs, testConfig().layout);
    await vault.update('/vault/Meetings/Link.md', append('more'));
    expect((await fs.lstat('/vault/Meetings/Link.md')).isSymbolicLink()).toBe(true);
    expect(await vault.read('/vault/People/Real note.md')).toBe('---\nattendees: [A]\n---\nbody\nmore\n');
  });

  it('the configured dictionary may link outside the vault (written through); a note may not', async () => {
    const fs = memoryFs({ '/recognizer/words.txt': 'Kubernetes\n', '/elsewhere/note.md': 'x\n', 'Meetings/Other.md': '' });
    await symlink(fs, '/recognizer/words.txt', '/vault/Meetings/Dictionary.md');
    await symlink(fs, '/elsewhere/note.md', '/vault/Meetings/Outside.md');
    const vault = new Vault(fs, testConfig().layout);
    await vault.update('/vault/Meetings/Dictionary.md', append('Anthropic'));
    expect((await fs.lstat('/vault/Meetings/Dictionary.md')).isSymbolicLink()).toBe(true);
    expect(Buffer.from(await fs.readFile('/recognizer/words.txt')).toString()).toBe('Kubernetes\nAnthropic\n');
    await expect(vault.update('/vault/Meetings/Outside.md', append('y'))).rejects.toBeInstanceOf(LinkOutsideVaultError);
    expect(Buffer.from(await fs.readFile('/elsewhere/note.md')).toString()).toBe('x\n');
  });

  it('an editor descheduled past the verify appends to the replaced file: merged in the background, settled() waits for it', async () => {
    const base = memoryFs({ 'Projects/Alpha/Log.md': 'a\n' });
    const { fs, editor } = editorHoldingReplacedFile(base);
    const vault = new Vault(fs, testConfig().layout, { lateWatchMs: 300 });
    const events: LateWriteEvent[] = [];
    vault.onLateWrite((e) => events.push(e));
    await vault.update(FILE, append('agent'));
    // After the update returned (its own verify is over): the editor's write lands now.
    await (await editor).append('person\n');
    await vault.settled();
    expect(await readNow(base)).toBe('a\nagent\nperson\n');
    expect(events).toEqual([{ file: 'Projects/Alpha/Log.md', outcome: 'merged' }]);
  });

  it('settled({ now: true }) (a stopping daemon) merges what has landed in the replaced file and ends the watch without waiting it out', async () => {
    const base = memoryFs({ 'Projects/Alpha/Log.md': 'a\n' });
    const { fs, editor } = editorHoldingReplacedFile(base);
    // A watch far longer than any test: only the early end lets settled() return.
    const vault = new Vault(fs, testConfig().layout, { lateWatchMs: 600_000 });
    await vault.update(FILE, append('agent'));
    await (await editor).append('person\n');
    await vault.settled({ now: true });
    expect(await readNow(base)).toBe('a\nagent\nperson\n');
    // Writes after the stop began take their one look at once, too.
    await vault.update(FILE, append('after'));
    await vault.settled({ now: true });
    expect(await readNow(base)).toBe('a\nagent\nperson\nafter\n');
  });

  it('a write per transcript part, many within the watch window: no abort listener per watch (MaxListenersExceededWarning), settled({ now }) ends them all', async () => {
    const warnings: Error[] = [];
    const onWarning = (w: Error) => warnings.push(w);
    process.on('warning', onWarning);
    try {
      const vault = new Vault(memoryFs({ 'Projects/Alpha/Log.md': '' }), testConfig().layout, { lateWatchMs: 600_000 });
      for (let i = 0; i < 30; i++) await vault.update(FILE, append(`part ${i}`));
      await vault.settled({ now: true });
      // A warning is emitted on the next tick: give it one.
      await new Promise((resolve) => setImmediate(resolve));
    } finally {
      process.off('warning', onWarning);
    }
    expect(warnings.filter((w) => w.name === 'MaxListenersExceededWarning')).toEqual([]);
  });

  it('an editor rewriting in place (truncate, write) into the replaced file late: its line is merged, the daemon\'s later write kept', async () => {
    const base = memoryFs({ 'Projects/Alpha/Log.md': 'title\nx\n' });
    const { fs, editor } = editorHoldingReplacedFile(base);
    const vault = new Vault(fs, testConfig().layout, { lateWatchMs: 300 });
    await vault.update(FILE, append('agent 1'));
    // The daemon writes again (the new file), then the editor's stale rewrite lands in the old one.
    await vault.update(FILE, append('agent 2'));
    await (await editor).write('title\nperson\nx\n');
    await vault.settled();
    expect(await readNow(base)).toBe('title\nperson\nx\nagent 1\nagent 2\n');
    expect(await vault.exists('/vault/.trash/Projects/Alpha/Log.md')).toBe(false);
  });

  it('a replaced file left truncated when the watch window ends (an editor\'s write held up): watched on until the write lands, then merged', async () => {
    // Found by the concurrent-edits fault suite under load: the editor's open truncated the
    // replaced file, and its write came after the window (a disk throttling writers).
    const { base, vault, opened } = await truncatedPastWindow();
    await opened.write('title\nx\nperson\n');
    await vault.settled();
    expect(await readNow(base)).toBe('title\nx\nagent\nperson\n');
  });

  it('past the window only the replaced file is watched: a person who removes the daemon\'s line then is not undone', async () => {
    const { base, vault, opened, reads } = await truncatedPastWindow();
    // Past the window, the rewrite still under way: a person removes the daemon's line.
    await base.writeFile(FILE, 'title\nx\n');
    const removed = reads();
    expect(await eventWithin(() => reads() >= removed + 4, 10_000)).toBe(true);
    await opened.write('title\nx\nperson\n');
    await vault.settled();
    expect(await readNow(base)).toBe('title\nx\nperson\n');
  });

  it('a late write that no longer applies to the file is kept in .trash/, never dropped', async () => {
    const base = memoryFs({ 'Projects/Alpha/Log.md': '---\nstatus: a\n---\nbody\n' });
    const { fs, editor } = editorHoldingReplacedFile(base);
    const vault = new Vault(fs, testConfig().layout, { lateWatchMs: 300 });
    const events: LateWriteEvent[] = [];
    vault.onLateWrite((e) => events.push(e));
    await vault.update(FILE, () => '---\nstatus: by the daemon\n---\nbody\n');
    await (await editor).write('---\nstatus: by a person\n---\nbody\n');
    await vault.settled();
    expect(await readNow(base)).toBe('---\nstatus: by the daemon\n---\nbody\n');
    expect(await vault.read('/vault/.trash/Projects/Alpha/Log.md')).toBe('---\nstatus: by a person\n---\nbody\n');
    expect(events).toEqual([{ file: 'Projects/Alpha/Log.md', outcome: 'kept-in-trash', trash: '.trash/Projects/Alpha/Log.md' }]);
  });

  it('an editor rewriting from what it read before the daemon\'s write (a stale rewrite) drops the daemon\'s line: it is put back', async () => {
    const fs = memoryFs({ 'Projects/Alpha/Log.md': 'a\n' });
    const vault = new Vault(fs, testConfig().layout, { lateWatchMs: 300 });
    const events: LateWriteEvent[] = [];
    vault.onLateWrite((e) => events.push(e));
    await vault.update(FILE, append('agent'));
    // The editor read 'a\n' before the rename and writes its version now, over the new file.
    await fs.writeFile(FILE, 'a\nperson\n');
    await vault.settled();
    expect(await readNow(fs)).toBe('a\nperson\nagent\n');
    expect(events).toEqual([{ file: 'Projects/Alpha/Log.md', outcome: 'restored' }]);
  });

  it('a write of the daemon made on top of the stale rewrite does not stop the restore', async () => {
    const fs = memoryFs({ 'Projects/Alpha/Log.md': 'a\n' });
    const vault = new Vault(fs, testConfig().layout, { lateWatchMs: 300 });
    await vault.update(FILE, append('agent 1'));
    await fs.writeFile(FILE, 'a\nperson\n');
    await vault.update(FILE, append('agent 2'));
    await vault.settled();
    expect(await readNow(fs)).toBe('a\nperson\nagent 2\nagent 1\n');
  });

  it('the daemon\'s own later removal of its line is not undone, nor a person\'s edit that kept it', async () => {
    const fs = memoryFs({ 'Projects/Alpha/Log.md': 'a\n' });
    const vault = new Vault(fs, testConfig().layout, { lateWatchMs: 300 });
    await vault.update(FILE, append('agent'));
    await fs.writeFile(FILE, 'a\nagent edited by a person\nagent\n');
    await vault.update(FILE, (current) => (current ?? '').replace(/^agent\n/m, ''));
    await fs.writeFile(FILE, 'a\nagent edited by a person\nperson\n');
    await vault.settled();
    expect(await readNow(fs)).toBe('a\nagent edited by a person\nperson\n');
  });

  it('a stale rewrite merged from a replaced file inside a write does not count as the daemon removing the lines it lacks: a merged person\'s line it dropped is put back', async () => {
    // Found by the concurrent-edits fault suite under load: an editor reads the file, the daemon
    // renames twice (a merge of the editor's previous line, then a write of its own), and the
    // editor's rewrite of what it read lands in the file the second rename replaced.
    const base = memoryFs({ 'Projects/Alpha/Log.md': 'a\n' });
    const first = editorHoldingReplacedFile(base);
    // The 3rd rename: the daemon's second write (the 2nd is the merge of 'person 1').
    const { fs } = editorHoldingReplacedFile(first.fs, (editor) => editor.write('a\nagent 1\nperson 2\n'), 3);
    const vault = new Vault(fs, testConfig().layout, { lateWatchMs: 600_000 });
    const events: LateWriteEvent[] = [];
    vault.onLateWrite((e) => events.push(e));
    await vault.update(FILE, append('agent 1'));
    await (await first.editor).append('person 1\n');
    expect(await eventWithin(() => events.some((e) => e.outcome === 'merged'), 10_000)).toBe(true);
    expect(await readNow(base)).toBe('a\nagent 1\nperson 1\n');
    await vault.update(FILE, append('agent 2'));
    await vault.settled({ now: true });
    const lines = (await readNow(base)).split('\n');
    expect(lines.filter((l) => l !== '').sort()).toEqual(['a', 'agent 1', 'agent 2', 'person 1', 'person 2']);
  });

  it('replace keeps what it replaces in .trash/ when asked, including a version written after the copy', async () => {
    const fs = memoryFs({ 'Meetings/Summaries/S.md': 'person v1\n' });
    const vault = new Vault(fs, testConfig().layout);
    await vault.replace('/vault/Meetings/Summaries/S.md', 'summary\n', () => true);
    expect(await vault.read('/vault/Meetings/Summaries/S.md')).toBe('summary\n');
    expect(await vault.read('/vault/.trash/Meetings/Summaries/S.md')).toBe('person v1\n');
  });
});

import { mkdirSync, mkdtempSync, rmSync, statSync, symlinkSync, utimesSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { resolveConfig } from '../../../src/config.js';
import { HeadCache } from '../../../src/vault/scan/head-cache.js';
import { PastSummaryIndex } from '../../../src/tools/cache/past-index.js';
import { createToolBinding, createToolRegistry } from '../../../src/tools/registry.js';
import { nodeFs } from '../../../src/vault/files/fs.js';
import { Vault } from '../../../src/vault/files/vault.js';
import { artifacts, closeHarnessCaches, harness } from '../../helpers/tool-harness.js';
import { nextMillisecond } from '../../helpers/memfs.js';

/**
 * docs/design.md §4: a sync tool (Obsidian Sync) writes new bytes and sets the old mtime
 * back. A cache of file contents that compared only mtime and size answered the old text.
 */

afterAll(closeHarnessCaches);

const NOTES = '/vault/Projects/Alpha/notes.md';


describe('caches of file contents notice a rewrite with the old mtime set back', () => {
  it('search (memfs): same size, same mtime, new bytes: the new text is found, the old is not', async () => {
    const h = harness({ files: { 'Projects/Alpha/notes.md': 'budget: 1000 EUR\n' } });
    const fs = h.fs as unknown as { utimes(p: string, a: Date, m: Date): Promise<void> };
    const utimes = (p: string, a: Date, m: Date) => fs.utimes(p, a, m);
    const old = new Date('2026-11-01T10:00:00Z');
    await utimes(NOTES, old, old);
    expect((await h.call('search', { keywords: ['budget'] })).content).toContain('budget: 1000 EUR');
    nextMillisecond();
    await h.fs.writeFile(NOTES, 'budget: 9000 EUR\n');
    await utimes(NOTES, new Date(), old);
    const stat = await h.fs.stat(NOTES);
    expect([stat.mtimeMs, stat.size]).toEqual([old.getTime(), 'budget: 1000 EUR\n'.length]);
    const after = (await h.call('search', { keywords: ['budget'] })).content;
    expect(after).toContain('budget: 9000 EUR');
    expect(after).not.toContain('1000');
  });

  describe('on a real filesystem (the change time cannot be set back)', () => {
    const root = mkdtempSync(path.join(os.tmpdir(), 'ma-stale-'));
    const config = resolveConfig({ MeetingAssistant: { VaultPath: root } });
    for (const folder of Object.values(config.layout.folders)) mkdirSync(folder, { recursive: true });
    const vault = new Vault(nodeFs, config.layout);
    const abs = (rel: string) => path.join(root, rel);
    afterAll(() => rmSync(root, { recursive: true, force: true }));

    const OLD = new Date('2026-11-01T10:00:00Z');
    /** A note last modified long ago (a whole second: utimes keeps it exactly). */
    function oldNote(file: string, text: string): void {
      writeFileSync(file, text);
      utimesSync(file, OLD, OLD);
    }
    /** Write `text` in place and set the mtime back, as Obsidian Sync does. */
    function syncWrite(file: string, text: string): void {
      const before = statSync(file);
      writeFileSync(file, text);
      utimesSync(file, new Date(), OLD);
      const after = statSync(file);
      expect([after.mtimeMs, after.size, after.ino]).toEqual([before.mtimeMs, before.size, before.ino]);
    }

    it('search answers the new text', async () => {
      mkdirSync(abs('Projects/Alpha'), { recursive: true });
      const file = abs('Projects/Alpha/Budget.md');
      oldNote(file, 'budget: 1000 EUR\n');
      const ctx = createToolBinding({ vault, settings: config.settings, meeting: artifacts({ meetingPath: abs('Meetings/M.md'), projects: ['Alpha'] }) });
      const registry = createToolRegistry(ctx);
      afterAll(() => ctx.caches.close());
      const search = async () => (await registry.call({ id: 'c', name: 'search', arguments: JSON.stringify({ keywords: ['budget'] }) })).content;
      expect(await search()).toContain('1000 EUR');
      syncWrite(file, 'budget: 9000 EUR\n');
      expect(await search()).toContain('9000 EUR');
    });

    it('search, watcher trusted: a link to a file in the project answers its target\'s new text (the watcher names the target, never the link)', async () => {
      mkdirSync(abs('Projects/Beta/notes'), { recursive: true });
      const target = abs('Projects/Beta/notes/2026.md');
      writeFileSync(target, 'budget: 1000 EUR\n');
      symlinkSync('notes/2026.md', abs('Projects/Beta/current.md'));
      const ctx = createToolBinding({ vault, settings: config.settings, meeting: artifacts({ meetingPath: abs('Meetings/M.md'), projects: ['Beta'] }) });
      const registry = createToolRegistry(ctx);
      afterAll(() => ctx.caches.close());
      // As the daemon does: the watcher covers the projects and reports every event there.
      ctx.caches.watch.trust([abs('Projects'), abs('Meetings/Summaries')]);
      const search = async () => (await registry.call({ id: 'c', name: 'search', arguments: JSON.stringify({ keywords: ['budget'] }) })).content;
      expect(await search()).toContain('Projects/Beta/current.md:1:budget: 1000 EUR');
      writeFileSync(target, 'budget: 9000 EUR\n');
      ctx.caches.watch.invalidate(target);
      const after = await search();
      expect(after).toContain('Projects/Beta/current.md:1:budget: 9000 EUR');
      expect(after).not.toContain('1000');
    });

    it("the catch-up scan's frontmatter cache reads the note again", async () => {
      const file = abs('Meetings/Transcripts/Sync.md');
      oldNote(file, '---\nstate: recording\n---\n');
      const heads = new HeadCache(vault);
      expect(await heads.get(file)).toEqual({ ok: true, data: { state: 'recording' } });
      syncWrite(file, '---\nstate: finished!\n---\n');
      expect(await heads.get(file)).toEqual({ ok: true, data: { state: 'finished!' } });
    });

    it('the past-summary index parses the summary again', async () => {
      const file = abs('Meetings/Summaries/Old.md');
      oldNote(file, '---\nstatus: failed\nprojects: [Alpha]\n---\nbody\n');
      const index = new PastSummaryIndex(vault);
      expect((await index.get(file))?.status).toBe('failed');
      syncWrite(file, '---\nstatus: done!!\nprojects: [Alpha]\n---\nbody\n');
      expect((await index.get(file))?.status).toBe('done!!');
    });
  });
});

import { afterAll, describe, expect, it } from 'vitest';
import { countFsCalls } from '../../helpers/memfs.js';
import { closeHarnessCaches, harness, symlink } from '../../helpers/tool-harness.js';

/**
 * The project folders of the run caches (tools/cache/project-folders.ts): where the daemon's
 * watcher covers the projects folder, `list_projects` and the tool offer read it once and then
 * only after an event of the folder, of an entry in it, or once `maxTrustMs` has gone.
 */

afterAll(() => closeHarnessCaches());

const LISTED = 'Projects of this meeting (2):\n- Alpha (Projects/Alpha/)\n- Beta (Projects/Beta/)';

/** A meeting of Alpha, Beta and Delta (no folder yet), its caches trusting a watcher on the projects folder. */
function watched() {
  const h = harness({ meeting: { projects: ['Alpha', 'Beta', 'Delta'] } });
  let now = 0;
  h.ctx.caches.watch.trust(['/vault/Projects'], { clock: () => new Date(now), maxTrustMs: 60_000 });
  const calls = countFsCalls(h.fs);
  const listed = async () => (await h.call('list_projects')).content;
  return { h, calls, listed, later: (ms: number) => (now += ms) };
}

describe('list_projects under the daemon’s watcher', () => {
  it('reads the projects folder once; a folder added, as the watcher reports it, is listed at the next call', async () => {
    const { h, calls, listed } = watched();
    expect(await listed()).toBe(`${LISTED}\nListed in the meeting note but without a project folder: Delta`);
    expect(await listed()).toBe(`${LISTED}\nListed in the meeting note but without a project folder: Delta`);
    expect(calls.readdir).toBe(1);

    await h.fs.mkdir('/vault/Projects/Delta', { recursive: true });
    h.ctx.caches.watch.invalidate('/vault/Projects/Delta');
    expect(await listed()).toBe('Projects of this meeting (3):\n- Alpha (Projects/Alpha/)\n- Beta (Projects/Beta/)\n- Delta (Projects/Delta/)');
    expect(calls.readdir).toBe(2);
  });

  it('a file written inside a project keeps the listing; the projects folder itself or a folder above it does not', async () => {
    const { h, calls, listed } = watched();
    await listed();
    h.ctx.caches.watch.invalidate('/vault/Projects/Alpha/notes.md');
    await listed();
    expect(calls.readdir).toBe(1);
    h.ctx.caches.watch.invalidate('/vault/Projects');
    await listed();
    expect(calls.readdir).toBe(2);
    h.ctx.caches.watch.invalidate('/vault');
    await listed();
    expect(calls.readdir).toBe(3);
  });

  it('reads the folder again once the trust is older than maxTrustMs', async () => {
    const { calls, listed, later } = watched();
    await listed();
    later(60_001);
    await listed();
    expect(calls.readdir).toBe(2);
  });

  it('keeps nothing read across an event (the folder may have changed after readdir saw it)', async () => {
    const { h, calls, listed } = watched();
    const readdir = h.fs.readdir.bind(h.fs);
    let once = true;
    (h.fs as unknown as { readdir: typeof h.fs.readdir }).readdir = (async (...args: Parameters<typeof h.fs.readdir>) => {
      const entries = await readdir(...args);
      if (once) {
        once = false;
        h.ctx.caches.watch.invalidate('/vault/Projects/Delta');
      }
      return entries;
    }) as typeof h.fs.readdir;
    await listed();
    await listed();
    expect(calls.readdir).toBe(2);
  });

  it('reads a folder that holds a link every time (no event of the projects folder reports its target)', async () => {
    const { h, listed } = watched();
    await h.fs.mkdir('/vault/Shared/Delta', { recursive: true });
    await symlink(h.fs, '/vault/Shared/Delta', '/vault/Projects/Delta');
    const calls = countFsCalls(h.fs);
    expect(await listed()).toContain('- Delta (Projects/Delta/)');
    await h.fs.rm('/vault/Shared/Delta', { recursive: true });
    expect(await listed()).toBe(`${LISTED}\nListed in the meeting note but without a project folder: Delta`);
    expect(calls.readdir).toBe(2);
  });

  it('reads a folder holding a name the watcher passes over every time (renamed or removed, no event says so)', async () => {
    const h = harness({ meeting: { projects: ['Alpha', 'Draft~'] } });
    h.ctx.caches.watch.trust(['/vault/Projects'], { clock: () => new Date(0), maxTrustMs: 60_000 });
    await h.fs.mkdir('/vault/Projects/Draft~', { recursive: true });
    const calls = countFsCalls(h.fs);
    expect(await h.call('list_projects').then((r) => r.content)).toContain('- Draft~ (Projects/Draft~/)');
    await h.fs.rm('/vault/Projects/Draft~', { recursive: true });
    expect(await h.call('list_projects').then((r) => r.content)).toContain('without a project folder: Draft~');
    expect(calls.readdir).toBe(2);
  });

  it('without a watcher every call reads the folder, as before', async () => {
    const h = harness({ meeting: { projects: ['Alpha'] } });
    const calls = countFsCalls(h.fs);
    await h.call('list_projects');
    await h.call('list_projects');
    expect(calls.readdir).toBe(2);
  });

  it('the idle release lets the listing go', async () => {
    const { h, calls, listed } = watched();
    await listed();
    await h.ctx.caches.release();
    await listed();
    expect(calls.readdir).toBe(2);
  });
});

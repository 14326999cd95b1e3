import { describe, expect, it } from 'vitest';
import { FileWatch, SearchTextCache } from '../../../src/tools/cache/file-cache.js';
import { Vault } from '../../../src/vault/files/vault.js';
import { memoryVault } from '../../helpers/memfs.js';

/**
 * The search reads what vault content names as every read does (vault/files/real-place.ts,
 * issue 43): a file turned into a link to the HTTP token between its look and its read is
 * never read through the link.
 */

describe('SearchTextCache: a file turned into a link while it is read', () => {
  it('a note that was a file at its look and is a link to the token at its read is not searched', async () => {
    const base = memoryVault({ 'Projects/Alpha/Log.md': 'plain notes\n', '.meeting-assistant/token': 'SECRET-TOKEN\n' });
    const note = base.abs('Projects/Alpha/Log.md');
    // A sync tool swaps the note for a link right after the search looked at it.
    const fs = new Proxy(base.fs, {
      get: (target, prop, receiver) =>
        prop === 'lstat'
          ? async (p: string) => {
              const stats = await target.lstat(p);
              if (p === note) {
                await target.unlink(note);
                await target.symlink!(base.abs('.meeting-assistant/token'), note);
              }
              return stats;
            }
          : Reflect.get(target, prop, receiver),
    });
    const vault = new Vault(fs, base.layout);
    const cache = new SearchTextCache(new FileWatch(vault), 64 * 1024 * 1024);
    const resolved = await cache.resolve(note, new Set(), false);
    expect(JSON.stringify(resolved)).not.toContain('SECRET-TOKEN');
    expect(resolved).toEqual({ skipped: 'missing' });
  });
});

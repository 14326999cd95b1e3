import { describe, expect, it } from 'vitest';
import type { FileHandleLike, Fs } from '../../../src/vault/files/fs.js';
import { HeadCache } from '../../../src/vault/scan/head-cache.js';
import { memoryVault } from '../../helpers/memfs.js';
import { Vault } from '../../../src/vault/files/vault.js';

/**
 * The scan's prefetch looks at every listed note many at once (head-cache.ts). A stat holds no
 * file open, a read of a head does: a cold pass must not open more files at once than the scan
 * did before the prefetch, and a read that failed for want of a file descriptor (EMFILE), or any
 * other failure of the system rather than of the note, is no verdict on the note.
 */

const NOTES = 200;

function vaultOf(fs: (base: Fs) => Fs): { vault: Vault; paths: string[] } {
  const files: Record<string, string> = {};
  for (let i = 0; i < NOTES; i++) files[`Meetings/Transcripts/T ${i}.md`] = `---\nstate: finished\n---\nbody ${i}\n`;
  const base = memoryVault(files);
  const vault = new Vault(fs(base.fs), base.layout);
  return { vault, paths: Object.keys(files).map((rel) => vault.abs(rel)) };
}

const emfile = (file: string) => Object.assign(new Error(`EMFILE: too many open files, open '${file}'`), { code: 'EMFILE', errno: -24, syscall: 'open', path: file });

describe('heads read ahead of a scan (prefetch)', () => {
  it('hold at most 16 files open at once on a cold pass, while its stats go many at once', async () => {
    let open = 0;
    let mostOpen = 0;
    let statsInFlight = 0;
    let mostStats = 0;
    const { vault, paths } = vaultOf((base) => ({
      ...base,
      stat: async (file: string) => {
        statsInFlight++;
        mostStats = Math.max(mostStats, statsInFlight);
        await new Promise((resolve) => setImmediate(resolve));
        statsInFlight--;
        return base.stat(file);
      },
      open: async (file: string, flags: string | number, mode?: number): Promise<FileHandleLike> => {
        const handle = await base.open(file, flags, mode);
        open++;
        mostOpen = Math.max(mostOpen, open);
        return {
          writeFile: (data) => handle.writeFile(data),
          read: async (buffer, offset, length, position) => {
            await new Promise((resolve) => setImmediate(resolve));
            return handle.read(buffer, offset, length, position);
          },
          stat: () => handle.stat(),
          sync: () => handle.sync(),
          close: async () => {
            open--;
            await handle.close();
          },
        };
      },
    }));
    const heads = new HeadCache(vault, ['state']);
    heads.beginPass();
    await heads.prefetch(paths);
    heads.endPass(true);
    expect(heads.stats).toEqual({ checked: NOTES, read: NOTES });
    expect(open).toBe(0);
    expect(mostStats).toBeGreaterThan(16);
    // 64 at once ran a daemon under `ulimit -n 80` out of descriptors (EMFILE) on a cold scan.
    expect(mostOpen).toBeLessThanOrEqual(16);
  });

  it('do not remember a read that failed for want of a file descriptor: the next pass reads the note again', async () => {
    let failures = 1;
    const { vault, paths } = vaultOf((base) => ({
      ...base,
      open: (file: string, flags: string | number, mode?: number) => {
        if (file.endsWith('T 7.md') && failures-- > 0) return Promise.reject(emfile(file));
        return base.open(file, flags, mode);
      },
    }));
    const heads = new HeadCache(vault, ['state']);
    const note = paths[7]!;
    heads.beginPass();
    await heads.prefetch(paths);
    // This pass reports it, as any note it cannot read (the scan names it among its problems)...
    expect(await heads.get(note)).toMatchObject({ ok: false, error: expect.stringContaining('EMFILE') });
    heads.endPass(true);
    // ...but the note did not change and is fine: the next pass must not trust that verdict.
    heads.beginPass();
    expect(await heads.get(note)).toEqual({ ok: true, data: { state: 'finished' } });
    heads.endPass(true);
  });

  it('keep a note that does not parse as it is until it changes (no read again for that)', async () => {
    const base = memoryVault({ 'Meetings/Transcripts/Broken.md': '---\nstate: [finished\n---\n' });
    let opens = 0;
    const vault = new Vault({ ...base.fs, open: (f: string, fl: string | number, m?: number) => (opens++, base.fs.open(f, fl, m)) }, base.layout);
    const heads = new HeadCache(vault, ['state']);
    const note = vault.abs('Meetings/Transcripts/Broken.md');
    for (let pass = 0; pass < 2; pass++) {
      heads.beginPass();
      expect(await heads.get(note)).toMatchObject({ ok: false });
      heads.endPass(true);
    }
    expect(opens).toBe(1);
  });
});

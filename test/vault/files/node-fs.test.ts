import { promises as fsp } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { nodeFs } from '../../../src/vault/files/fs.js';

/**
 * nodeFs's stat and lstat go through node's callback forms (cheaper per call, fs.ts): they
 * must answer as fs.promises does, errors included, since the vault reads `code` and
 * callers print `message`.
 */
describe('nodeFs stat and lstat', () => {
  let dir: string;
  beforeEach(async () => {
    dir = await fsp.mkdtemp(path.join(os.tmpdir(), 'ma-nodefs-'));
  });
  afterEach(async () => {
    await fsp.rm(dir, { recursive: true, force: true });
  });

  it('gives the same stats as fs.promises, through links as lstat does not', async () => {
    const file = path.join(dir, 'note.md');
    await fsp.writeFile(file, 'hello');
    await fsp.symlink(file, path.join(dir, 'link.md'));
    for (const name of ['note.md', 'link.md']) {
      const p = path.join(dir, name);
      for (const [ours, theirs] of [
        [await nodeFs.stat(p), await fsp.stat(p)],
        [await nodeFs.lstat(p), await fsp.lstat(p)],
      ] as const) {
        expect([ours.isFile(), ours.isSymbolicLink(), ours.isDirectory(), ours.size, ours.ino, ours.mtimeMs, ours.ctimeMs, ours.mode]).toEqual([
          theirs.isFile(),
          theirs.isSymbolicLink(),
          theirs.isDirectory(),
          theirs.size,
          theirs.ino,
          theirs.mtimeMs,
          theirs.ctimeMs,
          theirs.mode,
        ]);
      }
    }
    expect((await nodeFs.lstat(path.join(dir, 'link.md'))).isSymbolicLink()).toBe(true);
  });

  it('fails as fs.promises fails: the same code, syscall, path and message', async () => {
    const cases = [path.join(dir, 'missing.md'), path.join(dir, 'note.md', 'below')];
    await fsp.writeFile(path.join(dir, 'note.md'), 'x');
    for (const p of cases) {
      // Each call made when its answer is awaited: a promise made earlier can reject before
      // anything handles it (an unhandled rejection, which fails the run).
      for (const [ours, theirs] of [
        [() => nodeFs.stat(p), () => fsp.stat(p)],
        [() => nodeFs.lstat(p), () => fsp.lstat(p)],
      ] as const) {
        const a = (await ours().catch((e: unknown) => e)) as NodeJS.ErrnoException;
        const b = (await theirs().catch((e: unknown) => e)) as NodeJS.ErrnoException;
        expect(a).toBeInstanceOf(Error);
        expect({ code: a.code, syscall: a.syscall, path: a.path, errno: a.errno, message: a.message }).toEqual({
          code: b.code,
          syscall: b.syscall,
          path: b.path,
          errno: b.errno,
          message: b.message,
        });
      }
    }
  });

  it('fails with a stack that leads to its caller, as fs.promises does (a log of an unexpected error says where)', async () => {
    const missing = path.join(dir, 'missing.md');
    async function lookAtTheNote(stat: (p: string) => Promise<unknown>): Promise<unknown> {
      return await stat(missing);
    }
    for (const stat of [(p: string) => nodeFs.stat(p), (p: string) => nodeFs.lstat(p), (p: string) => fsp.stat(p)]) {
      const err = (await lookAtTheNote(stat).catch((e: unknown) => e)) as NodeJS.ErrnoException;
      expect(err.code).toBe('ENOENT');
      expect(err.stack).toMatch(/^Error: ENOENT: no such file or directory, l?stat '/);
      expect(err.stack).toContain('lookAtTheNote');
    }
  });
});

import { describe, expect, test } from 'vitest';
import { type FileHandleLike, type Fs, isTempFile, writeFileAtomic } from '../../../src/vault/files/fs.js';
import { Vault } from '../../../src/vault/files/vault.js';
import { memoryFs, testConfig } from '../../helpers/memfs.js';

const FILE = '/vault/Meetings/Summaries/note.md';
const OLD = '---\nstatus: done\n---\nThe good summary.\n';

/** memfs with one operation made to fail the way a crash or a full disk would. */
function failing(fail: 'rename' | 'handle.writeFile' | 'handle.sync'): Fs {
  const fs = memoryFs({ 'Meetings/Summaries/note.md': OLD });
  const boom = (): never => {
    throw Object.assign(new Error(`simulated ${fail} failure`), { code: 'EIO' });
  };
  return {
    ...fs,
    readFile: fs.readFile.bind(fs),
    writeFile: fs.writeFile.bind(fs),
    mkdir: fs.mkdir.bind(fs),
    readdir: fs.readdir.bind(fs),
    stat: fs.stat.bind(fs),
    lstat: fs.lstat.bind(fs),
    unlink: fs.unlink.bind(fs),
    chmod: fs.chmod.bind(fs),
    rm: fs.rm.bind(fs),
    realpath: fs.realpath.bind(fs),
    readlink: fs.readlink.bind(fs),
    copyFile: fs.copyFile.bind(fs),
    rename: fail === 'rename' ? async () => boom() : fs.rename.bind(fs),
    async open(file: string, flags: string, mode?: number): Promise<FileHandleLike> {
      const handle = await fs.open(file, flags, mode);
      return {
        writeFile: fail === 'handle.writeFile' ? async () => boom() : (data) => handle.writeFile(data),
        sync: fail === 'handle.sync' ? async () => boom() : () => handle.sync(),
        close: () => handle.close(),
        read: (buffer, offset, length, position) => handle.read(buffer, offset, length, position),
        stat: () => handle.stat(),
      };
    },
  };
}

async function folderEntries(fs: Fs): Promise<string[]> {
  return (await fs.readdir('/vault/Meetings/Summaries', { withFileTypes: true })).map((e) => e.name).sort();
}

describe('writeFileAtomic when the write cannot complete', () => {
  test.each(['rename', 'handle.writeFile', 'handle.sync'] as const)(
    'a failing %s leaves the old file intact and no temp file behind',
    async (fail) => {
      const fs = failing(fail);
      await expect(writeFileAtomic(fs, FILE, 'NEW CONTENT')).rejects.toThrow(`simulated ${fail} failure`);
      expect(Buffer.from(await fs.readFile(FILE)).toString('utf8')).toBe(OLD);
      const entries = await folderEntries(fs);
      expect(entries).toEqual(['note.md']);
      expect(entries.some(isTempFile)).toBe(false);
    },
  );

  test('through Vault.write: the error propagates, listeners hear nothing, the old file stays', async () => {
    const vault = new Vault(failing('rename'), testConfig().layout);
    const heard: string[] = [];
    vault.onWrite((p) => heard.push(p));
    await expect(vault.write(FILE, 'NEW')).rejects.toThrow(/simulated rename failure/);
    expect(await vault.read(FILE)).toBe(OLD);
    expect(heard).toEqual([]);
    expect(await folderEntries(vault.fs)).toEqual(['note.md']);
  });

  test('a successful write replaces the content and leaves no temp file', async () => {
    const fs = memoryFs({ 'Meetings/Summaries/note.md': OLD });
    await writeFileAtomic(fs, FILE, 'NEW CONTENT');
    expect(Buffer.from(await fs.readFile(FILE)).toString('utf8')).toBe('NEW CONTENT');
    expect(await folderEntries(fs)).toEqual(['note.md']);
  });
});

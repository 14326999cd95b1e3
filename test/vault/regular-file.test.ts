import { execFileSync, spawnSync } from 'node:child_process';
import { chmodSync, chownSync, mkdtempSync, readFileSync, rmSync, statSync, symlinkSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterEach, describe, expect, it } from 'vitest';
import { nodeFs } from '../../src/vault/fs.js';
import { readRegularFile } from '../../src/vault/regular-file.js';
import { updateFile } from '../../src/vault/update.js';
import { REPO_ROOT } from '../helpers/daemon-process.js';

/** docs/design.md §4 on a real filesystem: regular files only, bounded reads, read-only modes honoured. */

const dirs: string[] = [];
const tempDir = () => {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'ma-regular-'));
  dirs.push(dir);
  return dir;
};
afterEach(() => {
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

const hasMkfifo = (() => {
  try {
    execFileSync('mkfifo', ['--version'], { stdio: 'ignore' });
    return true;
  } catch {
    return false;
  }
})();
const isRoot = process.getuid?.() === 0;
const canDropToNobody = isRoot && process.platform === 'linux';

describe('files that are not files', () => {
  it.skipIf(!hasMkfifo)('a FIFO is refused before it is opened, by reads and by writes, without waiting for a writer (needs mkfifo)', async () => {
    const fifo = path.join(tempDir(), 'pipe.md');
    execFileSync('mkfifo', [fifo]);
    await expect(readRegularFile(nodeFs, fifo, 1024, 'pipe.md')).rejects.toThrow('pipe.md is a FIFO (named pipe), not a regular file');
    await expect(updateFile(nodeFs, fifo, () => 'x', { name: 'pipe.md' })).rejects.toThrow(/is a FIFO/);
    expect(statSync(fifo).isFIFO()).toBe(true);
  });

  it.skipIf(process.platform === 'win32')('a link to /dev/zero is refused, never read (memory stays bounded)', async () => {
    const link = path.join(tempDir(), 'zero.md');
    symlinkSync('/dev/zero', link);
    await expect(readRegularFile(nodeFs, link, 1024, 'zero.md')).rejects.toThrow('zero.md is a device, not a regular file');
    await expect(updateFile(nodeFs, link, () => 'x', { name: 'zero.md' })).rejects.toThrow(/is a device/);
  });

  it('a file over the bound is refused, a file at the bound is read', async () => {
    const file = path.join(tempDir(), 'big.md');
    writeFileSync(file, 'x'.repeat(2048));
    await expect(readRegularFile(nodeFs, file, 2047, 'big.md')).rejects.toThrow('big.md is larger than Agent.MaxFileBytes (2047 bytes)');
    expect((await readRegularFile(nodeFs, file, 2048))?.length).toBe(2048);
  });
});

describe('bytes the daemon did not mean to touch, on disk', () => {
  it('a 0444 file is not replaced by the rename (checked by mode bits: as root, the rename would go through)', async () => {
    const file = path.join(tempDir(), 'frozen.md');
    writeFileSync(file, 'keep me\n');
    chmodSync(file, 0o444);
    await expect(updateFile(nodeFs, file, (t) => `${t}agent\n`, { name: 'frozen.md' })).rejects.toThrow('frozen.md is read-only (its permission bits deny writing); it is left as it is.');
    expect(readFileSync(file, 'utf8')).toBe('keep me\n');
    expect(statSync(file).mode & 0o777).toBe(0o444);
  });

  it.skipIf(!canDropToNobody && isRoot)('as a non-root user (nobody), a 0444 file in a folder it may write is not replaced (needs root to switch users, or a non-root run)', () => {
    const dir = tempDir();
    const file = path.join(dir, 'frozen.md');
    writeFileSync(file, 'keep me\n');
    chmodSync(file, 0o444);
    const script = `
      const { updateFile } = await import(${JSON.stringify(pathToFileURL(path.join(REPO_ROOT, 'dist/vault/update.js')).href)});
      const { nodeFs } = await import(${JSON.stringify(pathToFileURL(path.join(REPO_ROOT, 'dist/vault/fs.js')).href)});
      try { await updateFile(nodeFs, ${JSON.stringify(file)}, (t) => t + 'agent\\n', { name: 'frozen.md' }); console.log('written'); }
      catch (err) { console.log(err.message); }`;
    let uid: number | undefined;
    if (isRoot) {
      chmodSync(dir, 0o777);
      chownSync(dir, 65534, 65534);
      chownSync(file, 65534, 65534);
      chmodSync(path.dirname(dir), statSync(path.dirname(dir)).mode | 0o001);
      uid = 65534;
    }
    const run = spawnSync(process.execPath, ['--input-type=module', '-e', script], { encoding: 'utf8', ...(uid !== undefined ? { uid, gid: uid } : {}) });
    expect(run.stderr).toBe('');
    expect(run.stdout.trim()).toBe('frozen.md is read-only (its permission bits deny writing); it is left as it is.');
    expect(readFileSync(file, 'utf8')).toBe('keep me\n');
  });

  it('a file that is not valid UTF-8 is never rewritten; a valid one holding U+FFFD is', async () => {
    const dir = tempDir();
    const latin1 = path.join(dir, 'latin1.md');
    const bytes = Buffer.from('Caf\xe9\n', 'latin1');
    writeFileSync(latin1, bytes);
    await expect(updateFile(nodeFs, latin1, (t) => `${t}agent\n`, { name: 'latin1.md' })).rejects.toThrow(/latin1.md is not valid UTF-8 text/);
    expect(readFileSync(latin1).equals(bytes)).toBe(true);
    const replacement = path.join(dir, 'fffd.md');
    writeFileSync(replacement, 'a \uFFFD sign\n');
    await updateFile(nodeFs, replacement, (t) => `${t}agent\n`);
    expect(readFileSync(replacement, 'utf8')).toBe('a \uFFFD sign\nagent\n');
  });
});

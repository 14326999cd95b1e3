import { execFileSync, spawnSync } from 'node:child_process';
import { chmodSync, chownSync, copyFileSync, mkdirSync, mkdtempSync, readFileSync, rmSync, statSync, symlinkSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterEach, describe, expect, it } from 'vitest';
import { nodeFs } from '../../../src/vault/files/fs.js';
import { readRegularFile } from '../../../src/vault/files/regular-file.js';
import { updateFile } from '../../../src/vault/files/update.js';
import { REPO_ROOT } from '../../helpers/daemon-process.js';

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
const NOBODY = 65534;

/** Every folder from `dir` up to / lets other users through (their x bit): nobody can reach what is inside. */
function othersMayEnter(dir: string): boolean {
  for (let at = path.resolve(dir); ; at = path.dirname(at)) {
    try {
      if ((statSync(at).mode & 0o001) === 0) return false;
    } catch {
      return false;
    }
    if (path.dirname(at) === at) return true;
  }
}

/**
 * Where the test run as nobody can work: the checkout (dist/) and os.tmpdir() may lie in a folder
 * nobody cannot enter (a clone under a private 0700 temporary folder, as root), so the test
 * works in a temporary folder under the first of these that every user may enter.
 */
const nobodyRoot = [os.tmpdir(), '/tmp', '/var/tmp', '/dev/shm'].find(othersMayEnter);
/** Node itself must be reachable too: installed under root's home (nvm in /root/.nvm, 0700), nobody cannot run it. */
const nodeReachable = othersMayEnter(path.dirname(process.execPath)) && (statSync(process.execPath).mode & 0o001) !== 0;
const nobodySkip = !isRoot
  ? undefined
  : !canDropToNobody
    ? 'needs Linux to switch users'
    : !nobodyRoot
      ? 'no temporary folder user nobody may enter (os.tmpdir(), /tmp, /var/tmp, /dev/shm)'
      : !nodeReachable
        ? `user nobody cannot run ${process.execPath} (a folder on its way denies other users, or the file is not executable by them)`
        : undefined;

/** The dist modules `entries` import, transitively: the vault layer imports only node: modules and its own. */
function distClosure(entries: readonly string[]): string[] {
  const seen = new Set<string>();
  const visit = (file: string) => {
    if (seen.has(file)) return;
    seen.add(file);
    for (const [, specifier] of readFileSync(file, 'utf8').matchAll(/(?:from|import)\s*\(?\s*['"]([^'"]+)['"]/g)) {
      if (specifier!.startsWith('.')) visit(path.resolve(path.dirname(file), specifier!));
      else if (!specifier!.startsWith('node:')) throw new Error(`${path.relative(REPO_ROOT, file)} imports the package ${specifier}: copy node_modules too`);
    }
  };
  for (const entry of entries) visit(path.join(REPO_ROOT, 'dist', entry));
  return [...seen].map((file) => path.relative(path.join(REPO_ROOT, 'dist'), file));
}

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

  it.skipIf(nobodySkip !== undefined)(
    `as a non-root user (nobody), a 0444 file in a folder it may write is not replaced (as root: switched to nobody, in a folder it may enter${nobodySkip ? `; skipped: ${nobodySkip}` : ''})`,
    () => {
      // As root, the modules and the file go where nobody may enter; otherwise this user's own checkout and temp folder serve.
      const dir = isRoot ? mkdtempSync(path.join(nobodyRoot!, 'ma-regular-nobody-')) : tempDir();
      if (isRoot) dirs.push(dir);
      const dist = isRoot ? path.join(dir, 'dist') : path.join(REPO_ROOT, 'dist');
      if (isRoot) {
        for (const rel of distClosure(['vault/files/update.js', 'vault/files/fs.js'])) {
          mkdirSync(path.dirname(path.join(dist, rel)), { recursive: true, mode: 0o755 });
          copyFileSync(path.join(REPO_ROOT, 'dist', rel), path.join(dist, rel));
        }
        chmodSync(dir, 0o755);
      }
      const work = isRoot ? path.join(dir, 'work') : dir;
      if (isRoot) mkdirSync(work);
      const file = path.join(work, 'frozen.md');
      writeFileSync(file, 'keep me\n');
      chmodSync(file, 0o444);
      const script = `
        const { updateFile } = await import(${JSON.stringify(pathToFileURL(path.join(dist, 'vault/files/update.js')).href)});
        const { nodeFs } = await import(${JSON.stringify(pathToFileURL(path.join(dist, 'vault/files/fs.js')).href)});
        try { await updateFile(nodeFs, ${JSON.stringify(file)}, (t) => t + 'agent\\n', { name: 'frozen.md' }); console.log('written'); }
        catch (err) { console.log(err.message); }`;
      if (isRoot) {
        chmodSync(work, 0o777);
        chownSync(work, NOBODY, NOBODY);
        chownSync(file, NOBODY, NOBODY);
      }
      // cwd: a folder nobody may enter (the checkout may not be one).
      const run = spawnSync(process.execPath, ['--input-type=module', '-e', script], {
        encoding: 'utf8',
        cwd: work,
        ...(isRoot ? { uid: NOBODY, gid: NOBODY } : {}),
      });
      expect(run.stderr).toBe('');
      expect(run.stdout.trim()).toBe('frozen.md is read-only (its permission bits deny writing); it is left as it is.');
      expect(readFileSync(file, 'utf8')).toBe('keep me\n');
    },
  );

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

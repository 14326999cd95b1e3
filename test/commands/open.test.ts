import { mkdtempSync, mkdirSync, realpathSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it, onTestFinished } from 'vitest';
import { CliError } from '../../src/commands/common.js';
import { open, type OpenDeps } from '../../src/commands/open.js';
import type { CommandResult } from '../../src/external-programs.js';
import { memoryIo } from '../helpers/memory-io.js';
import { standInDaemon } from '../helpers/stand-in-daemon.js';
import { recordLocalDaemon } from '../helpers/local-daemon.js';
import { nodeFs } from '../../src/vault/files/fs.js';

/** `meeting-assistant open [--print]`: the status page's signed-in address, opened or printed. */

let dir: string | undefined;
afterEach(() => {
  if (dir) rmSync(dir, { recursive: true, force: true });
  dir = undefined;
});

function configWith(http: Record<string, unknown>, storedToken?: string): string {
  dir = mkdtempSync(path.join(os.tmpdir(), 'ma-open-'));
  mkdirSync(path.join(dir, 'vault', '.meeting-assistant'), { recursive: true });
  if (storedToken) writeFileSync(path.join(dir, 'vault', '.meeting-assistant', 'token'), `${storedToken}\n`);
  const file = path.join(dir, 'config.json');
  writeFileSync(file, JSON.stringify({ MeetingAssistant: { VaultPath: './vault', Http: http } }));
  return file;
}

function fakes(options: { opener?: string; result?: CommandResult; up?: 'proven' | 'refused' | 'silent' } = {}) {
  const io = memoryIo();
  const runs: [string, string[]][] = [];
  const deps: Partial<OpenDeps> = {
    io,
    platform: 'linux',
    findCommand: (name) => (name === 'xdg-open' ? options.opener : undefined),
    run: async (command, args) => {
      runs.push([command, args]);
      return options.result ?? { code: 0, stdout: '', stderr: '' };
    },
    daemonUp: async () => options.up ?? 'proven',
  };
  return { out: io.outLines, err: io.errLines, runs, deps };
}

describe('open', () => {
  it('--print prints the address with the generated token, URL-encoded, and opens nothing', async () => {
    const config = configWith({ Port: 4999 }, 'a+b/c');
    const f = fakes({ opener: '/usr/bin/xdg-open' });
    expect(await open({ config, print: true }, f.deps)).toBe(0);
    expect(f.out).toEqual(['http://127.0.0.1:4999/?token=a%2Bb%2Fc']);
    expect(f.runs).toEqual([]);
  });

  it('opens the address with xdg-open on Linux (open on macOS) and does not print the token', async () => {
    const config = configWith({ Port: 4998, Token: 'configured', Host: '0.0.0.0' });
    const f = fakes({ opener: '/usr/bin/xdg-open' });
    expect(await open({ config }, f.deps)).toBe(0);
    expect(f.runs).toEqual([['/usr/bin/xdg-open', ['http://127.0.0.1:4998/?token=configured']]]);
    expect(f.out.join('\n')).not.toContain('configured');

    const mac = fakes();
    mac.deps.platform = 'darwin';
    mac.deps.findCommand = (name) => (name === 'open' ? '/usr/bin/open' : undefined);
    expect(await open({ config }, mac.deps)).toBe(0);
    expect(mac.runs[0]).toEqual(['/usr/bin/open', ['http://127.0.0.1:4998/?token=configured']]);
  });

  it('without an opener, or when it fails, prints the address and exits 1; a daemon that is down is a warning', async () => {
    const config = configWith({ Port: 4997, Token: 't' });
    const none = fakes({ up: 'silent' });
    expect(await open({ config }, none.deps)).toBe(1);
    expect(none.out).toEqual(['http://127.0.0.1:4997/?token=t']);
    expect(none.err.join('\n')).toMatch(/does not answer on http:\/\/127\.0\.0\.1:4997[\s\S]*xdg-open is not on PATH/);

    const failing = fakes({ opener: '/usr/bin/xdg-open', result: { code: 3, stdout: '', stderr: 'no browser' } });
    expect(await open({ config }, failing.deps)).toBe(1);
    expect(failing.err.join('\n')).toContain('no browser');
    expect(failing.out).toEqual(['http://127.0.0.1:4997/?token=t']);
  });

  it('a running daemon is reached at the address it recorded on this machine, whatever port the configuration names now', async () => {
    const config = configWith({ Port: 4995, Token: 't' });
    // A live process stands in for the daemon.
    const daemon = await standInDaemon();
    onTestFinished(daemon.stop);
    const instance = { pid: daemon.pid, startedAt: 'then', http: 'http://127.0.0.1:4321' };
    const env = { XDG_RUNTIME_DIR: path.join(dir!, 'run') };
    await recordLocalDaemon(nodeFs, realpathSync(path.join(dir!, 'vault')), instance, env);
    const f = fakes({ opener: '/usr/bin/xdg-open' });
    f.deps.env = env;
    let asked: string | undefined;
    f.deps.daemonUp = async (base) => ((asked = base), 'proven');
    expect(await open({ config }, f.deps)).toBe(0);
    expect(asked).toBe('http://127.0.0.1:4321');
    expect(f.runs).toEqual([['/usr/bin/xdg-open', ['http://127.0.0.1:4321/?token=t']]]);
  });

  it('opens nothing when what answers at the address cannot prove it holds the token (issue #43 point 2)', async () => {
    const config = configWith({ Port: 4994, Token: 'secret-t' });
    const f = fakes({ opener: '/usr/bin/xdg-open', up: 'refused' });
    await expect(open({ config }, f.deps)).rejects.toThrow(/is not this vault's daemon/);
    expect(f.runs).toEqual([]);
    expect(f.out.join('\n')).not.toContain('secret-t');
  });

  it('says what to do when the daemon never ran (no token) or Http.Enabled is false', async () => {
    const f = fakes();
    await expect(open({ config: configWith({ Port: 4996 }) }, f.deps)).rejects.toThrow(/has not run on this vault/);
    const off = configWith({ Enabled: false });
    await expect(open({ config: off }, f.deps)).rejects.toSatisfy((e: unknown) => e instanceof CliError && e.exitCode === 2);
  });
});

describe('launch (how open starts the browser opener)', () => {
  it('reports an opener that fails at once or does not exist, and leaves one that keeps running alone', async () => {
    const { launch } = await import('../../src/external-programs.js');
    expect((await launch('sh', ['-c', 'exit 3'])).code).toBe(3);
    const missing = await launch('/nonexistent/xdg-open', ['http://x']);
    expect(missing.code).toBeNull();
    expect(missing.stderr).toContain('ENOENT');
    // Like xdg-open starting the browser itself: still running when the settle time is over.
    expect((await launch('sh', ['-c', 'sleep 1'], 50)).code).toBe(0);
  });
});

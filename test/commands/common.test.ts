import { describe, expect, it } from 'vitest';
import { systemClock } from '../../src/clock.js';
import { CliError, EXIT_USAGE, loadCommandConfig, processDeps, processIo, readCommandConfig, withDefaults } from '../../src/commands/common.js';
import { ConfigError } from '../../src/config.js';
import { BUNDLED_DEFAULT_CONFIG } from '../../src/example-vault.js';
import { nodeFs } from '../../src/vault/files/fs.js';
import { memoryFs } from '../helpers/memfs.js';
import { memoryIo } from '../helpers/memory-io.js';

/** What every command shares: one CommandDeps with the process's defaults, one config loader. */

describe('withDefaults', () => {
  it('fills what the caller left out from the process, and a key given as undefined keeps its default', () => {
    const io = memoryIo();
    const deps = withDefaults({ io, env: { HOME: '/home/ann' }, fs: undefined });
    expect(deps.io).toBe(io);
    expect(deps.env).toEqual({ HOME: '/home/ann' });
    expect(deps.fs).toBe(nodeFs);
    expect(deps.cwd).toBe(process.cwd());
    expect(deps.clock).toBe(systemClock);
    expect(withDefaults({})).toEqual(processDeps());
    expect(processDeps()).toMatchObject({ io: processIo, fs: nodeFs, env: process.env, cwd: process.cwd() });
  });

  it("puts a command's own defaults between the process's and the caller's", () => {
    interface Extended extends ReturnType<typeof processDeps> {
      platform: string;
      isTTY: boolean;
    }
    const deps = withDefaults<Extended>({ platform: 'darwin' }, { platform: 'linux', isTTY: false });
    expect(deps).toMatchObject({ platform: 'darwin', isTTY: false, fs: nodeFs });
  });
});

describe('loadCommandConfig', () => {
  const fs = memoryFs({
    '/home/ann/work/config.json': JSON.stringify({ MeetingAssistant: { VaultPath: '~/notes' } }),
    '/home/ann/work/bad.json': JSON.stringify({ MeetingAssistant: { Http: { Port: 70000 }, Agent: { MaxTurns: 'many' } } }),
    '/home/ann/work/typo.json': JSON.stringify({ MeetingAssistant: { VaultPath: '~/ntoes' } }),
    '/home/ann/work/file.json': JSON.stringify({ MeetingAssistant: { VaultPath: 'config.json' } }),
    '/home/ann/notes/Meetings/x.md': '',
  });
  const deps = { fs, env: { HOME: '/home/ann' }, cwd: '/home/ann/work' };

  it('reads --config through deps.fs, relative to deps.cwd, with ~ from deps.env', async () => {
    const config = await loadCommandConfig({ config: 'config.json' }, deps);
    expect(config.file).toBe('/home/ann/work/config.json');
    expect(config.layout.root).toBe('/home/ann/notes');
    // No --config: ./config.json in deps.cwd is the first place looked at.
    expect((await loadCommandConfig({}, deps)).file).toBe('/home/ann/work/config.json');
  });

  it('turns a bad or missing config into exit 2 naming every problem; readCommandConfig leaves the ConfigError', async () => {
    const bad = await loadCommandConfig({ config: 'bad.json' }, deps).catch((e: unknown) => e);
    expect(bad).toBeInstanceOf(CliError);
    expect((bad as CliError).exitCode).toBe(EXIT_USAGE);
    expect((bad as CliError).message).toContain('MeetingAssistant.Http.Port');
    expect((bad as CliError).message).toContain('MeetingAssistant.Agent.MaxTurns');

    const missing = await loadCommandConfig({ config: 'nowhere.json' }, deps).catch((e: unknown) => e);
    expect(missing).toBeInstanceOf(CliError);
    expect((missing as CliError).exitCode).toBe(EXIT_USAGE);
    expect((missing as CliError).message).toContain('/home/ann/work/nowhere.json');

    await expect(readCommandConfig({ config: 'bad.json' }, deps)).rejects.toBeInstanceOf(ConfigError);
  });

  it('a VaultPath that names no folder is exit 2 (a typo would start an empty vault beside the real one), unless the command says it needs none', async () => {
    const typo = await loadCommandConfig({ config: 'typo.json' }, deps).catch((e: unknown) => e);
    expect(typo).toBeInstanceOf(CliError);
    expect((typo as CliError).exitCode).toBe(EXIT_USAGE);
    expect((typo as CliError).message).toBe(
      'the vault /home/ann/ntoes does not exist (VaultPath in /home/ann/work/typo.json); point VaultPath at your vault, or create the folder',
    );
    expect(((await loadCommandConfig({ config: 'file.json' }, deps).catch((e: unknown) => e)) as CliError).message).toMatch(/is not a folder/);
    expect((await loadCommandConfig({ config: 'typo.json' }, deps, { vault: false })).layout.root).toBe('/home/ann/ntoes');
  });

  it('the bundled config.default.json may name a ./vault that does not exist yet: run seeds it', async () => {
    const bundled = await loadCommandConfig({ config: BUNDLED_DEFAULT_CONFIG }, { ...deps, fs: nodeFs });
    expect(bundled.file).toBe(BUNDLED_DEFAULT_CONFIG);
  });
});

describe('the config a command takes in the checkout', () => {
  const checkout = {
    '/src/ma/package.json': '{"name":"meeting-assistant"}',
    '/src/ma/scripts/start.mjs': '// npm start',
    '/src/ma/config.default.json': JSON.stringify({ MeetingAssistant: { VaultPath: './vault', Endpoint: { BaseUrl: 'http://127.0.0.1:11434/v1' } } }),
    '/src/ma/vault/Meetings/.keep': '',
    '/home/ann/.config/meeting-assistant/config.json': JSON.stringify({ MeetingAssistant: { VaultPath: '/vault', Endpoint: { BaseUrl: 'http://other:1/v1' } } }),
  };
  const env = { HOME: '/home/ann' };

  it('is the one npm start runs (scripts/start.mjs): the bundled config.default.json while the checkout has no config.json', async () => {
    const config = await readCommandConfig({}, { fs: memoryFs(checkout), env, cwd: '/src/ma' });
    expect(config.file).toBe('/src/ma/config.default.json');
    expect(config.settings.Endpoint.BaseUrl).toBe('http://127.0.0.1:11434/v1');
    expect(config.layout.root).toBe('/src/ma/vault');
  });

  it("is the checkout's config.json once there is one, and --config still wins", async () => {
    const fs = memoryFs({ ...checkout, '/src/ma/config.json': JSON.stringify({ MeetingAssistant: { VaultPath: './vault', Endpoint: { BaseUrl: 'http://mine:8080/v1' } } }) });
    expect((await readCommandConfig({}, { fs, env, cwd: '/src/ma' })).settings.Endpoint.BaseUrl).toBe('http://mine:8080/v1');
    const chosen = await readCommandConfig({ config: '/home/ann/.config/meeting-assistant/config.json' }, { fs, env, cwd: '/src/ma' });
    expect(chosen.settings.Endpoint.BaseUrl).toBe('http://other:1/v1');
  });

  it('outside a checkout nothing changes: ./config.json, else the XDG one (a folder with only a config.default.json is no checkout)', async () => {
    const fs = memoryFs({ ...checkout, '/home/ann/elsewhere/config.default.json': '{"MeetingAssistant":{}}' });
    const config = await readCommandConfig({}, { fs, env, cwd: '/home/ann/elsewhere' });
    expect(config.file).toBe('/home/ann/.config/meeting-assistant/config.json');
  });
});

import { describe, expect, it } from 'vitest';
import { init } from '../../src/commands/init.js';
import { CliError, EXIT_OK } from '../../src/commands/common.js';
import { loadConfig } from '../../src/config.js';
import { readText } from '../../src/vault/files/fs.js';
import { memoryFs } from '../helpers/memfs.js';

/** `init [folder]`: the example an npm-installed CLI can try, written where the person says. */

const CONFIG = JSON.stringify({ MeetingAssistant: { VaultPath: './vault', Endpoint: { BaseUrl: 'http://127.0.0.1:11434/v1' } } });

function setup(extra: Record<string, string | null> = {}) {
  const fs = memoryFs({
    '/pkg/config.default.json': CONFIG,
    '/pkg/example-vault/Meetings/2026-11-30 0900 Release Sync.md': '---\ntitle: Release Sync\n---\n',
    '/pkg/example-vault/Projects/Apollo/Apollo.md': '# Apollo\n',
    ...extra,
  });
  const out: string[] = [];
  const deps = { fs, cwd: '/home/me', env: {}, exampleDir: '/pkg/example-vault', defaultConfig: '/pkg/config.default.json', io: { out: (l: string) => out.push(l), err: (l: string) => out.push(l) } };
  return { fs, out, deps };
}

describe('init', () => {
  it('writes config.json and the example vault into the named folder; the config loads from there with that vault', async () => {
    const { fs, out, deps } = setup();
    expect(await init('try', deps)).toBe(EXIT_OK);
    expect(await readText(fs, '/home/me/try/config.json')).toBe(CONFIG);
    expect(await readText(fs, '/home/me/try/vault/Meetings/2026-11-30 0900 Release Sync.md')).toContain('Release Sync');
    expect(await readText(fs, '/home/me/try/vault/Projects/Apollo/Apollo.md')).toBe('# Apollo\n');
    const config = await loadConfig({ fs, cwd: '/home/me/try', env: {}, homedir: '/home/me' });
    expect(config.file).toBe('/home/me/try/config.json');
    expect(config.layout.root).toBe('/home/me/try/vault');
    expect(out).toEqual(expect.arrayContaining(['config: /home/me/try/config.json', '  cd try']));
  });

  it('never overwrites an existing config, and leaves the folder as it was', async () => {
    const { fs, deps } = setup({ '/home/me/try/config.json': '{"mine":true}' });
    await expect(init('try', deps)).rejects.toThrow(/already exists: init never overwrites/);
    expect(await readText(fs, '/home/me/try/config.json')).toBe('{"mine":true}');
    await expect(fs.stat('/home/me/try/vault')).rejects.toThrow();
  });

  it('never fills a vault folder that holds anything, and writes no config then', async () => {
    const { fs, deps } = setup({ '/home/me/try/vault/My note.md': 'mine' });
    const error = await init('try', deps).catch((err: unknown) => err);
    expect(error).toBeInstanceOf(CliError);
    expect((error as CliError).message).toMatch(/is not empty/);
    expect((await fs.readdir('/home/me/try/vault', { withFileTypes: true })).map((e) => e.name)).toEqual(['My note.md']);
    await expect(fs.stat('/home/me/try/config.json')).rejects.toThrow();
  });

  it('refuses a folder that is a file (exit 2)', async () => {
    const { deps } = setup({ '/home/me/try': 'a file' });
    await expect(init('try', deps)).rejects.toMatchObject({ exitCode: 2 });
  });
});

import { execFile, spawn } from 'node:child_process';
import { mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

/**
 * The installed command line, spawned as people and services run it. dist/ is built by
 * test/global-setup.ts before any test file runs.
 */

const REPO_ROOT = fileURLToPath(new URL('..', import.meta.url));
const BIN = path.join(REPO_ROOT, 'bin', 'meeting-assistant.js');

interface CliResult {
  code: number | null;
  stdout: string;
  stderr: string;
}

let tmp: string;

/** Run the CLI in an empty folder, with no config in reach but the one a test passes. */
function cli(args: string[]): Promise<CliResult> {
  const env: NodeJS.ProcessEnv = {};
  for (const [name, value] of Object.entries(process.env)) {
    if (!name.toLowerCase().startsWith('meetingassistant__')) env[name] = value;
  }
  env.XDG_CONFIG_HOME = path.join(tmp, 'xdg');
  env.HOME = tmp;
  env.NO_COLOR = '1';
  return new Promise((resolve) => {
    execFile(process.execPath, [BIN, ...args], { cwd: tmp, env, timeout: 20_000 }, (err, stdout, stderr) => {
      const code = err ? (typeof err.code === 'number' ? err.code : null) : 0;
      resolve({ code, stdout, stderr });
    });
  });
}

beforeAll(async () => {
  tmp = await mkdtemp(path.join(os.tmpdir(), 'ma-cli-'));
});

afterAll(async () => {
  await rm(tmp, { recursive: true, force: true });
});

describe('meeting-assistant CLI', () => {
  it('--help lists every command of the design and exits 0', async () => {
    const { code, stdout } = await cli(['--help']);

    expect(code).toBe(0);
    const commands = [...stdout.matchAll(/^ {2}(\S+)/gm)].map((m) => m[1]);
    expect(commands).toEqual(
      expect.arrayContaining([
        'run',
        'summarize',
        'retry',
        'status',
        'session',
        'doctor',
        'install-service',
        'uninstall-service',
        'logs',
        'open',
        'init',
      ]),
    );
  });

  it('init writes a config and the example vault into the folder named; status run there takes that config', async () => {
    const folder = path.join(tmp, 'try-it');
    const made = await cli(['init', folder]);
    expect(made.code, made.stderr).toBe(0);
    expect(made.stdout).toContain(`config: ${path.join(folder, 'config.json')}`);
    const shown = await new Promise<CliResult>((resolve) => {
      execFile(process.execPath, [BIN, 'status'], { cwd: folder, env: { ...process.env, HOME: tmp, XDG_CONFIG_HOME: path.join(tmp, 'xdg') }, timeout: 20_000 }, (err, stdout, stderr) =>
        resolve({ code: err ? (typeof err.code === 'number' ? err.code : null) : 0, stdout, stderr }),
      );
    });
    expect(shown.code, shown.stderr).toBe(0);
    expect(shown.stdout).toContain(`config: ${path.join(folder, 'config.json')}`);
    expect(shown.stdout).toContain('Release Sync');
    const again = await cli(['init', folder]);
    expect(again.code).toBe(1);
    expect(again.stderr).toContain('already exists: init never overwrites a config');
  });

  it('session --help lists start, state, finish and stop and exits 0', async () => {
    const { code, stdout } = await cli(['session', '--help']);

    expect(code).toBe(0);
    const commands = [...stdout.matchAll(/^ {2}(\S+)/gm)].map((m) => m[1]);
    expect(commands).toEqual(expect.arrayContaining(['start', 'state', 'finish', 'stop']));
  });

  it('--version (and -V) prints the package version and exits 0', async () => {
    const { version } = JSON.parse(await readFile(path.join(REPO_ROOT, 'package.json'), 'utf8')) as { version: string };
    for (const flag of ['--version', '-V']) {
      const { code, stdout } = await cli([flag]);
      expect(code).toBe(0);
      expect(stdout).toBe(`${version}\n`);
    }
  });

  it('a reader that stops early (status | head) ends the command quietly, not with an EPIPE stack trace', async () => {
    const vault = path.join(tmp, 'epipe-vault');
    await mkdir(path.join(vault, 'Meetings'), { recursive: true });
    const config = path.join(tmp, 'epipe.json');
    await writeFile(config, JSON.stringify({ MeetingAssistant: { VaultPath: vault, Http: { Enabled: false } } }));
    const child = spawn(process.execPath, [BIN, 'status', '--config', config], { cwd: tmp, stdio: ['ignore', 'pipe', 'pipe'] });
    // The reader is gone before the command writes its first line, as `head` is after its lines.
    child.stdout.destroy();
    let stderr = '';
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    const code = await new Promise<number | null>((resolve) => child.on('close', (c) => resolve(c)));
    expect(stderr).not.toMatch(/EPIPE|Unhandled 'error'/);
    expect(code).toBe(0);
  });

  it('an unknown command exits 2 and says so', async () => {
    const { code, stderr } = await cli(['frobnicate']);

    expect(code).toBe(2);
    expect(stderr).toMatch(/unknown command 'frobnicate'/);
  });

  it.each([
    ['run', []],
    ['status', []],
    ['summarize', ['Meetings/2026-11-30 0900 Release Sync.md']],
    ['retry', ['Meetings/Summaries/2026-11-23 0900 Release Sync.md']],
  ])('a config with three mistakes makes %s exit 2 naming all three by full path', async (command, args) => {
    const config = path.join(tmp, `bad-${command}.json`);
    await writeFile(
      config,
      JSON.stringify({
        MeetingAssistant: {
          VaultPath: path.join(tmp, 'vault'),
          Http: { Port: 70000 },
          Agent: { MaxTurns: 'many' },
          Reconnect: { Retries: 1 },
        },
      }),
    );

    const { code, stderr } = await cli([command, ...args, '--config', config]);

    expect(code).toBe(2);
    expect(stderr).toContain('MeetingAssistant.Http.Port');
    expect(stderr).toContain('MeetingAssistant.Agent.MaxTurns');
    expect(stderr).toContain('MeetingAssistant.Reconnect.Retries');
  });

  it('a --config file that does not exist exits 2 naming the path', async () => {
    const missing = path.join(tmp, 'nowhere', 'config.json');

    const { code, stderr } = await cli(['status', '--config', missing]);

    expect(code).toBe(2);
    expect(stderr).toContain(missing);
  });
});

import { execFile, spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { lstat, mkdir, mkdtemp, readFile, readlink, rm, symlink, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { XMLValidator } from 'fast-xml-parser';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { installService, uninstallService } from '../../src/commands/service.js';
import { CliError, EXIT_USAGE } from '../../src/commands/common.js';
import { cliPath, packageRoot } from '../../src/service/paths.js';
import { systemdExecArg, xmlEscape } from '../../src/service/render.js';
import { runs } from '../helpers/host-tools.js';
import { memoryIo } from '../helpers/memory-io.js';
import { parsePlist } from '../helpers/plist.js';

const run = promisify(execFile);

const HAS_SYSTEMD_ANALYZE = runs('systemd-analyze', ['--version']);

let tmp: string;
let home: string;

beforeEach(async () => {
  tmp = await mkdtemp(path.join(os.tmpdir(), 'ma-service-'));
  home = path.join(tmp, 'home');
  await mkdir(home, { recursive: true });
});
afterEach(async () => {
  await rm(tmp, { recursive: true, force: true });
});

/** A config file at `file` whose vault is `vault` (created unless told otherwise). */
async function writeConfig(file: string, vault: string, extra: Record<string, unknown> = {}, createVault = true): Promise<void> {
  await mkdir(path.dirname(file), { recursive: true });
  if (createVault) await mkdir(vault, { recursive: true });
  await writeFile(file, JSON.stringify({ MeetingAssistant: { VaultPath: vault, ...extra } }));
}

function unitLine(unit: string, key: string): string[] {
  return unit
    .split('\n')
    .filter((l) => l.startsWith(`${key}=`))
    .map((l) => l.slice(key.length + 1));
}

describe('install-service --dry-run on Linux (systemd user unit)', () => {
  it('prints the unit with node, CLI, config and vault substituted and quoted, and writes nothing', async () => {
    const config = path.join(tmp, 'conf dir', 'config "main".json');
    const vault = path.join(tmp, 'My Vault 100%');
    await writeConfig(config, vault, { Daemon: { ShutdownGraceSeconds: 40 } });
    const io = memoryIo();
    const code = await installService(
      { config, dryRun: true, platform: 'linux' },
      { io, env: { HOME: home }, execPath: '/opt/node 20/bin/node', cli: '/opt/ma/bin/meeting-assistant.js' },
    );
    expect(code).toBe(0);
    const unit = io.outLines.join('\n');
    expect(unit).not.toMatch(/@[A-Z_]+@/);
    expect(unitLine(unit, 'ExecStart')).toEqual([
      `"/opt/node 20/bin/node" "/opt/ma/bin/meeting-assistant.js" run --config "${path.join(tmp, 'conf dir')}/config \\"main\\".json"`,
    ]);
    expect(unitLine(unit, 'ReadWritePaths')).toEqual([`"${path.join(tmp, 'My Vault 100%%')}"`]);
    expect(unitLine(unit, 'WorkingDirectory')).toEqual([path.join(tmp, 'My Vault 100%%')]);
    expect(unitLine(unit, 'Type')).toEqual(['simple']);
    expect(unitLine(unit, 'Restart')).toEqual(['on-failure']);
    expect(unitLine(unit, 'RestartSec')).toEqual(['10']);
    expect(unitLine(unit, 'SyslogIdentifier')).toEqual(['meeting-assistant']);
    expect(unitLine(unit, 'NoNewPrivileges')).toEqual(['yes']);
    expect(unitLine(unit, 'ProtectSystem')).toEqual(['strict']);
    expect(unitLine(unit, 'PrivateTmp')).toEqual(['yes']);
    // A small young generation, and glibc giving freed memory back: the idle daemon holds less
    // (bench/idle.mjs runs it with these).
    expect(unitLine(unit, 'Environment')).toEqual([
      'NODE_ENV=production',
      'NODE_OPTIONS=--max-semi-space-size=1',
      'MALLOC_TRIM_THRESHOLD_=131072',
      'MALLOC_MMAP_THRESHOLD_=131072',
      'MALLOC_ARENA_MAX=2',
    ]);
    expect(unitLine(unit, 'KillSignal')).toEqual(['SIGTERM']);
    // Above Daemon.ShutdownGraceSeconds, so running summaries can finish.
    expect(Number(unitLine(unit, 'TimeoutStopSec')[0])).toBeGreaterThan(40);
    expect(unitLine(unit, 'WantedBy')).toEqual(['default.target']);
    expect(io.errLines[0]).toBe(`Dry run: would write ${path.join(home, '.config/systemd/user/meeting-assistant.service')}`);
    expect(io.errLines).toContain('  systemctl --user enable --now meeting-assistant');
    expect(existsSync(path.join(home, '.config'))).toBe(false);
  });

  it('adds the Logging.File folder to ReadWritePaths when it lies outside the vault', async () => {
    const config = path.join(tmp, 'config.json');
    await writeConfig(config, path.join(tmp, 'vault'), { Logging: { File: path.join(tmp, 'log files', 'ma.log') } });
    const io = memoryIo();
    await installService({ config, dryRun: true, platform: 'linux' }, { io, env: { HOME: home } });
    const unit = io.outLines.join('\n');
    expect(unitLine(unit, 'ReadWritePaths')).toEqual([`"${path.join(tmp, 'vault')}"`, `"${path.join(tmp, 'log files')}"`]);
  });

  it('uses the absolute path of the running node and of bin/meeting-assistant.js by default', async () => {
    const config = path.join(tmp, 'config.json');
    await writeConfig(config, path.join(tmp, 'vault'));
    const io = memoryIo();
    await installService({ config, dryRun: true, platform: 'linux' }, { io, env: { HOME: home } });
    const exec = unitLine(io.outLines.join('\n'), 'ExecStart')[0]!;
    expect(exec.startsWith(`${systemdExecArg(process.execPath)} ${systemdExecArg(cliPath())} run --config `)).toBe(true);
    expect(path.isAbsolute(cliPath())).toBe(true);
    expect(existsSync(cliPath())).toBe(true);
    expect(cliPath()).toBe(path.join(packageRoot(), 'bin', 'meeting-assistant.js'));
  });

  // The suite never installs anything: without the tool the check is reported as skipped (.ci/run installs it for CI).
  it.skipIf(!HAS_SYSTEMD_ANALYZE)('passes systemd-analyze verify, with spaces in the node, CLI and vault paths (needs systemd-analyze)', async () => {
    // Real files at paths with spaces: verify checks that ExecStart's binary exists and is executable.
    const nodeDir = path.join(tmp, 'node bin');
    await mkdir(nodeDir, { recursive: true });
    const node = path.join(nodeDir, 'node');
    await symlink(process.execPath, node);
    const vault = path.join(tmp, 'my vault');
    const config = path.join(tmp, 'my config.json');
    await writeConfig(config, vault, { Logging: { File: path.join(tmp, 'log dir', 'ma.log') } });
    const io = memoryIo();
    await installService({ config, dryRun: true, platform: 'linux' }, { io, env: { HOME: home }, execPath: node });
    const unit = io.outLines.join('\n') + '\n';
    expect(unitLine(unit, 'ReadWritePaths')).toEqual([`"${vault}"`, `"${path.join(tmp, 'log dir')}"`]);
    const good = await verifyUnit(unit);
    expect(good.stderr).toBe('');
    expect(good.code).toBe(0);
    // The check is meaningful: the same unit with the vault path unquoted is flagged.
    const unquoted = unit.replace(`ReadWritePaths="${vault}"`, `ReadWritePaths=${vault}`);
    const bad = await verifyUnit(unquoted);
    expect(bad.stderr).toMatch(/absolute/i);
  }, 120_000);
});

describe('install-service --dry-run on macOS (launchd agent)', () => {
  it('prints a valid plist with the keys launchd needs', async () => {
    const config = path.join(tmp, 'config.json');
    const vault = path.join(tmp, 'vault');
    await writeConfig(config, vault);
    const io = memoryIo();
    const code = await installService(
      { config, dryRun: true, platform: 'darwin' },
      { io, env: { HOME: home }, execPath: '/usr/local/opt/node@20/bin/node', cli: '/opt/ma/bin/meeting-assistant.js' },
    );
    expect(code).toBe(0);
    const xml = io.outLines.join('\n');
    expect(XMLValidator.validate(xml)).toBe(true);
    const plist = parsePlist(xml);
    expect(plist.Label).toBe('com.meeting-assistant');
    expect(plist.ProgramArguments).toEqual(['/usr/local/opt/node@20/bin/node', '/opt/ma/bin/meeting-assistant.js', 'run', '--config', config]);
    expect(plist.RunAtLoad).toBe(true);
    expect(plist.KeepAlive).toEqual({ SuccessfulExit: false });
    expect(typeof plist.ThrottleInterval).toBe('number');
    expect(plist.ThrottleInterval).toBeGreaterThan(0);
    expect(plist.WorkingDirectory).toBe(vault);
    // The default grace period (30 s) plus the slack the service manager gets.
    expect(plist.ExitTimeOut).toBe(45);
    const logDir = path.join(home, 'Library', 'Logs', 'meeting-assistant') + '/';
    expect(String(plist.StandardOutPath).startsWith(logDir)).toBe(true);
    expect(String(plist.StandardErrorPath).startsWith(logDir)).toBe(true);
    const envVars = plist.EnvironmentVariables as Record<string, string>;
    expect(envVars.PATH!.split(':')[0]).toBe('/usr/local/opt/node@20/bin');
    expect(envVars.PATH!.split(':')).toContain('/usr/bin');
    expect(envVars.NODE_OPTIONS).toBe('--max-semi-space-size=1');
    expect(io.errLines).toContain(`Dry run: would write ${path.join(home, 'Library/LaunchAgents/com.meeting-assistant.plist')}`);
    expect(io.errLines).toContain(`  tail -f ${path.join(home, 'Library/Logs/meeting-assistant/meeting-assistant.log')}`);
    expect(existsSync(path.join(home, 'Library'))).toBe(false);
  });

  it('XML-escapes a config and vault path containing &, < and quotes', async () => {
    const config = path.join(tmp, `a&b<c"d'e.json`);
    const vault = path.join(tmp, `vault & <notes> "q"`);
    await writeConfig(config, vault);
    const io = memoryIo();
    await installService({ config, dryRun: true, platform: 'darwin' }, { io, env: { HOME: home } });
    const xml = io.outLines.join('\n');
    expect(xml).toContain(xmlEscape(config));
    expect(xml).toContain('a&amp;b&lt;c&quot;d&apos;e.json');
    expect(XMLValidator.validate(xml)).toBe(true);
    const plist = parsePlist(xml);
    expect((plist.ProgramArguments as string[])[4]).toBe(config);
    expect(plist.WorkingDirectory).toBe(vault);
  });

  it('install-service writes the grace period plus slack into ExitTimeOut', async () => {
    const config = path.join(tmp, 'config.json');
    await writeConfig(config, path.join(tmp, 'vault'), { Daemon: { ShutdownGraceSeconds: 40 } });
    const io = memoryIo();
    await installService({ config, dryRun: true, platform: 'darwin' }, { io, env: { HOME: home } });
    const plist = parsePlist(io.outLines.join('\n'));
    expect(plist.ExitTimeOut).toBe(55);
    expect(JSON.stringify(plist)).not.toContain('@');
  });
});

describe('install-service writes the file and prints what to run', () => {
  it('Linux: writes the unit under $XDG_CONFIG_HOME/systemd/user and prints systemctl, journalctl and linger commands', async () => {
    const config = path.join(tmp, 'config.json');
    await writeConfig(config, path.join(tmp, 'vault'));
    const xdg = path.join(tmp, 'xdg');
    const io = memoryIo();
    const code = await installService({ config, platform: 'linux', user: true }, { io, env: { HOME: home, XDG_CONFIG_HOME: xdg } });
    expect(code).toBe(0);
    const file = path.join(xdg, 'systemd', 'user', 'meeting-assistant.service');
    const unit = await readFile(file, 'utf8');
    expect(unitLine(unit, 'ExecStart')[0]).toContain(`run --config "${config}"`);
    expect(io.outLines[0]).toBe(`Wrote ${file}`);
    for (const command of [
      '  systemctl --user daemon-reload',
      '  systemctl --user enable --now meeting-assistant',
      '  systemctl --user stop meeting-assistant',
      '  journalctl --user -u meeting-assistant -f',
      '  loginctl enable-linger $USER',
    ]) {
      expect(io.outLines).toContain(command);
    }
    expect(io.outLines.join('\n')).toContain('does not run systemctl itself');
  });

  it('macOS: writes the plist under ~/Library/LaunchAgents, creates the log folder, prints launchctl and tail commands', async () => {
    const config = path.join(tmp, 'config.json');
    await writeConfig(config, path.join(tmp, 'vault'));
    const io = memoryIo();
    await installService({ config, platform: 'darwin' }, { io, env: { HOME: home } });
    const file = path.join(home, 'Library', 'LaunchAgents', 'com.meeting-assistant.plist');
    expect(parsePlist(await readFile(file, 'utf8')).Label).toBe('com.meeting-assistant');
    expect((await lstat(path.join(home, 'Library', 'Logs', 'meeting-assistant'))).isDirectory()).toBe(true);
    expect(io.outLines).toContain(`  launchctl bootstrap gui/$(id -u) ${file}`);
    expect(io.outLines).toContain('  launchctl bootout gui/$(id -u)/com.meeting-assistant');
    expect(io.outLines).toContain(`  tail -f ${path.join(home, 'Library/Logs/meeting-assistant/meeting-assistant.log')}`);
  });

  it('creates a missing vault folder (systemd cannot start with a missing ReadWritePaths) and says so', async () => {
    const config = path.join(tmp, 'config.json');
    const vault = path.join(tmp, 'no-vault');
    await writeConfig(config, vault, {}, false);
    const dry = memoryIo();
    await installService({ config, platform: 'linux', dryRun: true }, { io: dry, env: { HOME: home } });
    expect(dry.errLines).toContain(`Dry run: would create the folder ${vault}`);
    expect(existsSync(vault)).toBe(false);
    const io = memoryIo();
    await installService({ config, platform: 'linux' }, { io, env: { HOME: home } });
    expect((await lstat(vault)).isDirectory()).toBe(true);
    expect(io.outLines.some((l) => l.startsWith('Warning:') && l.includes('no-vault') && l.includes('created empty'))).toBe(true);
  });

  it('refuses an invalid or missing config with exit code 2', async () => {
    const bad = path.join(tmp, 'bad.json');
    await writeFile(bad, JSON.stringify({ MeetingAssistant: { Http: { Port: 0 }, Bogus: 1 } }));
    const err = await installService({ config: bad, platform: 'linux' }, { io: memoryIo(), env: { HOME: home } }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(CliError);
    expect((err as CliError).exitCode).toBe(EXIT_USAGE);
    expect((err as CliError).message).toContain('MeetingAssistant.Http.Port');
    expect((err as CliError).message).toContain('MeetingAssistant.Bogus');
    const missing = await installService({ config: path.join(tmp, 'nope.json'), platform: 'darwin' }, { io: memoryIo(), env: { HOME: home } }).catch(
      (e: unknown) => e,
    );
    expect((missing as CliError).exitCode).toBe(EXIT_USAGE);
    const none = await installService({ platform: 'linux' }, { io: memoryIo(), env: { HOME: home }, cwd: tmp }).catch((e: unknown) => e);
    expect((none as CliError).message).toContain('--config');
    expect(existsSync(path.join(home, '.config', 'systemd'))).toBe(false);
  });
});

describe('uninstall-service', () => {
  /** Records the systemctl / launchctl calls instead of making them; `fail` lists programs that fail. */
  function recorder(fail: string[] = []) {
    const calls: string[] = [];
    const runCommand = async (argv: string[]) => {
      calls.push(argv.join(' '));
      return fail.includes(argv[0]!) ? { ok: false, output: 'Failed to connect to bus: No medium found' } : { ok: true, output: '' };
    };
    return { calls, runCommand };
  }

  it('Linux: stops and disables the service, removes the unit and its enable link, then reloads systemd', async () => {
    const config = path.join(tmp, 'config.json');
    await writeConfig(config, path.join(tmp, 'vault'));
    await installService({ config, platform: 'linux' }, { io: memoryIo(), env: { HOME: home } });
    const unitDir = path.join(home, '.config', 'systemd', 'user');
    // What `systemctl --user enable` would have made.
    await mkdir(path.join(unitDir, 'default.target.wants'));
    const wants = path.join(unitDir, 'default.target.wants', 'meeting-assistant.service');
    await symlink(path.join(unitDir, 'meeting-assistant.service'), wants);
    expect(await readlink(wants)).toContain('meeting-assistant.service');

    const io = memoryIo();
    const { calls, runCommand } = recorder();
    let unitWhenStopped: boolean | undefined;
    const watching = async (argv: string[]) => {
      if (argv.includes('--now')) unitWhenStopped = existsSync(path.join(unitDir, 'meeting-assistant.service'));
      return runCommand(argv);
    };
    expect(await uninstallService({ platform: 'linux' }, { io, env: { HOME: home }, runCommand: watching })).toBe(0);
    expect(calls).toEqual([
      'systemctl --user disable --now meeting-assistant',
      'systemctl --user daemon-reload',
      'systemctl --user reset-failed meeting-assistant',
    ]);
    // Stopped while systemd still had the unit file.
    expect(unitWhenStopped).toBe(true);
    expect(existsSync(path.join(unitDir, 'meeting-assistant.service'))).toBe(false);
    await expect(lstat(wants)).rejects.toThrow();
    expect(io.outLines[0]).toBe('Ran systemctl --user disable --now meeting-assistant');
    expect(io.outLines).toContain('Ran systemctl --user daemon-reload');
  });

  it('Linux without a user session bus: the files still go, and the message says what to run by hand', async () => {
    const config = path.join(tmp, 'config.json');
    await writeConfig(config, path.join(tmp, 'vault'));
    await installService({ config, platform: 'linux' }, { io: memoryIo(), env: { HOME: home } });
    const io = memoryIo();
    const { runCommand } = recorder(['systemctl']);
    expect(await uninstallService({ platform: 'linux' }, { io, env: { HOME: home }, runCommand })).toBe(0);
    expect(existsSync(path.join(home, '.config', 'systemd', 'user', 'meeting-assistant.service'))).toBe(false);
    expect(io.outLines[0]).toBe('Could not run systemctl --user disable --now meeting-assistant: Failed to connect to bus: No medium found');
    // reset-failed is quiet: failing for a unit that never failed is no news.
    expect(io.text()).not.toContain('reset-failed');
    expect(io.outLines.at(-1)).toMatch(/may still run/);
  });

  it('macOS: boots the agent out of gui/<uid>, removes the plist; dry run runs and removes nothing; nothing installed is fine', async () => {
    const config = path.join(tmp, 'config.json');
    await writeConfig(config, path.join(tmp, 'vault'));
    await installService({ config, platform: 'darwin' }, { io: memoryIo(), env: { HOME: home } });
    const file = path.join(home, 'Library', 'LaunchAgents', 'com.meeting-assistant.plist');

    const dry = memoryIo();
    const dryRun = recorder();
    await uninstallService({ platform: 'darwin', dryRun: true }, { io: dry, env: { HOME: home }, runCommand: dryRun.runCommand, uid: 501 });
    expect(existsSync(file)).toBe(true);
    expect(dryRun.calls).toEqual([]);
    expect(dry.outLines).toEqual(['Dry run: would run launchctl bootout gui/501/com.meeting-assistant', `Dry run: would remove ${file}`]);

    const io = memoryIo();
    const { calls, runCommand } = recorder();
    await uninstallService({ platform: 'darwin' }, { io, env: { HOME: home }, runCommand, uid: 501 });
    expect(existsSync(file)).toBe(false);
    expect(calls).toEqual(['launchctl bootout gui/501/com.meeting-assistant']);

    const again = memoryIo();
    expect(await uninstallService({ platform: 'darwin' }, { io: again, env: { HOME: home }, runCommand })).toBe(0);
    expect(again.outLines[0]).toContain('No service installed');
    expect(calls).toHaveLength(1);
  });
});

describe('the meeting-assistant CLI', () => {
  it('install-service --dry-run --platform darwin prints the plist (built CLI)', async () => {
    const bin = path.join(packageRoot(), 'bin', 'meeting-assistant.js');
    expect(existsSync(path.join(packageRoot(), 'dist', 'cli.js')), 'run `npm run build` first').toBe(true);
    const config = path.join(tmp, 'config.json');
    await writeConfig(config, path.join(tmp, 'vault'));
    const { stdout, stderr } = await run(process.execPath, [bin, 'install-service', '--dry-run', '--platform', 'darwin', '--config', config], {
      env: { ...process.env, HOME: home },
    });
    const plist = parsePlist(stdout);
    expect(plist.ProgramArguments).toEqual([process.execPath, bin, 'run', '--config', config]);
    expect(stderr).toContain('Dry run: would write');
  });
});

// ---------------------------------------------------------------------------------------

/**
 * Verify as a user unit (a runtime dir of our own stands in for the login session's); when
 * the user manager cannot be set up here, verify the same file as a system unit.
 */
async function verifyUnit(unit: string): Promise<{ code: number; stderr: string }> {
  const dir = await mkdtemp(path.join(tmp, 'unit-'));
  const file = path.join(dir, 'meeting-assistant.service');
  await writeFile(file, unit);
  const runtime = path.join(dir, 'runtime');
  await mkdir(runtime, { mode: 0o700 });
  const attempt = (args: string[]) =>
    spawnSync('systemd-analyze', [...args, 'verify', file], {
      env: { ...process.env, XDG_RUNTIME_DIR: runtime, SYSTEMD_LOG_COLOR: '0' },
      encoding: 'utf8',
      timeout: 60_000,
    });
  let result = attempt(['--user']);
  if (/Failed to (initialize manager|lookup RuntimeDirectory)/i.test(result.stderr)) result = attempt([]);
  return { code: result.status ?? -1, stderr: result.stderr.trim() };
}

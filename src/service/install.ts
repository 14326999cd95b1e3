import path from 'node:path';
import type { AppConfig } from '../config.js';
import { type Fs, isNotFound, readText, statIfExists, writeFileAtomic } from '../vault/files/fs.js';
import {
  type HomeDirs,
  LAUNCHD_LABEL,
  SYSTEMD_UNIT_FILE,
  SYSTEMD_UNIT_NAME,
  type ServicePlatform,
  launchdLogDir,
  launchdLogFile,
  serviceFilePath,
  systemdUserDir,
  templatePath,
} from './paths.js';
import { commandLine, serviceControl } from './control.js';
import { renderLaunchdPlist, renderSystemdUnit, type ServiceParams } from './render.js';

/**
 * install-service / uninstall-service without the command line: what file goes where, with
 * what content, and the commands a person runs next. Nothing here runs systemctl or
 * launchctl: enabling a service is the person's decision, and the commands are printed;
 * uninstall-service runs its stop and disable calls through control.ts.
 */

export interface ServiceTarget extends HomeDirs {
  platform: ServicePlatform;
  /** `process.execPath`. */
  node: string;
  /** bin/meeting-assistant.js of this install. */
  cli: string;
  /** The package root holding systemd/ and launchd/ (the templates). */
  packageRoot?: string;
}

export interface ServiceFilePlan {
  platform: ServicePlatform;
  /** Where the file goes. */
  path: string;
  content: string;
  /** Folders to create besides the file's own (a missing vault, the log folders). */
  folders: string[];
  /** Things a person should know before starting the service (a missing vault). */
  warnings: string[];
}

/** Seconds the service manager waits after SIGTERM: the daemon's grace period plus slack. */
export function stopTimeoutSeconds(config: AppConfig): number {
  return Math.ceil(config.settings.Daemon.ShutdownGraceSeconds) + 15;
}

export async function planInstall(config: AppConfig, target: ServiceTarget, fs: Fs): Promise<ServiceFilePlan> {
  if (!config.file) throw new Error('the service needs a config file');
  const template = await readText(fs, templatePath(target.platform, target.packageRoot));
  const vault = config.layout.root;
  const writable = config.logFile ? [path.dirname(config.logFile)] : [];
  const params: ServiceParams = {
    node: target.node,
    cli: target.cli,
    config: config.file,
    vault,
    workdir: vault,
    extraWritable: writable.filter((dir) => !isInside(vault, dir)),
    stopTimeoutSeconds: stopTimeoutSeconds(config),
  };
  const warnings: string[] = [];
  const vaultStat = await statIfExists(fs, vault);
  // systemd cannot start a unit whose ReadWritePaths= names a missing folder (226/NAMESPACE),
  // and the hardened daemon could not create it itself: an empty vault is made now.
  const missingVault = vaultStat ? [] : [vault];
  if (vaultStat && !vaultStat.isDirectory()) {
    warnings.push(`The vault path ${vault} is not a folder: correct MeetingAssistant.VaultPath before starting the service.`);
  } else if (!vaultStat) {
    warnings.push(`The vault folder ${vault} does not exist yet: it is created empty.`);
  }
  if (target.platform === 'linux') {
    return {
      platform: 'linux',
      path: serviceFilePath('linux', target),
      content: renderSystemdUnit(template, params),
      // ReadWritePaths= fails the start when a listed folder is missing.
      folders: [...missingVault, ...params.extraWritable],
      warnings,
    };
  }
  const logDir = launchdLogDir(target.home);
  return {
    platform: 'darwin',
    path: serviceFilePath('darwin', target),
    content: renderLaunchdPlist(template, {
      ...params,
      logDir,
      path: launchdPath(path.dirname(target.node)),
    }),
    // launchd does not create the folder of StandardOutPath.
    folders: [...missingVault, logDir, ...params.extraWritable],
    warnings,
  };
}

export async function performInstall(plan: ServiceFilePlan, fs: Fs): Promise<void> {
  for (const folder of plan.folders) await fs.mkdir(folder, { recursive: true });
  await writeFileAtomic(fs, plan.path, plan.content, { mode: 0o644 });
}

/** The node binary's folder first, so `node` and `npx` resolve to the one that installed us. */
export function launchdPath(nodeDir: string): string {
  const standard = ['/opt/homebrew/bin', '/usr/local/bin', '/usr/bin', '/bin', '/usr/sbin', '/sbin'];
  return [nodeDir, ...standard.filter((d) => d !== nodeDir)].join(':');
}

function isInside(folder: string, p: string): boolean {
  const rel = path.relative(folder, p);
  return rel === '' || (!rel.startsWith('..') && !path.isAbsolute(rel));
}

/** Quote a word for a POSIX shell only when it needs it, so printed commands paste as they are. */
export function shellQuote(word: string): string {
  return /^[A-Za-z0-9_/.,:@%+=-]+$/.test(word) ? word : `'${word.replace(/'/g, `'\\''`)}'`;
}

/** What to run after install-service wrote the file. */
export function installInstructions(plan: ServiceFilePlan, config: AppConfig, home: string): string[] {
  const logsCommand = `meeting-assistant logs -f --config ${shellQuote(config.file ?? '')}`;
  if (plan.platform === 'linux') {
    const lines = [
      'install-service does not run systemctl itself. To start the service now and at every login:',
      '  systemctl --user daemon-reload',
      `  systemctl --user enable --now ${SYSTEMD_UNIT_NAME}`,
      'Check, stop, restart (after changing the config):',
      `  systemctl --user status ${SYSTEMD_UNIT_NAME}`,
      `  systemctl --user stop ${SYSTEMD_UNIT_NAME}`,
      `  systemctl --user restart ${SYSTEMD_UNIT_NAME}`,
      'Follow the log:',
      config.logFile ? `  ${logsCommand}` : `  journalctl --user -u ${SYSTEMD_UNIT_NAME} -f`,
    ];
    if (config.logFile) lines.push(`  journalctl --user -u ${SYSTEMD_UNIT_NAME} -f    (start-up errors only: Logging.File is set)`);
    lines.push(
      'On a headless machine (no desktop login), let your services run without a login session:',
      '  loginctl enable-linger $USER',
    );
    return lines;
  }
  const plist = shellQuote(plan.path);
  const lines = [
    'install-service does not run launchctl itself. To load and start the agent now (and at every login):',
    `  launchctl bootstrap gui/$(id -u) ${plist}`,
    'Restart it (after changing the config), stop and unload it:',
    `  launchctl kickstart -k gui/$(id -u)/${LAUNCHD_LABEL}`,
    `  launchctl bootout gui/$(id -u)/${LAUNCHD_LABEL}`,
    'Follow the log:',
    config.logFile ? `  ${logsCommand}` : `  tail -f ${shellQuote(launchdLogFile(home))}`,
  ];
  return lines;
}

export interface UninstallPlan {
  platform: ServicePlatform;
  /** The service file, when installed. */
  path: string;
  exists: boolean;
  /** systemd: the `enable` symlink in default.target.wants (what `disable` removes). */
  links: string[];
  /**
   * Commands that stop the running service. They work before and after the file is gone
   * (systemd keeps a loaded unit until daemon-reload; launchd boots out by label).
   */
  stopCommands: string[];
  /** Commands to run after the file is gone. */
  afterCommands: string[];
}

export async function planUninstall(target: HomeDirs & { platform: ServicePlatform }, fs: Fs): Promise<UninstallPlan> {
  const file = serviceFilePath(target.platform, target);
  const exists = (await lstatIfExists(fs, file)) !== undefined;
  if (target.platform === 'linux') {
    const wants = path.join(systemdUserDir(target), 'default.target.wants', SYSTEMD_UNIT_FILE);
    const link = await lstatIfExists(fs, wants);
    return {
      platform: 'linux',
      path: file,
      exists,
      links: link ? [wants] : [],
      stopCommands: serviceControl('linux').stop.map((call) => `  ${commandLine(call)}`),
      afterCommands: serviceControl('linux').after.map((call) => `  ${commandLine(call)}`),
    };
  }
  return {
    platform: 'darwin',
    path: file,
    exists,
    links: [],
    stopCommands: serviceControl('darwin').stop.map((call) => `  ${commandLine(call)}`),
    afterCommands: [],
  };
}

/** Remove the service file and its enable symlink; nothing else (logs stay). */
export async function performUninstall(plan: UninstallPlan, fs: Fs): Promise<string[]> {
  const removed: string[] = [];
  for (const file of [...plan.links, ...(plan.exists ? [plan.path] : [])]) {
    try {
      await fs.unlink(file);
      removed.push(file);
    } catch (err) {
      if (!isNotFound(err)) throw err;
    }
  }
  return removed;
}

async function lstatIfExists(fs: Fs, file: string) {
  try {
    return await fs.lstat(file);
  } catch (err) {
    if (isNotFound(err)) return undefined;
    throw err;
  }
}

import path from 'node:path';
import { fileURLToPath } from 'node:url';

/** Where the service files of this install live, and where they go on a machine. */

export type ServicePlatform = 'linux' | 'darwin';

export const SYSTEMD_UNIT_NAME = 'meeting-assistant';
export const SYSTEMD_UNIT_FILE = `${SYSTEMD_UNIT_NAME}.service`;
export const LAUNCHD_LABEL = 'com.meeting-assistant';
export const LAUNCHD_PLIST_FILE = `${LAUNCHD_LABEL}.plist`;
export const LAUNCHD_LOG_FILE = 'meeting-assistant.log';

/**
 * The package's root folder: this module is src/service/paths.ts in a checkout (tests)
 * and dist/service/paths.js when installed, two levels below the root either way.
 */
export function packageRoot(): string {
  return path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..');
}

/** The CLI the service starts: bin/meeting-assistant.js of this install. */
export function cliPath(root = packageRoot()): string {
  return path.join(root, 'bin', 'meeting-assistant.js');
}

export function templatePath(platform: ServicePlatform, root = packageRoot()): string {
  return platform === 'linux' ? path.join(root, 'systemd', SYSTEMD_UNIT_FILE) : path.join(root, 'launchd', LAUNCHD_PLIST_FILE);
}

export interface HomeDirs {
  home: string;
  /** `$XDG_CONFIG_HOME`, when set (systemd's user unit search path follows it). */
  xdgConfigHome?: string;
}

export function systemdUserDir(dirs: HomeDirs): string {
  return path.join(dirs.xdgConfigHome || path.join(dirs.home, '.config'), 'systemd', 'user');
}

/** Where the service file is installed for the current user. */
export function serviceFilePath(platform: ServicePlatform, dirs: HomeDirs): string {
  return platform === 'linux'
    ? path.join(systemdUserDir(dirs), SYSTEMD_UNIT_FILE)
    : path.join(dirs.home, 'Library', 'LaunchAgents', LAUNCHD_PLIST_FILE);
}

/** launchd's StandardOutPath/StandardErrorPath folder. */
export function launchdLogDir(home: string): string {
  return path.join(home, 'Library', 'Logs', 'meeting-assistant');
}

export function launchdLogFile(home: string): string {
  return path.join(launchdLogDir(home), LAUNCHD_LOG_FILE);
}

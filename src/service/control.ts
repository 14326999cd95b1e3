import { execFile } from 'node:child_process';
import { LAUNCHD_LABEL, SYSTEMD_UNIT_NAME, type ServicePlatform } from './paths.js';

/**
 * Stopping and disabling the installed service (`uninstall-service`, docs/design.md §6): the
 * systemctl or launchctl calls, run through an injected runner so that tests never touch
 * the machine's service manager. A call that fails (no user session bus, a service that is
 * not loaded) is reported with the line to run by hand; the files are removed either way.
 */

export interface ServiceCall {
  argv: string[];
  /** A failure is no news (reset-failed of a unit that never failed): not reported. */
  quiet?: boolean;
}

export interface ServiceControl {
  /** Before the files go: stop the running service and disable it. */
  stop: ServiceCall[];
  /** After: let the service manager forget it. */
  after: ServiceCall[];
}

export type CommandRunner = (argv: string[]) => Promise<{ ok: boolean; output: string }>;

/**
 * The calls for a platform. `uid` is the user's id for launchd's domain; without it the
 * domain is written as a shell would expand it, for lines a person copies.
 */
export function serviceControl(platform: ServicePlatform, uid?: number): ServiceControl {
  if (platform === 'linux') {
    return {
      stop: [{ argv: ['systemctl', '--user', 'disable', '--now', SYSTEMD_UNIT_NAME] }],
      after: [{ argv: ['systemctl', '--user', 'daemon-reload'] }, { argv: ['systemctl', '--user', 'reset-failed', SYSTEMD_UNIT_NAME], quiet: true }],
    };
  }
  const domain = uid === undefined ? 'gui/$(id -u)' : `gui/${uid}`;
  return { stop: [{ argv: ['launchctl', 'bootout', `${domain}/${LAUNCHD_LABEL}`] }], after: [] };
}

export function commandLine(call: ServiceCall): string {
  return call.argv.join(' ');
}

/** The real runner: the program on PATH, its output kept for the message, 30 s at most. */
export const processRunner: CommandRunner = (argv) =>
  new Promise((resolve) => {
    execFile(argv[0]!, argv.slice(1), { timeout: 30_000 }, (err, stdout, stderr) => {
      const output = `${stderr}${stdout}`.trim() || (err ? err.message : '');
      resolve({ ok: !err, output });
    });
  });

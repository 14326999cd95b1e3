import os from 'node:os';

/**
 * This machine's name in the vault's claim (docs/design.md §2, two machines): `Daemon.MachineName`
 * when set, else the host's name. It names a file in `.meeting-assistant/machines/`, which a
 * sync tool carries to every machine, so it is reduced to what every file system and sync tool
 * keeps as it is: lower case (host names are compared without regard to case, and so are file
 * names on macOS and Windows), letters, digits, `-`, `_` and inner dots. Of the host's name
 * only the first label counts: macOS adds the domain of the network it is on (`.local` at
 * home, the DHCP server's elsewhere), and a machine renamed by every network would leave a
 * record that looks like another machine at each one.
 */
export function machineName(configured: string, hostname: () => string = os.hostname): string {
  const raw = configured.trim() || (hostname().split('.')[0] ?? '');
  const name = raw
    .toLowerCase()
    .replace(/[^a-z0-9._-]+/g, '-')
    .replace(/^[.-]+|[.-]+$/g, '')
    .slice(0, 64);
  return name || 'this-machine';
}

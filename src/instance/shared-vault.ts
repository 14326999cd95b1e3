import { homedir } from 'node:os';
import path from 'node:path';
import type { Fs } from '../vault/files/fs.js';
import { smallTextOrUndefined } from './small-file.js';

/**
 * Why a vault looks shared between machines before any other machine has left a record in it
 * (docs/design.md §2, two machines; issue #45 point 1). A daemon that finds no other machine's
 * record is active at once only where nothing says a sync tool shares the vault: on a brand-new
 * vault two machines started together would otherwise both be active until their records
 * cross. Where one of these signs is found, its first start waits as a candidate instead.
 *
 * Only the vault folder and the folders between it and the home folder (or the filesystem
 * root) are looked at, never the home folder itself: `~/.dropbox` is Dropbox's settings and
 * `~/.sync` Resilio's, on every machine where they are installed, shared folder or not.
 */

export interface SharedVaultOptions {
  /** The home folder (this user's by default); parents are looked at up to it, not it. */
  home?: string;
  /** `Daemon.MachineName` as configured: someone who names machines expects more than one. */
  machineName?: string;
  /** How long the look may take (DEADLINE_MS): folders on a hung mount never answer. */
  deadlineMs?: number;
}

/** Far above a look on a sane disk (1–4 ms), short of a start that seems to hang. */
const DEADLINE_MS = 10_000;

type Kind = 'file' | 'dir' | 'any';

/** A sync tool's marker in a folder it shares: its name, what it is, and the tool. */
const MARKERS: { name: string | RegExp; kind: Kind; within?: string; tool: string }[] = [
  // A folder since Syncthing 0.14.45; an empty file before.
  { name: '.stfolder', kind: 'any', tool: 'Syncthing' },
  { name: '.stignore', kind: 'file', tool: 'Syncthing' },
  // A file in Dropbox's folder (`~/.dropbox`, its settings, is a folder).
  { name: '.dropbox', kind: 'file', tool: 'Dropbox' },
  { name: '.dropbox.cache', kind: 'dir', tool: 'Dropbox' },
  // Resilio keeps `.sync/IgnoreList` in a folder it shares (`~/.sync`, its settings, has none).
  { name: '.sync', kind: 'dir', within: 'IgnoreList', tool: 'Resilio Sync' },
  { name: /^\.(?:owncloud|nextcloud)sync\.log$/, kind: 'file', tool: 'Nextcloud or ownCloud' },
  // The client's journal: `.sync_<id>.db`, `._sync_<id>.db` in older clients.
  { name: /^\._?sync_[^/]*\.db$/, kind: 'file', tool: 'Nextcloud or ownCloud' },
];

/** Where the cloud drives keep their folders: the path says it. */
const PATH_SIGNS: { test: (real: string, segments: string[]) => boolean; tool: string }[] = [
  { test: (p) => p.includes('/Library/Mobile Documents/') || p.includes('iCloud~md~obsidian'), tool: 'iCloud Drive' },
  { test: (p) => p.includes('/Library/CloudStorage/'), tool: 'a cloud drive (~/Library/CloudStorage)' },
  // `OneDrive`, `OneDrive - Company`, `OneDrive-Personal`.
  { test: (_p, s) => s.some((x) => /^OneDrive(?:$| - |-)/i.test(x)), tool: 'OneDrive' },
  // `Dropbox`, `Dropbox (Personal)`, `Dropbox (Company)`.
  { test: (_p, s) => s.some((x) => /^Dropbox(?:$| \()/i.test(x)), tool: 'Dropbox' },
  { test: (_p, s) => s.some((x) => /^Google ?Drive$/i.test(x)), tool: 'Google Drive' },
];

async function isKind(fs: Fs, file: string, kind: Kind): Promise<boolean> {
  try {
    const st = await fs.stat(file);
    return kind === 'any' ? st.isFile() || st.isDirectory() : kind === 'file' ? st.isFile() : st.isDirectory();
  } catch {
    return false;
  }
}

/** The sync tool whose marker is in `folder`, and the marker's path. */
async function markerIn(fs: Fs, folder: string): Promise<{ tool: string; file: string } | undefined> {
  let names: string[];
  try {
    names = (await fs.readdir(folder, { withFileTypes: true })).map((e) => e.name).filter((n) => n.startsWith('.'));
  } catch {
    return undefined;
  }
  for (const m of MARKERS) {
    for (const name of names.filter((n) => (typeof m.name === 'string' ? n === m.name : m.name.test(n)))) {
      const file = path.join(folder, name);
      if (!(await isKind(fs, file, m.kind))) continue;
      if (m.within && !(await isKind(fs, path.join(file, m.within), 'file'))) continue;
      return { tool: m.tool, file };
    }
  }
  return undefined;
}

/**
 * Whether `.obsidian/core-plugins.json` turns Obsidian Sync on: a list of the plugins on in
 * older Obsidian, `{ "<plugin>": true|false }` in newer.
 */
export function obsidianSyncOn(text: string | undefined): boolean {
  if (text === undefined) return false;
  let v: unknown;
  try {
    v = JSON.parse(text);
  } catch {
    return false;
  }
  if (Array.isArray(v)) return v.includes('sync');
  return typeof v === 'object' && v !== null && (v as Record<string, unknown>).sync === true;
}

/** The vault folder, then each folder above it, up to the home folder or the root (neither included). */
function foldersUp(root: string, home: string): string[] {
  const out = [root];
  if (root === home) return out;
  for (let dir = path.dirname(root); dir !== home && dir !== path.dirname(dir); dir = path.dirname(dir)) out.push(dir);
  return out;
}

/**
 * Why the vault at `root` looks shared between machines, in words a person reads in the log and
 * in `status`; undefined when nothing says so. The first sign found is given. A look that does
 * not end within its deadline (a marker, or a folder above the vault, on a hung network mount)
 * counts as a sign: the first start then waits 2 heartbeats instead of hanging.
 */
export async function whyLooksShared(fs: Fs, root: string, o: SharedVaultOptions): Promise<string | undefined> {
  const ms = o.deadlineMs ?? DEADLINE_MS;
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<string>((resolve) => {
    timer = setTimeout(() => resolve(`its folders did not answer within ${ms / 1000} s (a slow or hung mount?), so it is taken as shared`), ms);
    timer.unref();
  });
  try {
    return await Promise.race([look(fs, root, o), late]);
  } finally {
    clearTimeout(timer);
  }
}

async function look(fs: Fs, root: string, o: SharedVaultOptions): Promise<string | undefined> {
  // The folder as it is on disk: a vault reached through a link lies where the link points.
  const real = await fs.realpath(root).catch(() => root);
  const posix = real.split(path.sep).join('/');
  const segments = posix.split('/').filter(Boolean);
  for (const sign of PATH_SIGNS) if (sign.test(posix, segments)) return `it is in ${sign.tool} (${real})`;
  const given = o.home ?? homedir();
  const home = await fs.realpath(given).catch(() => path.resolve(given));
  for (const folder of foldersUp(real, home)) {
    const found = await markerIn(fs, folder);
    if (found) return `${found.tool} shares ${folder === real ? 'it' : 'a folder it is in'} (${found.file})`;
  }
  const plugins = path.join(real, '.obsidian', 'core-plugins.json');
  if (obsidianSyncOn(await smallTextOrUndefined(fs, plugins))) return `Obsidian Sync is on in it (${plugins})`;
  // Last: a sync tool's own sign says more in the log than the name does.
  if (o.machineName?.trim()) return `MeetingAssistant.Daemon.MachineName is set (${o.machineName.trim()}), so more than one machine may run it`;
  return undefined;
}

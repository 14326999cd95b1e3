import path from 'node:path';
import { isNotFound } from '../files/fs.js';
import { type FileVersion, fileVersion, sameVersion } from '../files/file-version.js';
import { mapLimit } from '../files/concurrency.js';
import { isNormalAbsolute } from '../files/lexical-paths.js';
import { kindOfFolder, type Vault } from '../files/vault.js';
import { LINK_WALK } from '../format/links.js';

/**
 * The vault's files as a link lookup sees them (format/links.ts `VaultFiles`), kept between
 * look-ups and checked by one stat per folder instead of a walk: a link to a note still to be
 * created (a meeting's `context` or `summary`, docs/design.md §1) is looked for by name in the
 * whole vault, and on the bench's 20,000 notes each such walk took 60–370 ms of a run's start,
 * three times per run (BENCHMARKS.md, run start).
 *
 * A folder's own version (mtime, change time, inode, size) moves whenever an entry is added,
 * removed or renamed in it, never when a file in it is only written; so an unchanged folder's
 * entries are taken as they were, and a changed one is read again (only it). A folder changed
 * within `RACY_MS` of its reading is read again at the next look-up too: a change in the same
 * tick of a coarse clock (FAT keeps 2 s, HFS+ 1 s) leaves the version as it was (git's "racily
 * clean" entries, the same cure).
 */

/** A folder whose version is younger than this when it is read is not trusted at the next look-up. */
export const RACY_MS = 3000;

/** Folders looked at (stat, or read) at once. */
const FOLDER_CONCURRENCY = 32;

interface Folder {
  version: FileVersion;
  /** Changed too recently when read: read again next time, whatever its version says. */
  racy: boolean;
  /** Its files, vault-relative with forward slashes. */
  files: string[];
  /** The folders in it to walk (vault-relative). */
  folders: string[];
}

export interface VaultListingOptions {
  /** The wall clock in ms, compared with the folders' mtimes. Tests pass their own. */
  now?: () => number;
}

export class VaultListing {
  private folders = new Map<string, Folder>();
  private flat: readonly string[] = [];
  private going: Promise<readonly string[]> | undefined;
  /** Per kind, the notes derived from the listing `from`. */
  private notes = new Map<string, { from: readonly string[]; list: readonly string[] }>();
  /** Per kind, each folder's notes, while that reading of the folder is the one held. */
  private shares = new Map<string, WeakMap<Folder, string[]>>();
  /** Moved by clear(): a look under way then keeps nothing of what it found. */
  private generation = 0;
  private readonly now: () => number;
  /** Folders read (readdir) so far; tests and the bench read it. */
  reads = 0;

  constructor(
    private readonly vault: Vault,
    options: VaultListingOptions = {},
  ) {
    this.now = options.now ?? Date.now;
  }

  /**
   * Every file of the vault (vault-relative, forward slashes, in walk order), hidden folders
   * and sync tools' files left out as a fresh walk would (LINK_WALK). Callers at the same
   * moment share one look.
   */
  files(): Promise<readonly string[]> {
    this.going ??= this.look().finally(() => {
      this.going = undefined;
    });
    return this.going;
  }

  /**
   * One look for a whole pass: the first `files()` or `meetingNotes()` of the view looks, the
   * others answer from that look. A run's resolution looks for its links' notes and then lists
   * the meeting notes for the claim check (docs/design.md §1, §8): two looks, each reading again
   * the folders the last run wrote in (4,000 entries each, racy for 3 s), for answers a few ms
   * apart. What the view answers is the vault as of its look, as a look-up just then would.
   */
  view(): Pick<VaultListing, 'files' | 'meetingNotes'> {
    let looked: Promise<readonly string[]> | undefined;
    const files = () => (looked ??= this.files());
    return {
      files,
      meetingNotes: async () => {
        const seen = await files().catch(() => undefined);
        return (await this.notesOf('Meetings', seen)) ?? this.vault.listNotesOf('Meetings');
      },
    };
  }

  /**
   * `files()` when it reaches `folder` (absolute, a configured folder), else undefined: the
   * folder lies where the listing does not go (in a dot-folder, outside the vault, through a
   * symbolic link, which a walk of the folder itself follows), or the listing could not be
   * made (a folder elsewhere in the vault that cannot be read). The caller then walks the
   * folder, as before there was a listing.
   */
  async filesReaching(folder: string, looked?: readonly string[]): Promise<readonly string[] | undefined> {
    let files: readonly string[];
    try {
      // A look made for the caller (`view`) while its tree is still the one held; else a look now.
      files = looked !== undefined && looked === this.flat ? looked : await this.files();
    } catch {
      return undefined;
    }
    const rel = this.vault.rel(folder);
    // `folders` is the tree `files` was made of while `flat` is it (both are set together).
    return this.flat === files && this.folders.has(rel === '.' ? '' : rel) ? files : undefined;
  }

  /**
   * The meeting notes (absolute, sorted), as `vault.listNotesOf('Meetings')` lists them.
   * Undefined-free: walked as listNotesOf does when the listing does not reach the folder.
   */
  async meetingNotes(): Promise<readonly string[]> {
    return (await this.notesOf('Meetings')) ?? this.vault.listNotesOf('Meetings');
  }

  /**
   * The notes of one kind (absolute, sorted), as `vault.listNotesOf(key)` lists them: the
   * Markdown files below its folder, no dot-files, not in the folders configured for other
   * kinds inside it, of that kind (vault.kindOf: the glossary and dictionary are of none).
   * Undefined when the listing does not reach the folder (filesReaching): the caller walks it.
   * `looked`: a look already made for this caller (`view`), used while its tree is the one held.
   * Each folder's share is worked out once per reading of that folder: a run start that
   * re-read two folders does not sift the vault's 20,000 names again (BENCHMARKS.md, run start).
   */
  async notesOf(key: 'Meetings' | 'Summaries', looked?: readonly string[]): Promise<readonly string[] | undefined> {
    const { folders, files: single } = this.vault.layout;
    const root = folders[key];
    const files = await this.filesReaching(root, looked);
    if (files === undefined) return undefined;
    const kept = this.notes.get(key);
    if (kept?.from === files) return kept.list;
    const prefixOf = (folder: string) => {
      const rel = this.vault.rel(folder);
      return rel === '' || rel === '.' ? '' : `${rel}/`;
    };
    const prefix = prefixOf(root);
    // The folders of other kinds inside this one (the default layout keeps the transcripts,
    // summaries and context notes inside Meetings), passed over as listNotesOf does not enter
    // them; what is left is of this kind, unless another kind shares the very folder.
    const others = Object.values(folders)
      .filter((folder) => folder !== root)
      .map(prefixOf)
      .filter((other) => other.length > prefix.length && other.startsWith(prefix));
    const kind = kindOfFolder(key);
    const shared = Object.entries(folders).some(([other, folder]) => other !== key && folder === root);
    const ofNoKind = new Set([single.glossary, single.dictionary]);
    const shares = this.shares.get(key) ?? new WeakMap<Folder, string[]>();
    this.shares.set(key, shares);
    const list: string[] = [];
    for (const [rel, folder] of this.folders) {
      const below = rel === '' ? '' : `${rel}/`;
      if (!below.startsWith(prefix) || others.some((other) => below.startsWith(other))) continue;
      let share = shares.get(folder);
      if (share === undefined) {
        share = [];
        for (const file of folder.files) {
          if (!isMarkdownName(file) || file.charCodeAt(file.lastIndexOf('/') + 1) === 0x2e /* a dot-file */) continue;
          const abs = this.absOf(file);
          if (ofNoKind.has(abs) || (shared && this.vault.kindOf(abs) !== kind)) continue;
          share.push(abs);
        }
        shares.set(folder, share);
      }
      for (const abs of share) list.push(abs);
    }
    list.sort();
    if (this.flat === files) this.notes.set(key, { from: files, list });
    return list;
  }

  /** A listed file's absolute path: joined as it is below a normalised root, without path.join's walk over it. */
  private absOf(rel: string): string {
    const root = this.vault.root;
    return isNormalAbsolute(root) ? `${root === '/' ? '' : root}/${rel}` : path.join(root, rel);
  }

  /** Everything let go (the run caches' idle release): the next look-up walks the vault. */
  clear(): void {
    this.folders = new Map();
    this.flat = [];
    this.notes.clear();
    this.shares.clear();
    this.generation++;
  }

  private async look(): Promise<readonly string[]> {
    const generation = this.generation;
    const seen = new Map<string, Folder>();
    let changed = false;
    const visit = async (rel: string, isRoot: boolean): Promise<void> => {
      const abs = rel === '' ? this.vault.root : path.join(this.vault.root, rel);
      const folder = await this.folderAt(abs, rel, isRoot);
      if (folder === undefined) {
        changed = true;
        return;
      }
      if (folder !== this.folders.get(rel)) changed = true;
      seen.set(rel, folder);
      await mapLimit(folder.folders, FOLDER_CONCURRENCY, (sub) => visit(sub, false));
    };
    await visit('', true);
    if (!changed && seen.size === this.folders.size) return this.flat;
    // In walk order (each folder's files, then its folders'), as one walk would list them.
    const out: string[] = [];
    const collect = (rel: string) => {
      const folder = seen.get(rel);
      if (!folder) return;
      for (const file of folder.files) out.push(file);
      for (const sub of folder.folders) collect(sub);
    };
    collect('');
    // Let go meanwhile: its callers have the answer, the listing keeps nothing.
    if (generation !== this.generation) return out;
    this.folders = seen;
    this.flat = out;
    return out;
  }

  /**
   * The folder as it is now: the one remembered when its version is the same, else read. The
   * version is taken before the read, so a change during it shows at the next look-up. A
   * subfolder is looked at with lstat: one replaced by a link since its parent was read is
   * not followed (a walk never follows links), nor listed.
   */
  private async folderAt(abs: string, rel: string, isRoot: boolean): Promise<Folder | undefined> {
    let stats;
    try {
      stats = isRoot ? await this.vault.fs.stat(abs) : await this.vault.fs.lstat(abs);
    } catch (err) {
      if (isNotFound(err) || (err as { code?: unknown }).code === 'ENOTDIR') return undefined;
      throw err;
    }
    if (!stats.isDirectory()) return undefined;
    const version = fileVersion(stats);
    const known = this.folders.get(rel);
    if (known && !known.racy && sameVersion(known.version, version)) return known;
    const readAt = this.now();
    let entries;
    try {
      entries = await this.vault.fs.readdir(abs, { withFileTypes: true });
    } catch (err) {
      if (isNotFound(err) || (err as { code?: unknown }).code === 'ENOTDIR') return undefined;
      throw err;
    }
    this.reads++;
    const files: string[] = [];
    const folders: string[] = [];
    for (const entry of entries) {
      if (LINK_WALK.skip(entry.name)) continue;
      const childRel = rel === '' ? entry.name : `${rel}/${entry.name}`;
      if (entry.isDirectory()) {
        if (LINK_WALK.enter(entry.name)) folders.push(childRel);
      } else if (entry.isFile()) {
        files.push(childRel);
      }
    }
    // A change moves the change time to its own tick: it goes unseen only when the change time
    // already was in that tick. The mtime alone does not tell: a sync tool sets it back, and
    // the change time it leaves behind is the recent one.
    const racy = readAt - Math.max(version.mtimeMs, version.ctimeMs) < RACY_MS;
    return { version, racy, files, folders };
  }
}

/** `.md` in any case, without a lower-cased copy of every name. */
function isMarkdownName(name: string): boolean {
  const n = name.length;
  return n > 3 && name.charCodeAt(n - 3) === 0x2e && (name.charCodeAt(n - 2) | 0x20) === 0x6d && (name.charCodeAt(n - 1) | 0x20) === 0x64;
}

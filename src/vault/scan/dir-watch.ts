import { type FSWatcher, type Stats, promises as fsp, watch as fsWatch } from 'node:fs';
import path from 'node:path';

/**
 * The daemon's file watcher (docs/design.md §2, §8): one `fs.watch` per folder, none per file.
 * chokidar watches every file on its own (an fs.watch each, with its stat state): on a
 * 20,000-note vault that was some 100 MB of an idle daemon's memory and as many inotify
 * watches, for notes that change a few times a day. A folder's watch reports every child
 * that is created, written, renamed, removed or has its times set, with its name, which is
 * all the daemon needs: the names of the files are kept to tell an add from a change.
 *
 * Each path settles `quietMs` after its last event (a write in pieces, a save by rename over
 * the note: one event, with the final content); then it is looked at once: a file known before
 * is a change, a new one an add, one gone an unlink; a new folder is watched and its files are
 * adds. Every event is also passed on at once, undebounced (`onRaw`, for the caches). A
 * symbolic link to a folder is followed when `follow` accepts where it leads (inside the vault:
 * a project folder may be such a link, and its cached files must hear of their changes), and
 * never inside another followed link (no loops).
 */

/** The longest a path waits for a quiet moment by default: 2 s, then it settles on what it is (issue 43). */
export const MAX_QUIET_MS = 2000;

export type SettledType = 'add' | 'change' | 'unlink';

export interface DirWatchOptions {
  /** Absolute folders, none inside another. */
  roots: readonly string[];
  /** Paths never watched nor reported (files or folders). */
  ignored(absPath: string): boolean;
  /** Every event at once (file or folder). */
  onRaw(absPath: string): void;
  /** A file after its quiet period. */
  onSettled(type: SettledType, absPath: string): void;
  quietMs: number;
  /** The longest a path waits for its quiet period, however often it changes (default MAX_QUIET_MS). */
  maxQuietMs?: number;
  onError(err: unknown): void;
  /**
   * A folder that exists but could not be watched (the system's limit of watches, ENOSPC;
   * no descriptors, EMFILE; no permission): nothing below it is reported from now on.
   */
  onUnwatched(absFolder: string, err: unknown): void;
  /** Whether a link to a folder, leading to `realTarget`, is watched too. Default: never. */
  follow?(realTarget: string): boolean;
  /** `fs.watch` (tests inject its failures). */
  watch?: typeof fsWatch;
  /** How often a root that is gone (removed while watched) is looked for again. Default 2 s. */
  rootRetryMs?: number;
}

interface Folder {
  watcher: FSWatcher | undefined;
  /**
   * Inode and birth time when the watch began: a folder removed and made again under the same
   * name (within the quiet period, often with the same inode number) is another folder, whose
   * old watch hears nothing any more.
   */
  identity: string | undefined;
  /** Reached through a symbolic link: no link below it is followed. */
  linked: boolean;
  /** Names of the files in it (what tells an add from a change, and what an unlink removes). */
  files: Set<string>;
}

export class DirectoryWatcher {
  private readonly folders = new Map<string, Folder>();
  private readonly timers = new Map<string, NodeJS.Timeout>();
  /** When the burst of events each waiting path is in began (for maxQuietMs). */
  private readonly firstEvent = new Map<string, number>();
  private closed = false;
  private readonly roots: string[];
  /** Roots that are gone: looked for every `rootRetryMs`, watched again once they are back. */
  private readonly missing = new Set<string>();
  private retry: NodeJS.Timeout | undefined;
  readonly ready: Promise<void>;

  constructor(private readonly o: DirWatchOptions) {
    const roots = o.roots.map((root) => path.resolve(root));
    this.roots = roots;
    this.ready = (async () => {
      for (const root of roots) await this.addFolder(root, true);
    })();
  }

  /** Folders watched now (tests, the bench). */
  get watchedFolders(): number {
    return this.folders.size;
  }

  async close(): Promise<void> {
    this.closed = true;
    clearInterval(this.retry);
    for (const timer of this.timers.values()) clearTimeout(timer);
    this.timers.clear();
    this.firstEvent.clear();
    for (const folder of this.folders.values()) folder.watcher?.close();
    this.folders.clear();
  }

  /** Watch `abs` and the folders below it; files found after the start are adds. */
  private async addFolder(abs: string, initial: boolean, linked = false): Promise<void> {
    if (this.closed || this.folders.has(abs) || this.o.ignored(abs)) return;
    const folder: Folder = { watcher: undefined, identity: undefined, linked, files: new Set() };
    this.folders.set(abs, folder);
    // The watch first, then the listing: nothing created in between goes unseen.
    try {
      const watcher = (this.o.watch ?? fsWatch)(abs, { persistent: true }, (_type, name) => this.onEvent(abs, name));
      folder.watcher = watcher;
      // The watch broke (it does not say why): the folder is watched and listed again.
      watcher.on('error', (err) => {
        this.o.onError(err);
        if (this.folders.get(abs)?.watcher !== watcher) return;
        this.removeFolder(abs, false);
        this.schedule(abs);
      });
    } catch (err) {
      this.folders.delete(abs);
      if (!isGone(err)) this.o.onUnwatched(abs, err);
      else if (this.roots.includes(abs)) this.rootGone(abs);
      return;
    }
    this.missing.delete(abs);
    let entries;
    try {
      // What the watch follows to: the folder, or where its link leads.
      folder.identity = identityOf(await fsp.stat(abs));
      entries = await fsp.readdir(abs, { withFileTypes: true });
    } catch (err) {
      this.removeFolder(abs);
      if (!isGone(err)) this.o.onUnwatched(abs, err);
      return;
    }
    for (const entry of entries) {
      const child = path.join(abs, entry.name);
      if (this.o.ignored(child)) continue;
      const target = entry.isSymbolicLink() ? await this.linkTarget(child) : undefined;
      if (entry.isDirectory() || target?.isDirectory()) await this.addFolder(child, initial, target !== undefined);
      else if (entry.isFile() || target?.isFile()) {
        if (initial) folder.files.add(entry.name);
        else {
          this.o.onRaw(child);
          this.schedule(child);
        }
      }
    }
  }

  /** A folder gone: its files are unlinks (unless `unlinks` is false), its watches closed. */
  private removeFolder(abs: string, unlinks = true): void {
    const folder = this.folders.get(abs);
    if (!folder) return;
    folder.watcher?.close();
    this.folders.delete(abs);
    if (unlinks && this.roots.includes(abs)) this.rootGone(abs);
    if (unlinks) for (const name of folder.files) this.o.onSettled('unlink', path.join(abs, name));
    const prefix = abs + path.sep;
    for (const other of [...this.folders.keys()]) if (other.startsWith(prefix)) this.removeFolder(other, unlinks);
  }

  /** A root removed (a sync tool, a user): its notes are seen again once it is back, not at the next start. */
  private rootGone(root: string): void {
    this.missing.add(root);
    if (this.retry || this.closed) return;
    this.retry = setInterval(() => {
      for (const gone of this.missing) {
        fsp.stat(gone).then(
          (stats) => {
            if (stats.isDirectory() && this.missing.delete(gone)) return this.addFolder(gone, false);
          },
          () => undefined,
        ).catch((err: unknown) => this.o.onError(err));
      }
      if (this.missing.size === 0) {
        clearInterval(this.retry);
        this.retry = undefined;
      }
    }, this.o.rootRetryMs ?? 2000);
    // Looking for a lost folder must not keep a stopping daemon alive.
    this.retry.unref();
  }

  private onEvent(folder: string, name: string | Buffer | null): void {
    if (this.closed) return;
    // No name (some platforms, an overflow): look at the whole folder again.
    if (name === null) return void this.rescan(folder);
    // A watched folder's own removal comes as an event named after it: a root has no parent
    // watch to notice, so the folder itself is looked at again.
    if (name.toString() === path.basename(folder) && this.roots.includes(folder)) this.schedule(folder);
    const abs = path.join(folder, name.toString());
    if (this.o.ignored(abs)) return;
    this.o.onRaw(abs);
    this.schedule(abs);
  }

  private schedule(abs: string): void {
    const previous = this.timers.get(abs);
    if (previous) clearTimeout(previous);
    // A file that never goes quiet (rewritten every 100 ms) settles all the same `maxQuietMs`
    // after the first event of its burst, on what it is then (issue 43).
    const now = Date.now();
    const first = this.firstEvent.get(abs) ?? now;
    this.firstEvent.set(abs, first);
    const wait = Math.max(0, Math.min(this.o.quietMs, first + (this.o.maxQuietMs ?? Math.max(this.o.quietMs, MAX_QUIET_MS)) - now));
    this.timers.set(
      abs,
      setTimeout(() => {
        this.timers.delete(abs);
        this.firstEvent.delete(abs);
        this.settle(abs).catch((err: unknown) => this.o.onError(err));
      }, wait),
    );
  }

  private async settle(abs: string): Promise<void> {
    if (this.closed) return;
    let stats = await fsp.lstat(abs).catch(() => undefined);
    const link = stats?.isSymbolicLink() ?? false;
    if (link) stats = await this.linkTarget(abs);
    const parent = this.folders.get(path.dirname(abs));
    if (stats?.isDirectory()) {
      const known = this.folders.get(abs);
      // Removed and made again: the old watch is dead; its files are gone, the new ones adds.
      if (known && known.identity !== identityOf(stats)) this.removeFolder(abs);
      await this.addFolder(abs, false, link && !this.roots.includes(abs));
      return;
    }
    if (stats?.isFile()) {
      if (!parent) return;
      const known = parent.files.has(path.basename(abs));
      parent.files.add(path.basename(abs));
      this.o.onSettled(known ? 'change' : 'add', abs);
      return;
    }
    if (this.folders.has(abs)) this.removeFolder(abs);
    else if (this.roots.includes(abs)) this.rootGone(abs);
    else if (parent?.files.delete(path.basename(abs))) this.o.onSettled('unlink', abs);
  }

  /**
   * What a symbolic link leads to, as far as the watcher goes there: a file is that file; a
   * folder only when it is a root (watched as given) or `follow` accepts its real place and the
   * link is not inside a followed one. Undefined otherwise (or when it leads nowhere).
   */
  private async linkTarget(abs: string): Promise<Stats | undefined> {
    const target = await fsp.stat(abs).catch(() => undefined);
    if (!target?.isDirectory() || this.roots.includes(abs)) return target;
    for (let up = path.dirname(abs); this.folders.has(up) && up !== path.dirname(up); up = path.dirname(up)) if (this.folders.get(up)!.linked) return undefined;
    const real = await fsp.realpath(abs).catch(() => undefined);
    return real !== undefined && this.o.follow?.(real) ? target : undefined;
  }

  /** Every entry of a folder looked at again (an event without a name). */
  private async rescan(folder: string): Promise<void> {
    const known = this.folders.get(folder);
    if (!known) return;
    const entries = await fsp.readdir(folder, { withFileTypes: true }).catch(() => undefined);
    if (!entries) return this.removeFolder(folder);
    const names = new Set(entries.map((e) => e.name));
    for (const name of new Set([...known.files, ...names])) {
      const abs = path.join(folder, name);
      if (this.o.ignored(abs)) continue;
      // As an event with its name would: the caches hear of it at once, not after the quiet period.
      this.o.onRaw(abs);
      this.schedule(abs);
    }
  }
}

function identityOf(stats: { ino: number; birthtimeMs: number }): string {
  return `${stats.ino}:${stats.birthtimeMs}`;
}

/** The folder is not there (any more), or is not a folder: nothing to watch, nothing to say. */
function isGone(err: unknown): boolean {
  const code = (err as { code?: unknown }).code;
  return code === 'ENOENT' || code === 'ENOTDIR';
}

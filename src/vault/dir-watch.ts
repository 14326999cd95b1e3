import { type FSWatcher, promises as fsp, watch as fsWatch } from 'node:fs';
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
 * symbolic link to a folder is not followed (it could lead out of the vault).
 */

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
  onError(err: unknown): void;
}

interface Folder {
  watcher: FSWatcher | undefined;
  /** Names of the files in it (what tells an add from a change, and what an unlink removes). */
  files: Set<string>;
}

export class DirectoryWatcher {
  private readonly folders = new Map<string, Folder>();
  private readonly timers = new Map<string, NodeJS.Timeout>();
  private closed = false;
  readonly ready: Promise<void>;

  constructor(private readonly o: DirWatchOptions) {
    this.ready = (async () => {
      for (const root of o.roots) await this.addFolder(path.resolve(root), true);
    })();
  }

  /** Folders watched now (tests, the bench). */
  get watchedFolders(): number {
    return this.folders.size;
  }

  async close(): Promise<void> {
    this.closed = true;
    for (const timer of this.timers.values()) clearTimeout(timer);
    this.timers.clear();
    for (const folder of this.folders.values()) folder.watcher?.close();
    this.folders.clear();
  }

  /** Watch `abs` and the folders below it; files found after the start are adds. */
  private async addFolder(abs: string, initial: boolean): Promise<void> {
    if (this.closed || this.folders.has(abs) || this.o.ignored(abs)) return;
    const folder: Folder = { watcher: undefined, files: new Set() };
    this.folders.set(abs, folder);
    // The watch first, then the listing: nothing created in between goes unseen.
    try {
      folder.watcher = fsWatch(abs, { persistent: true }, (_type, name) => this.onEvent(abs, name));
      folder.watcher.on('error', () => this.removeFolder(abs));
    } catch (err) {
      this.folders.delete(abs);
      if ((err as { code?: string }).code !== 'ENOENT') this.o.onError(err);
      return;
    }
    let entries;
    try {
      entries = await fsp.readdir(abs, { withFileTypes: true });
    } catch {
      this.removeFolder(abs);
      return;
    }
    for (const entry of entries) {
      const child = path.join(abs, entry.name);
      if (this.o.ignored(child)) continue;
      if (entry.isDirectory()) await this.addFolder(child, initial);
      else if (entry.isFile()) {
        if (initial) folder.files.add(entry.name);
        else {
          this.o.onRaw(child);
          this.schedule(child);
        }
      }
    }
  }

  /** A folder gone: its files are unlinks, its watches closed. */
  private removeFolder(abs: string): void {
    const folder = this.folders.get(abs);
    if (!folder) return;
    folder.watcher?.close();
    this.folders.delete(abs);
    for (const name of folder.files) this.o.onSettled('unlink', path.join(abs, name));
    const prefix = abs + path.sep;
    for (const other of [...this.folders.keys()]) if (other.startsWith(prefix)) this.removeFolder(other);
  }

  private onEvent(folder: string, name: string | Buffer | null): void {
    if (this.closed) return;
    // No name (some platforms, an overflow): look at the whole folder again.
    if (name === null) return void this.rescan(folder);
    const abs = path.join(folder, name.toString());
    if (this.o.ignored(abs)) return;
    this.o.onRaw(abs);
    this.schedule(abs);
  }

  private schedule(abs: string): void {
    const previous = this.timers.get(abs);
    if (previous) clearTimeout(previous);
    this.timers.set(
      abs,
      setTimeout(() => {
        this.timers.delete(abs);
        this.settle(abs).catch((err: unknown) => this.o.onError(err));
      }, this.o.quietMs),
    );
  }

  private async settle(abs: string): Promise<void> {
    if (this.closed) return;
    let stats = await fsp.lstat(abs).catch(() => undefined);
    // A link to a file is that file; a link to a folder is not followed.
    if (stats?.isSymbolicLink()) stats = await fsp.stat(abs).then((target) => (target.isFile() ? target : undefined), () => undefined);
    const parent = this.folders.get(path.dirname(abs));
    if (stats?.isDirectory()) {
      await this.addFolder(abs, false);
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
    else if (parent?.files.delete(path.basename(abs))) this.o.onSettled('unlink', abs);
  }

  /** Every entry of a folder looked at again (an event without a name). */
  private async rescan(folder: string): Promise<void> {
    const known = this.folders.get(folder);
    if (!known) return;
    const entries = await fsp.readdir(folder, { withFileTypes: true }).catch(() => undefined);
    if (!entries) return this.removeFolder(folder);
    const names = new Set(entries.map((e) => e.name));
    for (const name of [...known.files, ...names]) this.schedule(path.join(folder, name));
  }
}

import path from 'node:path';
import type { FolderKey, VaultLayout } from '../../config.js';
import { type Fs, readText, statIfExists, walkFiles } from './fs.js';
import { PathLocks } from './locks.js';
import { WatchEnd } from './watch-end.js';
import { addedLines, LATE_WATCH_MS, LateMergeError, type ReplacedFile, watchReplaced } from './late-writes.js';
import { ConcurrentEditError, type Transform, UNCHANGED, type UpdateHooks, type UpdateOptions, type UpdateResult, updateFile, writeTargetOf } from './update.js';
import { MeetingAssistantError } from '../../errors.js';
import { isSyncToolFile } from './sync-files.js';
import { DEFAULT_MAX_FILE_BYTES, readRegularFile, UnwritableFileError } from './regular-file.js';
import { type Clock, systemClock } from '../../clock.js';
import { isBelow, isInside, relativeTo, resolveIn } from './lexical-paths.js';

/** Called after every write the daemon makes, so the watcher can ignore its own writes. */
export type WriteListener = (absPath: string, content: string) => void;

/**
 * What the watch after a write did: a write that landed in the replaced file merged into the
 * file or kept in `.trash/` (it did not apply to the file as it is), the write's own lines
 * restored after a stale rewrite dropped them, or an error.
 */
export interface LateWriteEvent {
  file: string;
  outcome: 'merged' | 'restored' | 'kept-in-trash' | 'failed';
  trash?: string;
  error?: unknown;
}

export interface VaultOptions {
  /** How long a replaced file is watched for late writes (default LATE_WATCH_MS). */
  lateWatchMs?: number;
  /** Names the copies in .trash/ that need a time stamp. */
  clock?: Clock;
}

/** The most specific configured folder wins, so nested defaults (Meetings/Transcripts) work. */
export type NoteKind = 'meeting' | 'transcript' | 'summary' | 'context' | 'project' | 'identity' | 'template' | 'inbox' | 'source';

const KIND_OF_FOLDER: Record<FolderKey, NoteKind> = {
  Meetings: 'meeting',
  Transcripts: 'transcript',
  Summaries: 'summary',
  Context: 'context',
  Projects: 'project',
  Identities: 'identity',
  // Summary templates are never meeting notes, even when the folder lies inside `Meetings`.
  Templates: 'template',
  // Files waiting to be imported and imported originals (§9), never meeting notes either.
  Inbox: 'inbox',
  Sources: 'source',
};

interface FolderKind {
  folder: string;
  kind: NoteKind;
}

/**
 * The folders, deepest first: the first that holds a file names its kind. Equal depths keep
 * the layout's order (Array.prototype.sort is stable).
 */
function deepestFirst(folders: VaultLayout['folders']): FolderKind[] {
  const depth = (folder: string) => folder.split(path.sep).length;
  return (Object.entries(folders) as [FolderKey, string][])
    .sort(([, a], [, b]) => depth(b) - depth(a))
    .map(([key, folder]) => ({ folder, kind: KIND_OF_FOLDER[key] }));
}

/** The kind of note a configured folder holds (its own notes, not those of folders inside it). */
export function kindOfFolder(key: FolderKey): NoteKind {
  return KIND_OF_FOLDER[key];
}

export const TRASH_FOLDER = '.trash';

/** A note that is a symbolic link to a file outside the vault: the daemon does not write there. */
export class LinkOutsideVaultError extends MeetingAssistantError {
  constructor(
    readonly file: string,
    readonly target: string,
  ) {
    super(`${file} is a symbolic link to ${target}, outside the vault; it is not written`, true);
  }
}

/**
 * One vault: a filesystem, the configured layout, and the rules every module shares
 * (vault-relative paths, atomic writes, the trash). Everything below the daemon gets one
 * of these instead of reaching for `node:fs`.
 */
export class Vault {
  private readonly writeListeners: WriteListener[] = [];
  /** One writer per real file at a time, whoever writes through this vault. */
  readonly locks = new PathLocks();
  private realRoot: Promise<string> | undefined;
  private readonly lateListeners: ((event: LateWriteEvent) => void)[] = [];
  private readonly skipListeners: ((error: UnwritableFileError) => void)[] = [];
  /** Replaced files still watched for late writes, with their merges. */
  private readonly watching = new Set<Promise<void>>();
  /** Ended by settled({ now: true }): every watch takes one last look and ends. */
  private readonly finishWatching = new WatchEnd();
  private readonly lateWatchMs: number;
  private readonly clock: Clock;
  /** Per real file under watch: the lines each own write removed, in order (see restoreOwn). */
  private readonly ownRemovals = new Map<string, { removed: Set<string>[]; watchers: number }>();

  constructor(
    readonly fs: Fs,
    readonly layout: VaultLayout,
    options: VaultOptions = {},
  ) {
    this.lateWatchMs = options.lateWatchMs ?? LATE_WATCH_MS;
    this.clock = options.clock ?? systemClock;
  }

  get root(): string {
    return this.layout.root;
  }

  onWrite(listener: WriteListener): void {
    this.writeListeners.push(listener);
  }

  /** Learns of every edit skipped because the file must not be rewritten (logging; docs/design.md §4). */
  onSkippedWrite(listener: (error: UnwritableFileError) => void): void {
    this.skipListeners.push(listener);
  }

  /** An edit left out because its file must not be rewritten (not UTF-8, read-only): listeners log it. */
  skippedWrite(error: UnwritableFileError): void {
    for (const listener of this.skipListeners) listener(error);
  }

  /** Learns of every late write merged or kept (logging). */
  onLateWrite(listener: (event: LateWriteEvent) => void): void {
    this.lateListeners.push(listener);
  }

  /**
   * Resolves when no replaced file is watched any more and every late write is merged: at
   * most about LATE_WATCH_MS after the last write; with `now`, after one last look at each
   * replaced file (what has landed is merged, later writes are not waited for). The daemon's
   * stop takes `now`, so a Ctrl-C is not held up by a write its run made a moment before.
   */
  async settled(options: { now?: boolean } = {}): Promise<void> {
    if (options.now) this.finishWatching.end();
    while (this.watching.size > 0) await Promise.allSettled([...this.watching]);
  }

  /** Absolute path of a vault-relative one (or an absolute one, normalised). */
  abs(relOrAbs: string): string {
    return resolveIn(this.root, relOrAbs);
  }

  /** Vault-relative path with forward slashes. */
  rel(absPath: string): string {
    return relativeTo(this.root, absPath);
  }

  /** True when `absPath` is the folder itself or lies below it (lexically). */
  static isInside(folder: string, absPath: string): boolean {
    return isInside(folder, absPath);
  }

  /** True when `absPath` lies below the folder (the folder itself is not below it). */
  static isBelow(folder: string, absPath: string): boolean {
    return isBelow(folder, absPath);
  }

  /** The folders of `folders` that lie in no other one of them: watching or walking those covers all. */
  static outermost(folders: readonly string[]): string[] {
    const unique = [...new Set(folders.map((f) => path.resolve(f)))];
    return unique.filter((folder) => !unique.some((other) => Vault.isBelow(other, folder)));
  }

  contains(absPath: string): boolean {
    return isInside(this.root, resolveIn(this.root, absPath));
  }

  /** Which configured folder a Markdown file belongs to: the most specific one containing it (the glossary and dictionary belong to none). */
  kindOf(absPath: string): NoteKind | undefined {
    const file = resolveIn(this.root, absPath);
    // The glossary and dictionary live inside `Meetings` by default but are no meeting notes.
    if (file === this.layout.files.glossary || file === this.layout.files.dictionary) return undefined;
    for (const { folder, kind } of (this.folderKinds ??= deepestFirst(this.layout.folders))) if (file !== folder && isInside(folder, file)) return kind;
    return undefined;
  }

  /** The configured folders, most specific first (deepestFirst), made at the first kindOf. */
  private folderKinds: FolderKind[] | undefined;

  /** `Agent.MaxFileBytes`: every read of a note stops there (docs/design.md §4). */
  get maxFileBytes(): number {
    return this.layout.maxFileBytes ?? DEFAULT_MAX_FILE_BYTES;
  }

  /** A note's text; a FIFO, a device or a file over maxFileBytes is an error, a missing file ENOENT. */
  async read(absPath: string): Promise<string> {
    const text = await this.readIfExists(absPath);
    if (text === undefined) return readText(this.fs, absPath); // throws the ENOENT callers expect
    return text;
  }

  async readIfExists(absPath: string): Promise<string | undefined> {
    const file = path.resolve(this.root, absPath);
    return (await readRegularFile(this.fs, file, this.maxFileBytes, this.relName(file)))?.toString('utf8');
  }

  async exists(absPath: string): Promise<boolean> {
    return (await statIfExists(this.fs, absPath)) !== undefined;
  }

  /** Replaces the file with `content` (see `update`): for files the daemon owns. */
  async write(absPath: string, content: string): Promise<void> {
    await this.update(absPath, () => content);
  }

  /**
   * Applies `transform` to the file as it is on disk now, atomically, re-applying it when
   * another program writes the file meanwhile (vault/files/update.ts), one writer per file inside
   * the process. A symbolic link is written through to its target and stays a link; a target
   * outside the vault is written only for the configured glossary and dictionary. A replaced
   * file's content that could not be merged is kept in `.trash/`. Listeners learn of a change.
   */
  async update(absPath: string, transform: Transform): Promise<UpdateResult> {
    return this.updateAs(absPath, transform, true);
  }

  /** `own`: a change of the daemon's (not a merge of someone else's late write) — see restoreOwn. */
  private async updateAs(absPath: string, transform: Transform, own: boolean): Promise<UpdateResult> {
    const file = path.resolve(this.root, absPath);
    // A sync tool's conflict copy or temporary is never written (docs/design.md §4).
    if (isSyncToolFile(file)) throw new UnwritableFileError(this.relName(file), 'sync-file');
    const target = await writeTargetOf(this.fs, file);
    if (target !== file && !this.isLinkedWordList(file, target)) {
      this.realRoot ??= this.fs.realpath(this.root).catch(() => this.root);
      if (!Vault.isInside(await this.realRoot, target)) throw new LinkOutsideVaultError(this.contains(file) ? this.rel(file) : file, target);
    }
    const result = await this.locks
      .run(target, () => updateFile(this.fs, target, transform, this.hooksFor(file, target, own)))
      .catch((err: unknown) => {
        // Named as people know the file: vault-relative.
        throw err instanceof ConcurrentEditError && this.contains(file) ? new ConcurrentEditError(this.rel(file), err.attempts) : err;
      });
    if (result.changed && result.after !== undefined) {
      for (const listener of this.writeListeners) {
        listener(file, result.after);
        if (target !== file) listener(target, result.after);
      }
    }
    return result;
  }

  private hooksFor(file: string, target: string, own: boolean): UpdateHooks & UpdateOptions {
    return {
      maxBytes: this.maxFileBytes,
      name: this.relName(file),
      onOrphan: async (content) => {
        const trash = await this.keepInTrash(file, content);
        this.emitLate({ file: this.relName(file), outcome: 'kept-in-trash', trash: this.relName(trash) });
      },
      keepWatching: (replaced) => this.watchLate(file, target, replaced, own),
    };
  }

  /**
   * Watches a write in the background (late-writes.ts): a late write into the replaced file
   * is merged, a stale rewrite that dropped the write's own lines gets them back, both under
   * the file's lock; a late write that does not apply is kept in `.trash/`.
   */
  private watchLate(file: string, target: string, replaced: ReplacedFile, own: boolean): void {
    const relName = this.relName(file);
    const removals = this.ownRemovals.get(target) ?? { removed: [], watchers: 0 };
    this.ownRemovals.set(target, removals);
    // What a merge of a late write lacks is what a stale rewrite had not read: not removed on purpose.
    if (own && !replaced.merge) removals.removed.push(new Set(addedLines(replaced.next, replaced.base ?? '')));
    const since = removals.removed.length;
    removals.watchers++;
    const apply = async (transform: Transform, content?: string): Promise<void> => {
      try {
        const result = await this.updateAs(file, transform, false);
        if (result.changed) this.emitLate({ file: relName, outcome: content === undefined ? 'restored' : 'merged' });
      } catch (err) {
        if (!(err instanceof LateMergeError) || content === undefined) throw err;
        const trash = await this.keepInTrash(file, content);
        this.emitLate({ file: relName, outcome: 'kept-in-trash', trash: this.relName(trash) });
      }
    };
    const removedSince = () => new Set(removals.removed.slice(since).flatMap((lines) => [...lines]));
    const io = { readPath: () => this.readIfExists(target), apply, removedSince };
    const task = watchReplaced(replaced, io, this.lateWatchMs, this.finishWatching).catch((error: unknown) => this.emitLate({ file: relName, outcome: 'failed', error }));
    this.watching.add(task);
    void task.finally(() => {
      this.watching.delete(task);
      if (--removals.watchers === 0) this.ownRemovals.delete(target);
    });
  }

  private emitLate(event: LateWriteEvent): void {
    for (const listener of this.lateListeners) listener(event);
  }

  private relName(file: string): string {
    return this.contains(file) ? this.rel(file) : file;
  }

  /**
   * Replaces the file with `content`, first keeping what it held in `.trash/` when `keep` says
   * so (a summary never replaces a person's note without a copy). What a person wrote between
   * that copy and the replacement is kept too.
   */
  async replace(absPath: string, content: string, keep: (before: string) => boolean): Promise<void> {
    const file = path.resolve(this.root, absPath);
    const current = await this.readIfExists(file);
    if (current !== undefined && keep(current)) await this.copyToTrash(file);
    const result = await this.update(file, () => content);
    if (result.before !== undefined && result.before !== current && keep(result.before)) await this.keepInTrash(file, result.before);
  }

  /**
   * The configured dictionary and glossary may be symbolic links to a file out of the vault (the
   * speech recognizer's word list, docs/guarantees.md), read and written through; never to a
   * hidden place (`~/.config`, `~/.bashrc`, a `.meeting-assistant/`), where keys and the token live.
   */
  isLinkedWordList(file: string, real: string): boolean {
    const configured = file === this.layout.files.dictionary || file === this.layout.files.glossary;
    return configured && !real.split(path.sep).some((step) => step.startsWith('.'));
  }

  /** A copy of `content` in `.trash/` under the file's name: what a replaced file held. */
  async keepInTrash(absPath: string, content: string): Promise<string> {
    const target = await this.trashPathFor(absPath);
    await updateFile(this.fs, target, (current) => (current === undefined ? content : UNCHANGED));
    return target;
  }

  /** Where `absPath` goes in `.trash/`: its vault-relative path, made unique when taken. */
  private async trashPathFor(absPath: string): Promise<string> {
    const rel = this.contains(absPath) ? this.rel(absPath) : path.basename(absPath);
    const target = path.join(this.root, TRASH_FOLDER, rel);
    if (!(await this.exists(target))) return target;
    const ext = path.extname(target);
    const stem = target.slice(0, target.length - ext.length);
    const stamp = this.clock().toISOString().replace(/[:.]/g, '-');
    for (let i = 0; ; i++) {
      const candidate = `${stem} ${stamp}${i ? `-${i}` : ''}${ext}`;
      if (!(await this.exists(candidate))) return candidate;
    }
  }

  /** Copy a file into `.trash/` (before it is replaced); returns the trash path. */
  async copyToTrash(absPath: string): Promise<string> {
    const target = await this.trashPathFor(absPath);
    await this.fs.mkdir(path.dirname(target), { recursive: true });
    await this.fs.copyFile(absPath, target);
    return target;
  }

  /** Move a file into `.trash/` (Obsidian's convention: nothing is destroyed); returns the trash path. */
  async moveToTrash(absPath: string): Promise<string> {
    const target = await this.trashPathFor(absPath);
    await this.fs.mkdir(path.dirname(target), { recursive: true });
    await this.fs.rename(absPath, target);
    return target;
  }

  /** All Markdown files below `folder` (absolute paths, sorted), skipping dot-folders and sync tools' files (§4). */
  async listMarkdown(folder: string, options: { enter?: (abs: string) => boolean } = {}): Promise<string[]> {
    const out: string[] = [];
    const enter = options.enter;
    await walkFiles(this.fs, folder, { skip: (name) => name.startsWith('.') || isSyncToolFile(name), ...(enter && { enter: (_name, abs) => enter(abs) }) }, ({ abs, entry }) => {
      if (entry.isFile() && entry.name.toLowerCase().endsWith('.md')) out.push(abs);
    });
    return out.sort();
  }

  /**
   * The notes of one kind (kindOf), sorted: the Markdown files below its folder, without going
   * into the folders configured for other kinds. The meeting notes, so, without a walk of the
   * transcripts, summaries and context notes the default layout keeps inside `Meetings`.
   */
  async listNotesOf(key: FolderKey): Promise<string[]> {
    const root = this.layout.folders[key];
    const kind = KIND_OF_FOLDER[key];
    const others = new Set((Object.entries(this.layout.folders) as [FolderKey, string][]).filter(([k, f]) => KIND_OF_FOLDER[k] !== kind && f !== root).map(([, f]) => f));
    const files = await this.listMarkdown(root, { enter: (abs) => !others.has(abs) });
    return files.filter((file) => this.kindOf(file) === kind);
  }
}

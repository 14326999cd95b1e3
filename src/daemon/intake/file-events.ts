import { realpathSync } from 'node:fs';
import path from 'node:path';
import { watch, type FSWatcher } from 'chokidar';
import { type DirWatchOptions, DirectoryWatcher } from '../../vault/scan/dir-watch.js';
import type { Settings } from '../../config.js';
import type { Logger } from '../../log.js';
import { isEditorTempName } from '../../vault/files/sync-files.js';
import { Vault } from '../../vault/files/vault.js';
import { isCalendarFileName } from '../../calendar/read-files.js';

/**
 * Normalised file events for the daemon: only Markdown notes, only after they stopped
 * changing, at most one per file per quiet period. The watcher adapters live here (folder
 * watches, dir-watch.ts; chokidar when polling) so the trigger logic above them can be tested
 * with any event source.
 */

export type VaultEventType = 'add' | 'change' | 'unlink';

export interface VaultEvent {
  type: VaultEventType;
  /** Absolute path. */
  path: string;
}

export type VaultEventListener = (event: VaultEvent) => void;

/** Anything that produces vault events: the chokidar watcher in production, a fake in tests. */
export interface VaultEventSource {
  on(listener: VaultEventListener): void;
  /**
   * Every change below the watched folders (any file or folder, at once, not debounced): the
   * search and past-summary caches drop what changed, so they can trust the watcher.
   */
  onChange?(listener: (absPath: string) => void): void;
  /**
   * Told of each folder that could not be watched (the log says the first): changes below it
   * reach no listener, so the caches must not trust the watcher there; the catch-up scans still
   * see its notes.
   */
  onIncomplete?(listener: (absFolder: string) => void): void;
  /** Resolves once the initial tree is known, so a scan after it misses nothing. */
  readonly ready: Promise<void>;
  close(): Promise<void>;
}

/** Folders no note of ours lives in: Obsidian's trash and settings, git, our own state. */
const IGNORED_FOLDERS = new Set(['.trash', '.obsidian', '.git', '.meeting-assistant']);

/** True for paths the daemon never looks at (whether file or folder). */
export function isIgnoredPath(vaultRoot: string, absPath: string): boolean {
  const rel = path.relative(vaultRoot, absPath);
  if (rel === '') return false;
  const segments = rel.split(path.sep);
  // Outside the vault (a configured folder given as an absolute path elsewhere) only the
  // file's own name is judged.
  const judged = rel.startsWith('..') || path.isAbsolute(rel) ? [path.basename(absPath)] : segments;
  return judged.some((segment) => IGNORED_FOLDERS.has(segment) || isEditorTempName(segment));
}

export function isNoteEvent(vaultRoot: string, absPath: string): boolean {
  return absPath.toLowerCase().endsWith('.md') && !isIgnoredPath(vaultRoot, absPath);
}

export interface Debouncer {
  push(event: VaultEvent): void;
  /** Drop everything pending (on close). */
  cancel(): void;
  readonly pending: number;
}

export interface TimerApi {
  setTimeout(fn: () => void, ms: number): unknown;
  clearTimeout(handle: unknown): void;
}

/** The longest a file's event is held back by its quiet period, however often it changes (issue 43). */
export const DEBOUNCE_MAX_MS = 1000;

const realTimers: TimerApi = {
  setTimeout: (fn, ms) => setTimeout(fn, ms),
  clearTimeout: (handle) => clearTimeout(handle as NodeJS.Timeout),
};

/**
 * One event per file per quiet period of `ms`: a burst of saves becomes one event. The last
 * event's type wins, except that an add followed by changes stays an add. A file that never
 * goes quiet (rewritten every 100 ms) still has its event `maxMs` after the first one of the
 * burst (issue 43): the quiet moment may never come.
 */
export function createDebouncer(ms: number, emit: VaultEventListener, timers: TimerApi = realTimers, maxMs = Math.max(ms, DEBOUNCE_MAX_MS), now: () => number = Date.now): Debouncer {
  const pending = new Map<string, { type: VaultEventType; timer: unknown; first: number }>();
  return {
    push(event) {
      const previous = pending.get(event.path);
      if (previous) timers.clearTimeout(previous.timer);
      const type = previous?.type === 'add' && event.type === 'change' ? 'add' : event.type;
      const first = previous?.first ?? now();
      const timer = timers.setTimeout(() => {
        pending.delete(event.path);
        emit({ type, path: event.path });
      }, Math.max(0, Math.min(ms, first + maxMs - now())));
      pending.set(event.path, { type, timer, first });
    },
    cancel() {
      for (const { timer } of pending.values()) timers.clearTimeout(timer);
      pending.clear();
    },
    get pending() {
      return pending.size;
    },
  };
}

export interface WatchOptions {
  /** Folders to watch (absolute); default: transcripts and summaries. */
  folders?: string[];
  /** More folders watched only for `onChange` (the projects, for the search cache). */
  cacheFolders?: string[];
  /**
   * More folders watched only for `onChange` of their own `.ics` files (the calendar folders,
   * intake/calendar-changes.ts): nothing else in them, nothing below them is watched, so a
   * calendar kept in a large folder costs no watch per folder of it (§12). One inside another
   * watched folder is watched as that one is; the watched folders inside one stay watched whole.
   */
  icsFolders?: string[];
  /** How long a file must go without an event (or, polling, keep its size) before it counts as written. */
  stabilityMs?: number;
  /** Quiet period per file before its event is passed on. */
  debounceMs?: number;
  /** Polling instead of native events (network filesystems). */
  usePolling?: boolean;
  /** `fs.watch` for the folder watcher (tests inject its failures). */
  watchFolder?: DirWatchOptions['watch'];
}

/** Transcripts and summaries are where triggers come from; nothing else moves the daemon. */
export function triggerFolders(vault: Vault): string[] {
  const { Transcripts, Summaries } = vault.layout.folders;
  // A folder inside another watched one is already covered.
  return Vault.outermost([Transcripts, Summaries]);
}

/** The watcher behind a `VaultEventSource`: one watch per folder (dir-watch.ts), or chokidar polling. */
export function watchVault(
  vault: Vault,
  _settings: Settings,
  log: Logger,
  options: WatchOptions = {},
): VaultEventSource {
  const folders = options.folders ?? triggerFolders(vault);
  const deep = Vault.outermost([...folders, ...(options.cacheFolders ?? [])]);
  // A calendar folder inside a watched one is watched with it; one around a watched one is a root.
  const shallow = [...new Set((options.icsFolders ?? []).map((f) => path.resolve(f)))].filter((f) => !deep.some((d) => Vault.isInside(d, f)));
  const watched = Vault.outermost([...deep, ...shallow]);
  // Below a calendar folder only its own `.ics` files, the watched folders and the way to them
  // are looked at: a note or another folder there is no calendar's.
  const kept = (abs: string) =>
    deep.some((d) => Vault.isInside(d, abs)) || [...deep, ...shallow].some((f) => Vault.isInside(abs, f)) || shallow.some((f) => path.dirname(abs) === f && isCalendarFileName(path.basename(abs)));
  const outOfShallow = (abs: string) => shallow.some((f) => Vault.isBelow(f, abs)) && !kept(abs);
  const ignored = (abs: string) => isIgnoredPath(vault.root, abs) || outOfShallow(path.resolve(abs));
  const listeners: VaultEventListener[] = [];
  const changeListeners: ((absPath: string) => void)[] = [];
  const debouncer = createDebouncer(options.debounceMs ?? 50, (event) => {
    for (const listener of listeners) {
      try {
        listener(event);
      } catch (err) {
        log.error({ err, path: event.path }, 'file event handler failed');
      }
    }
  });
  const inTriggerFolder = (abs: string) => folders.some((f) => Vault.isInside(f, abs));
  const forward = (type: VaultEventType) => (p: string) => {
    const abs = path.resolve(p);
    if (isNoteEvent(vault.root, abs) && inTriggerFolder(abs)) debouncer.push({ type, path: abs });
  };
  const changed = (p: string) => {
    const abs = path.resolve(p);
    for (const listener of changeListeners) listener(abs);
  };
  const incomplete = { failed: [] as string[], listeners: [] as ((folder: string) => void)[] };
  const unwatched = (folder: string, err: unknown) => {
    if (incomplete.failed.length === 0) log.error({ err, folder: vault.rel(folder) }, unwatchedMessage(vault.rel(folder), err));
    incomplete.failed.push(folder);
    for (const listener of incomplete.listeners) listener(folder);
  };
  const backend = options.usePolling
    ? pollingWatch(watched, { stabilityMs: options.stabilityMs ?? 150, ignored, forward, changed, log })
    : new DirectoryWatcher({
        roots: watched,
        ignored,
        onRaw: changed,
        onSettled: (type, p) => forward(type)(p),
        quietMs: options.stabilityMs ?? 150,
        onError: (err) => log.warn({ err }, 'file watcher error'),
        onUnwatched: unwatched,
        // A project folder may be a link to a folder elsewhere in the vault; none leads out.
        follow: (real) => Vault.isInside(realRoot(vault), real),
        ...(options.watchFolder ? { watch: options.watchFolder } : {}),
      });
  const ready = backend.ready;
  log.debug({ folders: watched.map((f) => vault.rel(f)) }, 'watching folders');
  return {
    on(listener) {
      listeners.push(listener);
    },
    onChange(listener) {
      changeListeners.push(listener);
    },
    onIncomplete(listener) {
      incomplete.listeners.push(listener);
      for (const folder of incomplete.failed) listener(folder);
    },
    ready,
    async close() {
      debouncer.cancel();
      await backend.close();
    },
  };
}

function realRoot(vault: Vault): string {
  try {
    return realpathSync(vault.root);
  } catch {
    return vault.root;
  }
}

/** What the log says of the first folder that cannot be watched (later ones are not logged). */
function unwatchedMessage(folder: string, err: unknown): string {
  const code = (err as { code?: unknown }).code;
  const why =
    code === 'ENOSPC'
      ? "the system's limit of inotify watches is reached (raise fs.inotify.max_user_watches)"
      : code === 'EMFILE' || code === 'ENFILE'
        ? 'the process has no file descriptors left'
        : String((err as Error)?.message ?? err);
  return (
    `cannot watch the folder ${folder}: ${why}. Notes there are seen at the next catch-up, the search checks files on disk; ` +
    'further folders that cannot be watched are not logged'
  );
}

/**
 * chokidar with polling (network filesystems, where folder events do not arrive): it stats
 * every file on a timer, so it costs what the folder watcher saves, and a rewrite whose old
 * mtime was set back is seen only by the caches' version check and the next catch-up.
 */
function pollingWatch(
  watched: string[],
  on: { stabilityMs: number; ignored: (p: string) => boolean; forward: (type: VaultEventType) => (p: string) => void; changed: (p: string) => void; log: Logger },
): { ready: Promise<void>; close(): Promise<void> } {
  const watcher: FSWatcher = watch(watched, {
    ignoreInitial: true,
    persistent: true,
    usePolling: true,
    // Stats are only known for some events; directories must never be ignored by extension.
    ignored: (p: string) => on.ignored(p),
    awaitWriteFinish: { stabilityThreshold: on.stabilityMs, pollInterval: 50 },
    atomic: true,
  });
  watcher.on('all', (_event, p) => on.changed(p));
  watcher.on('add', on.forward('add'));
  watcher.on('change', on.forward('change'));
  watcher.on('unlink', on.forward('unlink'));
  watcher.on('error', (err) => on.log.warn({ err }, 'file watcher error'));
  const raw = passRawChanges(watcher, { quietMs: on.stabilityMs + 50, change: on.changed, note: on.forward('change') });
  return {
    ready: new Promise<void>((resolve) => watcher.once('ready', () => resolve())),
    close: async () => {
      raw.cancel();
      await watcher.close();
    },
  };
}

/**
 * chokidar drops a change whose mtime equals the one it saw before while the access time is
 * newer (its "only the access time changed" test), so a sync tool that writes new bytes and
 * sets the old mtime back (Obsidian Sync does) went unseen until catch-up (docs/design.md §4).
 * The kernel's own event says a file was written or its times set: every raw change is passed
 * on too, to the caches at once and as a note event after `quietMs` without another one (the
 * write-stability wait chokidar does for its own events). A duplicate of chokidar's event is
 * harmless: the debouncer merges them, and the trigger tracker compares content.
 */
function passRawChanges(
  watcher: FSWatcher,
  on: { quietMs: number; change: (abs: string) => void; note: (abs: string) => void },
  timers: TimerApi = realTimers,
): Debouncer {
  const quiet = createDebouncer(on.quietMs, (event) => on.note(event.path), timers);
  watcher.on('raw', (event: string, evPath: unknown, details: unknown) => {
    const watched = (details as { watchedPath?: unknown } | undefined)?.watchedPath;
    if (event !== 'change' || typeof evPath !== 'string' || typeof watched !== 'string') return;
    // A file's own watch names the file; a folder's names the child.
    const abs = path.resolve(path.basename(watched) === evPath ? watched : path.join(watched, evPath));
    on.change(abs);
    quiet.push({ type: 'change', path: abs });
  });
  return quiet;
}

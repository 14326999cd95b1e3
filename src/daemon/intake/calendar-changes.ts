import path from 'node:path';
import { isCalendarFileName } from '../../calendar/read-files.js';
import { calendarSources } from '../../calendar/sources.js';
import type { Settings } from '../../config.js';
import type { Logger } from '../../log.js';
import { realPlace } from '../../vault/files/real-place.js';
import { Vault } from '../../vault/files/vault.js';
import { createDebouncer, type Debouncer, isIgnoredPath, type TimerApi } from './file-events.js';

/**
 * A calendar file in the vault that changes is read at once (docs/design.md §12), not at the
 * calendar's next 30-second look: the vault watcher's raw changes (Intake.watch's `onRawChange`)
 * are passed here, and a change of a configured `Path` source (the file, or an `.ics` of the
 * folder) refreshes the calendar and then runs the notes-ahead look, so a moved or cancelled
 * event's note follows within a second. Debounced (a sync writes in bursts); one refresh and
 * look at a time, one more after it when a change came meanwhile. A source out of the vault,
 * in an ignored folder, or a file in the vault's root (its watch would be the whole vault's)
 * keeps the 30-second re-read, which stays for every source anyway.
 */

export interface CalendarChangesOptions {
  vault: Vault;
  settings: Settings['Calendar'];
  /** The calendar read again (Calendar.readAgain): a read that begins after the change. */
  readAgain(): Promise<void>;
  /** The notes-ahead look after it (NotesAhead.lookAgain); none when notes are not made ahead. */
  lookAgain?(): Promise<void>;
  log: Logger;
  /** Quiet period before the read; default QUIET_MS. */
  quietMs?: number;
  timers?: TimerApi;
}

/** Long enough for a sync's burst of writes (a folder of events, an atomic save's rename). */
export const QUIET_MS = 300;

type Watched = { kind: 'file'; file: string } | { kind: 'folder'; folder: string };

/**
 * The configured `Path` sources the vault watcher can see, each with the folder it is watched
 * through: a folder itself, a file through its folder (one not there yet is taken for a file
 * when its name ends in `.ics`).
 */
export async function watchedCalendarPaths(vault: Vault, settings: Settings['Calendar']): Promise<{ source: Watched; folder: string }[]> {
  const out: { source: Watched; folder: string }[] = [];
  for (const source of calendarSources(settings, vault.root)) {
    if (source.kind !== 'path' || !vault.contains(source.path) || isIgnoredPath(vault.root, source.path)) continue;
    const stat = await vault.fs.stat(source.path).catch(() => undefined);
    const isFolder = stat ? stat.isDirectory() : !source.path.toLowerCase().endsWith('.ics');
    const folder = isFolder ? source.path : path.dirname(source.path);
    // A file in the vault's root is not watched: its folder's watch would be the whole vault's.
    if (folder === vault.root || !vault.contains(folder)) continue;
    // A folder that is a link out of the vault (or into one of its hidden folders) is no folder
    // of the vault's: the watcher follows a root as given, so it would watch all below it there.
    if (!(await inVaultReally(vault, folder))) continue;
    out.push({ source: isFolder ? { kind: 'folder', folder } : { kind: 'file', file: source.path }, folder });
  }
  return out;
}

export class CalendarChanges {
  /** The folders the vault watcher is to watch for these changes (added to its roots). */
  readonly folders: string[];
  readonly #o: CalendarChangesOptions;
  readonly #watched: Watched[];
  readonly #debouncer: Debouncer;
  #running: Promise<void> | undefined;
  #again = false;
  #closed = false;

  private constructor(options: CalendarChangesOptions, watched: { source: Watched; folder: string }[]) {
    this.#o = options;
    this.#watched = watched.map((w) => w.source);
    this.folders = Vault.outermost(watched.map((w) => w.folder));
    this.#debouncer = createDebouncer(options.quietMs ?? QUIET_MS, () => this.#run(), options.timers);
  }

  /** The changes of the sources the watcher can see; undefined when it sees none (they keep the 30-second re-read). */
  static async of(options: CalendarChangesOptions): Promise<CalendarChanges | undefined> {
    const watched = await watchedCalendarPaths(options.vault, options.settings);
    return watched.length > 0 ? new CalendarChanges(options, watched) : undefined;
  }

  /** Whether `absPath` is (part of) a configured calendar source the watcher sees. */
  isCalendarPath(absPath: string): boolean {
    const abs = path.resolve(absPath);
    return this.#watched.some((w) =>
      w.kind === 'file' ? abs === w.file : abs === w.folder || (path.dirname(abs) === w.folder && isCalendarFileName(path.basename(abs))),
    );
  }

  /** Every raw change the vault watcher sees (any file): a calendar's is acted on after its quiet period. */
  changed(absPath: string): void {
    if (this.#closed || !this.isCalendarPath(absPath)) return;
    this.#debouncer.push({ type: 'change', path: path.resolve(absPath) });
  }

  /** Resolves when no refresh or look of a change is running (tests, the stop). */
  async idle(): Promise<void> {
    while (this.#running) await this.#running;
  }

  async close(): Promise<void> {
    this.#closed = true;
    this.#debouncer.cancel();
    await this.idle();
  }

  #run(): void {
    if (this.#closed) return;
    if (this.#running) {
      this.#again = true;
      return;
    }
    this.#running = (async () => {
      do {
        this.#again = false;
        try {
          await this.#o.readAgain();
          await this.#o.lookAgain?.();
        } catch (err) {
          this.#o.log.warn({ err }, 'a calendar file changed, but the calendar could not be read again; it is read again within 30 s');
        }
      } while (this.#again && !this.#closed);
    })().finally(() => (this.#running = undefined));
  }
}

/** Whether the folder, links followed, is in the vault out of its dot-folders (a dot-folder named as such is ignored before), or not there yet. */
async function inVaultReally(vault: Vault, folder: string): Promise<boolean> {
  const place = await realPlace(vault, folder).catch(() => undefined);
  return place !== undefined && (place.where === 'vault' || place.where === 'missing');
}

import path from 'node:path';
import { watch, type FSWatcher } from 'chokidar';
import { realpathSync } from 'node:fs';
import type { Clock } from '../../clock.js';
import type { Settings } from '../../config.js';
import { isExpectedError } from '../../errors.js';
import { ImportError } from '../../import/cues.js';
import { isRetryTicked, writeFailureNote } from '../../import/failure-note.js';
import { failureNoteOf, fileOfFailureNote, isFailureNote, isIgnoredInboxName, isInboxCandidate } from '../../import/inbox-rules.js';
import { importFile, type ImportOutcome, type ImportRequest, recoverImports, type Transcriber } from '../../import/importer.js';
import type { Logger } from '../../log.js';
import type { MeetingEventDeps } from '../../meeting-event/match-meeting.js';
import { commandTranscriber } from '../../import/transcribe.js';
import { statIfExists, walkFiles } from '../../vault/files/fs.js';
import { realPlace } from '../../vault/files/real-place.js';
import { STATE_FOLDER } from '../../vault/files/state.js';
import type { Vault } from '../../vault/files/vault.js';
import { ImportBoard } from './import-board.js';

/**
 * The daemon's inbox (docs/design.md §9): chokidar watches `Folders.Inbox`; a file that has
 * not changed for `Import.SettleSeconds` is imported, one import at a time; a file that
 * cannot be imported gets its error note, and ticking `retry` there imports it again. The
 * catch-up scan walks the inbox too, so files dropped while the daemon was down are found.
 */

export interface InboxOptions {
  vault: Vault;
  settings: Settings['Import'];
  log: Logger;
  clock: Clock;
  transcribe?: Transcriber;
  /** The calendar an import's meeting is matched in (docs/design.md §12); undefined: none. */
  calendar?: MeetingEventDeps;
  /** Default: chokidar on the inbox; tests may pass a fake. */
  watcher?: (folder: string) => InboxWatcher;
}

export interface InboxWatcher {
  on(listener: (type: 'add' | 'change' | 'unlink', absPath: string) => void): void;
  readonly ready: Promise<void>;
  close(): Promise<void>;
}

/** The inbox (docs/design.md §9), its recordings transcribed by Import.TranscribeCommand when one is set. */
export function createInbox(settings: Settings['Import'], o: Pick<InboxOptions, 'vault' | 'log' | 'clock'> & { calendar: MeetingEventDeps | undefined }): Inbox {
  const transcribe = commandTranscriber({ command: settings.TranscribeCommand, timeoutSeconds: settings.TranscribeTimeoutSeconds });
  return new Inbox({ vault: o.vault, settings, log: o.log, clock: o.clock, ...(transcribe ? { transcribe } : {}), ...(o.calendar && { calendar: o.calendar }) });
}

export class Inbox {
  readonly board: ImportBoard;
  readonly #o: InboxOptions;
  readonly #timers = new Map<string, NodeJS.Timeout>();
  /** Size and modification time each settling file had when last looked at. */
  readonly #seen = new Map<string, string>();
  /** Files queued or being imported: not queued twice. */
  readonly #busy = new Set<string>();
  #chain: Promise<unknown> = Promise.resolve();
  #watcher: InboxWatcher | undefined;
  #closed = false;
  readonly #abort = new AbortController();
  readonly #startedAt: number;

  constructor(options: InboxOptions) {
    this.#o = options;
    // Compared with modification times, which are real time whatever clock the daemon was given.
    this.#startedAt = Date.now();
    this.board = new ImportBoard(options.clock);
  }

  get folder(): string {
    return this.#o.vault.layout.folders.Inbox;
  }

  async watch(): Promise<void> {
    await this.#o.vault.fs.mkdir(this.folder, { recursive: true });
    const watcher = (this.#o.watcher ?? chokidarInbox)(this.folder);
    this.#watcher = watcher;
    watcher.on((type, file) => {
      if (this.#closed || type === 'unlink') return;
      const name = path.basename(file);
      if (isFailureNote(name)) void this.#onFailureNote(file);
      else if (isInboxCandidate(name)) this.#settle(file);
    });
    await watcher.ready;
  }

  /** At start: finish or undo imports a crash interrupted, before anything in the inbox is looked at. */
  async recover(): Promise<void> {
    const { vault, log, clock } = this.#o;
    const recovered = await recoverImports(vault, clock);
    await this.#dropStaleUploads();
    for (const meeting of recovered.completed) log.info({ meeting }, `import completed after a crash: ${meeting}`);
    if (recovered.dropped > 0) log.info({ dropped: recovered.dropped }, 'imports a crash interrupted before their commit were undone; their files are imported again');
    for (const { staging, error } of recovered.failed) {
      log.warn({ staging, err: error.message }, `an import a crash interrupted could not be completed (${error.message}); its notes stay in ${staging}, tried again at the next start`);
    }
  }

  /** Uploads a crash cut off (POST /api/import): older than this daemon, so no request of its own is writing them. */
  async #dropStaleUploads(): Promise<void> {
    const { fs, root } = this.#o.vault;
    const uploads = path.join(root, STATE_FOLDER, 'imports', 'uploads');
    const entries = await fs.readdir(uploads, { withFileTypes: true }).catch(() => []);
    for (const entry of entries) {
      const dir = path.join(uploads, entry.name);
      const stat = await statIfExists(fs, dir);
      if (stat && stat.mtimeMs < this.#startedAt) await fs.rm(dir, { recursive: true, force: true });
    }
  }

  /** The catch-up scan's part (docs/design.md §2): at start, recovery first. */
  async catchUp(startup: boolean): Promise<void> {
    if (this.#closed) return;
    if (startup) {
      // In the import queue: recovery must never take an import of this process under way for a crashed one.
      const recovery = this.#chain.then(() => this.recover());
      this.#chain = recovery.catch(() => undefined);
      await recovery;
    }
    await this.scan();
  }

  /** Catch-up: every file in the inbox not yet imported nor waiting for a person (an error note without `retry`). */
  async scan(): Promise<void> {
    const { vault } = this.#o;
    const files: string[] = [];
    await walkFiles(vault.fs, this.folder, { skip: isIgnoredInboxName }, ({ abs, entry }) => {
      // A link is looked at as the watcher sees it, never followed here: the import refuses
      // one that leaves the vault, with its note (docs/design.md §9 "Limits").
      if (entry.isFile() || entry.isSymbolicLink()) files.push(abs);
    });
    const fileOfNote = new Map(files.map((file) => [failureNoteOf(file), file]));
    for (const file of files) {
      const name = path.basename(file);
      if (isFailureNote(name)) {
        const of = fileOfNote.get(file);
        if (of !== undefined) await this.#onFailureNote(file, of);
        continue;
      }
      if (!isInboxCandidate(name) || this.#timers.has(file) || this.#busy.has(file)) continue;
      if (await this.#waitsForPerson(file)) continue;
      this.#settle(file);
    }
  }

  /** An error note without `retry` ticked, written after the file last changed: the person's turn. */
  async #waitsForPerson(file: string): Promise<boolean> {
    const { vault } = this.#o;
    const note = failureNoteOf(file);
    const [noteStat, fileStat] = await Promise.all([statIfExists(vault.fs, note), statIfExists(vault.fs, file)]);
    if (!noteStat || !fileStat) return false;
    if (fileStat.mtimeMs > noteStat.mtimeMs) return false;
    return !isRetryTicked(await vault.readIfExists(note));
  }

  /**
   * A ticked `retry`: the file is imported again once it has settled, as a new file is (a
   * person may tick it while the fixed file is still being copied in; docs/design.md §9).
   */
  async #onFailureNote(note: string, known?: string): Promise<void> {
    const file = known ?? (await this.#fileOfNote(note));
    if (file === undefined || this.#busy.has(file) || this.#timers.has(file) || !isRetryTicked(await this.#o.vault.readIfExists(note))) return;
    this.#o.log.info({ file: this.#o.vault.rel(file) }, `import retry requested: ${this.#o.vault.rel(file)}`);
    this.#settle(file);
  }

  /** The file an error note is about: its name without the suffix, or, for a shortened note, the file beside it whose note it is. */
  async #fileOfNote(note: string): Promise<string | undefined> {
    const plain = fileOfFailureNote(note);
    if (failureNoteOf(plain) === note) return plain;
    const entries = await this.#o.vault.fs.readdir(path.dirname(note), { withFileTypes: true }).catch(() => []);
    return entries.map((entry) => path.join(path.dirname(note), entry.name)).find((file) => file !== note && failureNoteOf(file) === note);
  }

  /** The status page's Retry button: import the file of this error note (or this inbox file) again. */
  async retry(relPath: string): Promise<void> {
    const { vault } = this.#o;
    const abs = vault.abs(relPath);
    if (!vault.contains(abs) || path.relative(this.folder, abs).startsWith('..')) throw new ImportError(`${relPath} is not in the inbox`);
    const file = isFailureNote(path.basename(abs)) ? ((await this.#fileOfNote(abs)) ?? fileOfFailureNote(abs)) : abs;
    if (!vault.contains(file) || path.relative(this.folder, file).startsWith('..')) throw new ImportError(`${relPath} is not in the inbox`);
    if (!(await vault.exists(file))) throw new ImportError(`${vault.rel(file)} is no longer in the inbox`);
    // Its error note is written beside it: never through a linked folder out of the vault.
    if ((await realPlace(vault, path.dirname(file))).where !== 'vault') throw new ImportError(`${vault.rel(file)} lies in a folder linked out of the vault; it is not imported`);
    this.#settle(file);
  }

  /** Waits until `file` has not changed for Import.SettleSeconds, then queues it. */
  #settle(file: string): void {
    if (this.#busy.has(file)) return;
    clearTimeout(this.#timers.get(file));
    const rel = this.#o.vault.rel(file);
    const look = async () => {
      this.#timers.delete(file);
      if (this.#closed) return;
      const stat = await statIfExists(this.#o.vault.fs, file).catch(() => undefined);
      if (!stat?.isFile()) {
        this.#seen.delete(file);
        this.board.drop(rel);
        return;
      }
      const signature = `${stat.size}:${stat.mtimeMs}`;
      const settled = this.#seen.get(file) === signature;
      this.#seen.set(file, signature);
      if (!settled) {
        this.board.set(rel, 'settling');
        this.#timers.set(file, setTimeout(() => void look(), this.#o.settings.SettleSeconds * 1000));
        return;
      }
      this.#seen.delete(file);
      void this.#enqueue(file).catch(() => undefined);
    };
    this.#seen.delete(file);
    void look();
  }

  /** One import after the other: a long transcription does not run beside another import. */
  #enqueue(file: string): Promise<ImportOutcome | undefined> {
    const rel = this.#o.vault.rel(file);
    this.#busy.add(file);
    this.board.set(rel, 'waiting');
    const run = this.#chain.then(() => this.#importInbox(file));
    this.#chain = run.catch(() => undefined);
    return run.finally(() => this.#busy.delete(file));
  }

  async #importInbox(file: string): Promise<ImportOutcome | undefined> {
    if (this.#closed) return undefined;
    const { vault } = this.#o;
    if (!(await vault.exists(file))) {
      this.board.drop(vault.rel(file));
      return undefined;
    }
    return this.#run(vault.rel(file), { file, keep: 'move' }, true);
  }

  /**
   * An upload (`POST /api/import`) or the command line's file, through the same queue; the
   * error is thrown to the caller instead of written beside the file.
   */
  importNow(label: string, request: ImportRequest): Promise<ImportOutcome> {
    this.board.set(label, 'waiting');
    const run = this.#chain.then(() => this.#run(label, request, false));
    this.#chain = run.catch(() => undefined);
    return run as Promise<ImportOutcome>;
  }

  async #run(label: string, request: ImportRequest, noteOnFailure: boolean): Promise<ImportOutcome | undefined> {
    const { vault, log, clock } = this.#o;
    const started = performance.now();
    try {
      const outcome = await importFile(
        { vault, clock, transcribe: this.#o.transcribe, signal: this.#abort.signal, onStage: (stage) => this.board.set(label, stage), ...(this.#o.calendar ? { calendar: this.#o.calendar } : {}) },
        request,
      );
      const ms = Math.round(performance.now() - started);
      if (outcome.kind === 'imported') {
        this.board.set(label, 'imported', { meeting: outcome.meeting });
        log.info({ file: label, meeting: outcome.meeting, source: outcome.source, durationMs: ms }, `imported ${label}: ${outcome.meeting}`);
        // Never a silent loss (docs/design.md §9, Limits): what the file held that could not be read.
        if (outcome.unread.length > 0) log.warn({ file: label, meeting: outcome.meeting, unread: outcome.unread }, `${label}: ${outcome.unread.join('; ')}`);
      } else {
        this.board.set(label, 'duplicate', { meeting: outcome.meeting });
        log.info({ file: label, meeting: outcome.meeting, source: outcome.source }, `${label} was imported before as ${outcome.meeting}: kept in ${outcome.source}, not imported again`);
      }
      return outcome;
    } catch (err) {
      const failure =
        err instanceof ImportError
          ? { message: err.message, hint: err.hint, ...(err.stderr ? { stderr: err.stderr } : {}) }
          : { message: `the import failed: ${(err as Error).message}`, hint: 'see the daemon log; tick retry once the cause is fixed' };
      if (isExpectedError(err)) log.warn({ file: label, err: failure.message }, `import failed: ${label}: ${failure.message}`);
      else log.error({ file: label, err }, `import failed: ${label}`);
      let failureNote: string | undefined;
      // The note goes beside the file, so never into a folder that is a link out of the vault
      // (an inbox linked to ~/Downloads): the log and the status page say it instead.
      const noteFolder = noteOnFailure && !this.#closed ? await realPlace(vault, path.dirname(request.file)).catch(() => undefined) : undefined;
      if (noteFolder?.where === 'vault') {
        failureNote = vault.rel(await writeFailureNote(vault, request.file, failure, clock).catch((e: unknown) => {
          log.error({ err: e, file: label }, 'could not write the import error note');
          return request.file;
        }));
      } else if (noteFolder) {
        log.warn({ file: label }, `no error note for ${label}: its folder is a link out of the vault`);
      }
      this.board.set(label, 'failed', { error: failure.message, ...(failureNote ? { failureNote } : {}) });
      if (noteOnFailure) return undefined;
      throw err;
    }
  }

  /** Resolves when the imports queued so far are done. */
  async settled(): Promise<void> {
    await this.#chain;
  }

  async close(): Promise<void> {
    this.#closed = true;
    this.#abort.abort();
    for (const timer of this.#timers.values()) clearTimeout(timer);
    this.#timers.clear();
    await this.#watcher?.close();
  }
}

function chokidarInbox(folder: string): InboxWatcher {
  const listeners: ((type: 'add' | 'change' | 'unlink', absPath: string) => void)[] = [];
  // The inbox folder itself may be a link (`Meetings/Inbox` → `Drop/`): its real folder is
  // watched, as it was while links were followed, and what is found there reported under the
  // inbox's own path. A link out of the vault is refused by the import, file by file.
  const real = realpathOr(folder);
  const watcher: FSWatcher = watch(real, {
    ignoreInitial: true,
    // A link is reported, not followed: a linked folder out of the vault is never walked, and
    // the import refuses a linked file that leaves it (docs/design.md §9 "Limits").
    followSymlinks: false,
    ignored: (p: string) => p !== real && path.basename(p).startsWith('.'),
  });
  const inInbox = (p: string) => path.join(folder, path.relative(real, path.resolve(p)));
  for (const type of ['add', 'change', 'unlink'] as const) watcher.on(type, (p: string) => listeners.forEach((l) => l(type, inInbox(p))));
  const ready = new Promise<void>((resolve) => watcher.once('ready', () => resolve()));
  return { on: (l) => void listeners.push(l), ready, close: () => watcher.close() };
}

function realpathOr(folder: string): string {
  try {
    return realpathSync(folder);
  } catch {
    return folder;
  }
}

import { randomBytes } from 'node:crypto';
import path from 'node:path';
import type { Clock } from '../clock.js';
import { processIsAlive } from '../instance/liveness.js';
import { cutToBytes, type FileHandleLike, isNotFound, statIfExists, writeFileAtomic } from '../vault/files/fs.js';
import { fileNameOfTitle, MADE_NAME_MAX_BYTES } from '../vault/format/note-names.js';
import { isOpenedAt, realPlace } from '../vault/files/real-place.js';
import { FileTooLargeError, NotRegularFileError, openRegular, readAllBounded } from '../vault/files/regular-file.js';
import { STATE_FOLDER } from '../vault/files/state.js';
import { Vault } from '../vault/files/vault.js';
import { ImportError, type SourceFile } from './cues.js';
import { clearFailureNote } from './failure-note.js';
import { readMeetingOffThread } from './off-thread.js';
import type { ReadMeeting } from './read-meeting.js';
import { assertDocxWithin } from './docx-limits.js';
import { extensionOf, isRecording } from './formats/index.js';
import { contentHash, findImported, handleHash, recordImported } from './ledger.js';
import { type MeetingPlan, planMeeting } from './meeting-notes.js';
import { linkJoined } from '../meeting-event/join-meeting.js';
import type { MeetingEventDeps } from '../meeting-event/match-meeting.js';

/**
 * One import (docs/design.md §9) as a small transaction, so that a crash at any point leaves
 * either the file where it was or a complete meeting, never half of one:
 *
 * 1. the three notes are written complete into a staging folder of the state folder, then
 *    the plan naming them (`plan.json`);
 * 2. the original is moved (or copied) to `Folders.Sources`: the commit point;
 * 3. the notes are renamed into place, the transcript (`state: finished`, the trigger) last;
 * 4. the content hash is recorded, an old error note goes to `.trash/`, the staging folder goes.
 *
 * recoverImports() finishes what a crash interrupted: a plan whose original reached
 * `Folders.Sources` is completed, any other staging folder is dropped (the file is still in
 * the inbox and is imported again). The original is never changed.
 */

export type Transcriber = (recording: string, signal?: AbortSignal) => Promise<SourceFile>;

export interface ImportDeps {
  vault: Vault;
  clock: Clock;
  /** Turns a recording into a transcript file; undefined: recordings cannot be imported. */
  transcribe?: Transcriber;
  /** Told when a recording starts being transcribed (the status page shows it). */
  onStage?: (stage: 'transcribing' | 'importing') => void;
  signal?: AbortSignal;
  /** The calendar the meeting's event is found in (docs/design.md §12); undefined: none configured. */
  calendar?: MeetingEventDeps;
  /** Reads the transcript file; default in a worker thread (off-thread.ts), readMeeting here to stay in this thread. */
  readMeeting?: (file: SourceFile, signal?: AbortSignal) => Promise<ReadMeeting>;
}

export interface ImportRequest {
  /** Absolute path of the file to import. */
  file: string;
  /** `move` (the inbox, an upload) or `copy` (the command line: the original stays where it is). */
  keep: 'move' | 'copy';
  /** The name the title and start come from; default the file's own. */
  name?: string;
  title?: string;
  projects?: string[];
  start?: Date;
}

export type ImportOutcome =
  | {
      kind: 'imported';
      meeting: string;
      transcript: string;
      context: string;
      summary: string;
      source: string;
      /** What the file held that could not be taken as it was (ReadReport): the caller logs it; the context note says it. */
      unread: string[];
    }
  | { kind: 'duplicate'; meeting: string; source: string };

interface Plan {
  pid: number;
  hash: string;
  original: string;
  keep: 'move' | 'copy';
  source: string;
  meeting: string;
  /** In placing order: staged name (in the staging folder) → final absolute path. */
  notes: { staged: string; final: string }[];
  summary: string;
  /** The event's meeting note this import joins (§12): its links are written at completion, a recovered one's too. */
  join?: MeetingPlan['join'];
}

const STAGING = 'imports';

function stagingRoot(vault: Vault): string {
  return path.join(vault.root, STATE_FOLDER, STAGING);
}

/** Imports one file; an ImportError says why it could not be (the caller writes the error note). */
export async function importFile(deps: ImportDeps, request: ImportRequest): Promise<ImportOutcome> {
  const { vault } = deps;
  const name = request.name ?? path.basename(request.file);
  const confined = Vault.isInside(vault.layout.folders.Inbox, request.file);
  if (confined) await assertReallyInVault(vault, request.file, name);
  const stat = await vault.fs.stat(request.file).catch((err: unknown) => {
    throw isNotFound(err) ? new ImportError(`${name} is gone: nothing to import`) : err;
  });
  if (!stat.isFile()) throw new ImportError(`${name} is not a file`);
  if (stat.size === 0) throw new ImportError(`${name} is empty`, 'wait until the file is complete, or replace it with the full export');
  // A recording is only hashed (in chunks) and handed to the transcriber, never read whole.
  const recording = isRecording(name);
  const { bytes, hash } = await readSourceFile(vault, request.file, name, { recording, confined });
  const earlier = await findImported(vault, hash);
  if (earlier) return keepDuplicate(deps, request, name, earlier.meeting);

  let transcript: SourceFile;
  if (bytes) transcript = { name, bytes };
  else {
    if (!deps.transcribe) throw noTranscriber(name);
    deps.onStage?.('transcribing');
    transcript = await deps.transcribe(request.file, deps.signal);
    assertWithinLimit(transcript.name, transcript.bytes.length, vault.maxFileBytes);
  }
  deps.onStage?.('importing');
  if (extensionOf(transcript.name) === '.docx') await assertDocxWithin(transcript, vault.maxFileBytes);
  // Parsed in a thread of its own: a big file would hold the daemon's event loop for seconds.
  const read = await (deps.readMeeting ?? readMeetingOffThread)(transcript, deps.signal);
  const projects = request.projects ?? (await projectOfInboxFolder(vault, request.file));
  const source = await freeSourcePath(vault, name);
  const { unread } = read;
  const plan = await planMeeting(vault, read, { name, mtimeMs: stat.mtimeMs, title: request.title, start: request.start, projects, sourcePath: source }, deps.calendar);
  // The run reads the transcript note through the same limit: a larger one could never be summarized.
  const transcriptBytes = typeof plan.transcript.content === 'string' ? Buffer.byteLength(plan.transcript.content) : plan.transcript.content.byteLength;
  if (transcriptBytes > vault.maxFileBytes) {
    throw new ImportError(`${name} makes a transcript note of ${transcriptBytes} bytes, more than Agent.MaxFileBytes (${vault.maxFileBytes} bytes), which no run could read; it is not imported`, TOO_LARGE_HINT);
  }
  const staged = await stage(vault, {
    pid: process.pid,
    hash,
    original: request.file,
    keep: request.keep,
    source,
    meeting: plan.meeting.path,
    summary: plan.summaryPath,
    // Joining the event's meeting note (§12): only the notes it lacks are placed.
    notes: [plan.join?.contextExists ? undefined : plan.context, plan.join ? undefined : plan.meeting, plan.transcript]
      .map((note, i) => note && { staged: `${i}.md`, final: note.path, content: note.content })
      .filter((note) => note !== undefined),
    ...(plan.join && { join: plan.join }),
  });
  await commitOriginal(vault, request.file, source, request.keep);
  await complete(vault, staged.dir, staged.plan, deps.clock);
  return {
    kind: 'imported',
    meeting: vault.rel(plan.meeting.path),
    transcript: vault.rel(plan.transcript.path),
    context: vault.rel(plan.context.path),
    summary: vault.rel(plan.summaryPath),
    source: vault.rel(source),
    unread,
  };
}

const TOO_LARGE_HINT = 'split the transcript into parts and import each, or raise Agent.MaxFileBytes in the configuration, restart the daemon and tick retry';

function assertWithinLimit(name: string, size: number, maxBytes: number): void {
  if (size > maxBytes) throw new ImportError(`${name} is ${size} bytes, more than Agent.MaxFileBytes (${maxBytes} bytes); it is not read`, TOO_LARGE_HINT);
}

/**
 * The file's hash, and for a transcript its bytes, read only when its size is within
 * Agent.MaxFileBytes (checked before, and counted during the read, so a file that grows
 * meanwhile stops there); opened non-blocking, so a FIFO swapped in fails at once instead of
 * stalling the import queue. A file of the inbox is read only once the file opened is known
 * to be the one its real place in the vault names: a link turned elsewhere between the
 * check and the open is refused, never read (docs/design.md §9 "Limits").
 */
async function readSourceFile(vault: Vault, file: string, name: string, o: { recording: boolean; confined: boolean }): Promise<{ bytes?: Buffer; hash: string }> {
  let handle;
  try {
    handle = await openRegular(vault.fs, file, name);
  } catch (err) {
    if (err instanceof NotRegularFileError) throw new ImportError(`${name} is ${err.kind}, not a file`);
    throw err;
  }
  if (!handle) throw new ImportError(`${name} is gone: nothing to import`);
  try {
    if (o.confined) await assertOpenedInVault(vault, handle, file, name);
    if (o.recording) return { hash: await handleHash(handle) };
    const size = (await handle.stat()).size;
    assertWithinLimit(name, size, vault.maxFileBytes);
    const bytes = await readAllBounded(handle, vault.maxFileBytes, name, size).catch((err: unknown) => {
      throw err instanceof FileTooLargeError ? new ImportError(`${name} grew past Agent.MaxFileBytes (${vault.maxFileBytes} bytes) while it was read; it is not read`, TOO_LARGE_HINT) : err;
    });
    return { bytes, hash: await contentHash(bytes) };
  } finally {
    await handle.close().catch(() => undefined);
  }
}

/** The file opened must be the one the real place of `file` names, in the vault, out of its dot-folders. */
async function assertOpenedInVault(vault: Vault, handle: FileHandleLike, file: string, name: string): Promise<void> {
  const place = await isOpenedAt(vault, handle, file);
  if (place.where === 'outside' || place.where === 'dot-folder') throw linkLeaves(name, place.where, place.real);
  if (!place.same) throw new ImportError(`${name} changed while it was being opened (a link turned to another file); it is not read`, 'tick retry once the file stays as it is');
}

/**
 * A file in the inbox must really be in the vault (docs/design.md §9 "Limits"): through a
 * symbolic link, `/etc/passwd` or `.meeting-assistant/token` would become a note, and a linked
 * folder would have the daemon move someone else's file into `Folders.Sources`.
 */
async function assertReallyInVault(vault: Vault, file: string, name: string): Promise<void> {
  const place = await realPlace(vault, file);
  if (place.where === 'outside' || place.where === 'dot-folder') throw linkLeaves(name, place.where, place.real);
}

function linkLeaves(name: string, where: 'outside' | 'dot-folder', real: string): ImportError {
  const whither = where === 'outside' ? 'outside the vault' : "into one of the vault's dot-folders (.meeting-assistant, .obsidian …)";
  return new ImportError(
    `${name} is reached through a symbolic link that leads ${whither} (${real}); nothing is read or moved through such a link`,
    'copy the file itself into the inbox instead of linking to it, and remove the link',
  );
}

function noTranscriber(name: string): ImportError {
  return new ImportError(
    `${name} is a recording, and no transcriber is configured to turn it into a transcript`,
    'set Import.TranscribeCommand in the configuration to the command of a transcriber, for whisper.cpp ' +
      '["whisper-cli", "-m", "/path/ggml-base.en.bin", "-f", "{input}", "-oj", "-of", "{output_base}"], for WhisperX ' +
      '["whisperx", "{input}", "--output_dir", "{output_dir}", "--output_format", "json"] (docs/importing.md), restart the daemon',
  );
}

/** `Meetings/Inbox/Alpha/call.vtt` binds `Alpha` when `Projects/Alpha` exists. */
async function projectOfInboxFolder(vault: Vault, file: string): Promise<string[]> {
  const rel = path.relative(vault.layout.folders.Inbox, file);
  if (rel.startsWith('..') || path.isAbsolute(rel)) return [];
  const first = rel.split(path.sep)[0]!;
  if (first === rel) return [];
  const folder = await statIfExists(vault.fs, path.join(vault.layout.folders.Projects, first));
  return folder?.isDirectory() ? [first] : [];
}

/**
 * `Folders.Sources/<name>`, else `<stem> (2)<ext>`, …: an original never replaces another.
 * The name loses the characters a wikilink cannot carry (`#`, `|`, `[`, `]`, `^`, `:` …, as
 * note names do): the meeting's `source` link must reach the file. Its bytes are untouched.
 */
async function freeSourcePath(vault: Vault, name: string): Promise<string> {
  const ext = path.extname(name);
  // Shortened like a note's name (docs/design.md §9 "Limits"): the start of the name is kept.
  const stem = cutToBytes(fileNameOfTitle(path.basename(name, ext)), MADE_NAME_MAX_BYTES - Buffer.byteLength(ext)) || 'import';
  for (let n = 1; ; n++) {
    const candidate = path.join(vault.layout.folders.Sources, `${stem}${n > 1 ? ` (${n})` : ''}${ext}`);
    if (!(await vault.exists(candidate))) return candidate;
  }
}

async function keepDuplicate(deps: ImportDeps, request: ImportRequest, name: string, meeting: string): Promise<ImportOutcome> {
  const source = await freeSourcePath(deps.vault, name);
  await commitOriginal(deps.vault, request.file, source, request.keep);
  if (request.keep === 'move') await clearFailureNote(deps.vault, request.file);
  return { kind: 'duplicate', meeting, source: deps.vault.rel(source) };
}

async function stage(vault: Vault, plan: Plan & { notes: { staged: string; final: string; content: string | Uint8Array }[] }): Promise<{ dir: string; plan: Plan }> {
  const dir = path.join(stagingRoot(vault), `${Date.now().toString(36)}-${randomBytes(4).toString('hex')}`);
  await vault.fs.mkdir(dir, { recursive: true });
  for (const note of plan.notes) await writeFileAtomic(vault.fs, path.join(dir, note.staged), note.content);
  const kept: Plan = { ...plan, notes: plan.notes.map(({ staged, final }) => ({ staged, final })) };
  // Written last: a staging folder without its plan is one a crash interrupted before the commit.
  await writeFileAtomic(vault.fs, path.join(dir, 'plan.json'), JSON.stringify(kept, null, 1));
  return { dir, plan: kept };
}

/** The commit point: after it, the import is completed even across a crash. */
async function commitOriginal(vault: Vault, file: string, source: string, keep: 'move' | 'copy'): Promise<void> {
  await vault.fs.mkdir(path.dirname(source), { recursive: true });
  if (keep === 'move' && (await relinkOriginal(vault, file, source))) return;
  if (keep === 'move') {
    try {
      await vault.fs.rename(file, source);
      return;
    } catch (err) {
      // Folders.Sources on another file system: copy, commit the copy, then remove the original.
      if ((err as { code?: unknown }).code !== 'EXDEV') throw err;
    }
  }
  const tmp = path.join(path.dirname(source), `.${path.basename(source)}.${process.pid}-${randomBytes(4).toString('hex')}.ma-tmp`);
  await vault.fs.copyFile(file, tmp);
  await vault.fs.rename(tmp, source);
  if (keep === 'move') await vault.fs.unlink(file);
}

/**
 * A link the inbox moves must still name its file from `Folders.Sources`: a relative one in an
 * inbox subfolder (`Alpha/call.srt` → `../../../Drafts/call.srt`) renamed as it is would climb
 * out of the vault from there. So it is made again at `source`, relative from there to the
 * file it names in the vault, and the inbox's link removed.
 */
async function relinkOriginal(vault: Vault, file: string, source: string): Promise<boolean> {
  const { fs } = vault;
  if (!fs.symlink || !(await fs.lstat(file)).isSymbolicLink()) return false;
  const place = await realPlace(vault, file);
  if (place.where !== 'vault') return false;
  const tmp = path.join(path.dirname(source), `.${path.basename(source)}.${process.pid}-${randomBytes(4).toString('hex')}.ma-tmp`);
  await fs.symlink(path.relative(path.dirname(source), place.real), tmp);
  await fs.rename(tmp, source);
  await fs.unlink(file);
  return true;
}

/** Steps 3 and 4: idempotent, so recovery can run them again after a crash in the middle. */
async function complete(vault: Vault, dir: string, plan: Plan, clock: Clock): Promise<void> {
  for (const note of plan.notes) {
    const staged = path.join(dir, note.staged);
    if (!(await vault.exists(staged))) continue;
    await vault.fs.mkdir(path.dirname(note.final), { recursive: true });
    if (await vault.exists(note.final)) {
      // Taken meanwhile by someone else's note: ours goes beside it rather than over it.
      throw new ImportError(`${vault.rel(note.final)} appeared while the import ran; the import's notes are kept in ${vault.rel(dir)}`);
    }
    await vault.fs.rename(staged, note.final);
  }
  // Before the import is recorded: a crash between the notes and the links is completed at the next start.
  if (plan.join) await linkJoined(vault, plan.join, { end_time: plan.join.endTime, source: plan.join.source });
  await recordImported(vault, plan.hash, { meeting: vault.rel(plan.meeting), source: vault.rel(plan.source), importedAt: clock().toISOString() });
  if (plan.keep === 'move') await clearFailureNote(vault, plan.original);
  await vault.fs.rm(dir, { recursive: true, force: true });
}

/** Another live process's plan (this process's own plans are from before a crash it recovered from). */
function isAlive(pid: number): boolean {
  return pid !== process.pid && processIsAlive(pid);
}

export interface Recovered {
  completed: string[];
  dropped: number;
  /** Staging folders that could be neither completed nor dropped, with why: left for the next start. */
  failed: { staging: string; error: Error }[];
}

/**
 * After a crash: completes each import whose original was committed, drops the staging of
 * the others (their file is still in place and is imported again). Imports of another live
 * process (a command-line import) are left to it while their plan is recent.
 */
/**
 * From staged plan to placed notes takes a few renames: a plan older than this is no live
 * import's, whoever has its pid now (after a reboot, a pid is soon another program's).
 */
const LIVE_PLAN_MS = 10 * 60 * 1000;

export async function recoverImports(vault: Vault, clock: Clock, now = Date.now()): Promise<Recovered> {
  const root = stagingRoot(vault);
  const recovered: Recovered = { completed: [], dropped: 0, failed: [] };
  let entries;
  try {
    entries = await vault.fs.readdir(root, { withFileTypes: true });
  } catch (err) {
    if (isNotFound(err)) return recovered;
    throw err;
  }
  for (const entry of entries) {
    if (!entry.isDirectory() || entry.name === 'uploads') continue;
    const dir = path.join(root, entry.name);
    const text = await vault.readIfExists(path.join(dir, 'plan.json'));
    let plan: Plan | undefined;
    try {
      plan = text === undefined ? undefined : (JSON.parse(text) as Plan);
    } catch {
      plan = undefined;
    }
    if (plan && isAlive(plan.pid) && now - ((await statIfExists(vault.fs, path.join(dir, 'plan.json')))?.mtimeMs ?? 0) < LIVE_PLAN_MS) continue;
    // One staging folder that cannot be recovered (a name the file system refuses, a note
    // that appeared meanwhile) must not stop the others, nor the inbox scan that follows.
    try {
      if (plan && (await vault.exists(plan.source))) {
        await complete(vault, dir, plan, clock);
        recovered.completed.push(vault.rel(plan.meeting));
      } else {
        await vault.fs.rm(dir, { recursive: true, force: true });
        recovered.dropped++;
      }
    } catch (err) {
      recovered.failed.push({ staging: vault.rel(dir), error: err as Error });
    }
  }
  return recovered;
}

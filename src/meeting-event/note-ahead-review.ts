import { createHash } from 'node:crypto';
import path from 'node:path';
import type { CalendarEvent, CalendarSourceState } from '../calendar/types.js';
import { isNotFound, writeFileAtomic } from '../vault/files/fs.js';
import { confinedPlace, readConfinedText } from '../vault/files/real-place.js';
import { readRegularFile } from '../vault/files/regular-file.js';
import { STATE_FOLDER } from '../vault/files/state.js';
import type { NoteKind, Vault } from '../vault/files/vault.js';
import { parseNote } from '../vault/format/frontmatter.js';
import { linkTarget } from '../vault/format/links.js';
import { makeNoteAhead, type NoteAheadOutcome, type NotesAheadMode } from './note-ahead.js';

/**
 * The notes made ahead whose event moves or is cancelled before it starts (docs/design.md §12):
 * a note nobody has touched follows the event at once (made anew for its new time and title, the
 * old notes removed) or, cancelled, goes to `.trash/`; a note with
 * anything a person or a recorder wrote stays as it is. "Untouched" is decided against what was
 * written: the daemon keeps, in `.meeting-assistant/notes-ahead.json`, the hash of each note it
 * made ahead, so that the judgement survives a restart.
 */

export interface NoteAheadRecord {
  meeting: string;
  context: string;
  uid: string;
  /** ms: the instance's slot (`event_start`) and its scheduled start and title as made. */
  eventStart: number;
  start: number;
  title: string;
  meetingHash: string;
  contextHash: string;
  /**
   * The meeting notes this one was made to replace when its event moved: one of them back under
   * its name (an editor that had it open saving after its removal) is the instance's note again.
   */
  replaced?: string[];
}

/** How far ahead a moved event is looked for; one moved further is taken for cancelled (its untouched note is made again when it comes near). */
export const REVIEW_AHEAD_MS = 7 * 24 * 60 * 60 * 1000;

const recordsPath = (vault: Vault) => path.join(vault.root, STATE_FOLDER, 'notes-ahead.json');
const hashOf = (text: string) => createHash('sha256').update(text).digest('hex');

/** A record bigger than this is no record the daemon wrote: it is passed over unread. */
const MAX_RECORDS_BYTES = 1024 * 1024;

/**
 * The records, as the daemon wrote them: the file is in the vault, which a sync tool and other
 * people write, so a record naming anything but a meeting note and a context note of the
 * vault's folders (a project's note, Obsidian's settings, a file out of the vault), or without
 * its hashes, is dropped: the daemon made no other note ahead, and removes no other.
 */
async function readRecords(vault: Vault): Promise<NoteAheadRecord[]> {
  try {
    // A regular file only, bounded: a synced link to /dev/zero or a FIFO is no record (regular-file.ts).
    const bytes = await readRegularFile(vault.fs, recordsPath(vault), MAX_RECORDS_BYTES);
    if (bytes === undefined) return [];
    const parsed: unknown = JSON.parse(bytes.toString('utf8'));
    const noteOf = (rel: unknown, kind: NoteKind) =>
      typeof rel === 'string' && rel.toLowerCase().endsWith('.md') && vault.contains(vault.abs(rel)) && vault.kindOf(vault.abs(rel)) === kind;
    if (!Array.isArray(parsed)) return [];
    return (parsed as NoteAheadRecord[])
      .filter((r) => noteOf(r?.meeting, 'meeting') && noteOf(r.context, 'context') && typeof r.meetingHash === 'string' && typeof r.contextHash === 'string')
      .map((r) => ({ ...r, replaced: Array.isArray(r.replaced) ? r.replaced.filter((rel) => noteOf(rel, 'meeting')) : [] }));
  } catch {
    return []; // none yet, or unreadable: no note is judged untouched, so none is moved
  }
}

async function writeRecords(vault: Vault, records: NoteAheadRecord[]): Promise<void> {
  await vault.fs.mkdir(path.dirname(recordsPath(vault)), { recursive: true });
  await writeFileAtomic(vault.fs, recordsPath(vault), `${JSON.stringify(records)}\n`);
}

/** Remembers a note just made ahead, as it is now. */
export async function recordNoteAhead(vault: Vault, event: CalendarEvent, notes: { meeting: string; context: string }): Promise<void> {
  const record = await recordOf(vault, event, notes);
  const records = (await readRecords(vault)).filter((r) => r.meeting !== notes.meeting);
  records.push(record);
  await writeRecords(vault, records);
}

async function recordOf(vault: Vault, event: CalendarEvent, notes: { meeting: string; context: string }): Promise<NoteAheadRecord> {
  const [meeting, context] = await Promise.all([vault.read(vault.abs(notes.meeting)), vault.read(vault.abs(notes.context))]);
  return { meeting: notes.meeting, context: notes.context, uid: event.uid, eventStart: event.eventStart.getTime(), start: event.start.getTime(), title: event.title.trim(), meetingHash: hashOf(meeting), contextHash: hashOf(context) };
}

export interface ReviewOutcome {
  /** Untouched meeting notes of a cancelled event (or one moved beyond REVIEW_AHEAD_MS), moved to `.trash/` with their context notes. */
  trashed: string[];
  /**
   * Untouched meeting notes that followed their moved or retitled event: the old notes removed,
   * `to` the meeting note made for the instance as it now stands (undefined: none was made, `why`).
   */
  followed: { from: string; to: string | undefined; why?: string }[];
  /** Meeting notes left as they are though their event moved or was cancelled: someone wrote in them. */
  kept: string[];
  /** Notes that could not be looked at or moved (a broken file, a full disk): tried again at the next look. */
  failed: { meeting: string; error: unknown }[];
  /** Untouched notes made for a moved event, moved to `.trash/` because the note they replaced came back (`to`). */
  yielded: { meeting: string; to: string }[];
}

/** What the maker of a note made ahead needs (note-ahead.ts): a followed note is made as any other. */
export interface FollowDeps {
  projects: Readonly<Record<string, string>>;
  mode: NotesAheadMode;
}

/**
 * Looks at the notes made ahead whose event has not started: `events` are those of the calendar
 * from now to REVIEW_AHEAD_MS ahead. Nothing is judged while a source is unread or failing: an
 * event missing from a calendar that could not be read is no cancelled event.
 */
export async function reviewNotesAhead(vault: Vault, events: readonly CalendarEvent[], sources: readonly CalendarSourceState[], now: Date, deps: FollowDeps): Promise<ReviewOutcome> {
  const outcome: ReviewOutcome = { trashed: [], followed: [], kept: [], failed: [], yielded: [] };
  const records = await readRecords(vault);
  if (records.length === 0) return outcome;
  if (sources.length === 0 || sources.some((s) => !s.ok || s.readAt === null)) return outcome;
  const left: NoteAheadRecord[] = [];
  for (const record of records) {
    // Begun: it is the meeting's now, never moved again.
    if (record.start <= now.getTime()) continue;
    const back = await replacedBack(vault, record);
    if (back !== undefined) {
      // Two notes of one instance: the one a person saved stays, ours (untouched) goes; both typed into stay.
      try {
        const ours = (await untouched(vault, record)) && (await removeAsWritten(vault, record.meeting, record.meetingHash, 'trash')) === 'removed';
        if (ours) await removeAsWritten(vault, record.context, record.contextHash, 'trash');
        if (ours) outcome.yielded.push({ meeting: record.meeting, to: back });
        else outcome.kept.push(record.meeting);
      } catch (error) {
        left.push(record);
        outcome.failed.push({ meeting: record.meeting, error });
      }
      continue;
    }
    const instance = instanceOf(events, record);
    if (instance && instance.start.getTime() === record.start && instance.title.trim() === record.title) {
      left.push(record);
      continue;
    }
    try {
      if (!(await untouched(vault, record))) {
        // The meeting note gone (a person deleted it, or a crash while it followed: it is in
        // `.trash/`): its context note, as written, follows it there rather than stay a stray.
        if (!(await vault.exists(vault.abs(record.meeting)))) await removeAsWritten(vault, record.context, record.contextHash, 'trash');
        else outcome.kept.push(record.meeting);
        continue; // someone wrote in it: it stays, and is no longer followed
      }
      if (!instance) {
        // Judged again at the move, as a followed note is: one typed into meanwhile stays.
        if ((await removeAsWritten(vault, record.meeting, record.meetingHash, 'trash')) === 'changed') outcome.kept.push(record.meeting);
        else {
          await removeAsWritten(vault, record.context, record.contextHash, 'trash');
          outcome.trashed.push(record.meeting);
        }
        continue;
      }
      const followed = await follow(vault, record, instance, deps);
      if (followed === 'kept') outcome.kept.push(record.meeting);
      else {
        outcome.followed.push(followed.made ? { from: record.meeting, to: followed.meeting } : { from: record.meeting, to: undefined, why: followed.why });
        if (followed.made) left.push({ ...(await recordOf(vault, instance, followed)), replaced: [...(record.replaced ?? []), record.meeting] });
      }
    } catch (error) {
      left.push(record);
      outcome.failed.push({ meeting: record.meeting, error });
    }
  }
  // Written when it changed only: the file is synced, and the look comes every minute.
  if (JSON.stringify(left) !== JSON.stringify(records)) await writeRecords(vault, left);
  return outcome;
}

/**
 * An untouched note follows its moved or retitled instance at once (docs/design.md §12): the old
 * notes are removed when they are still as the daemon wrote them at the removal (no trash copy:
 * they hold nothing anyone wrote), then the notes of the instance as it now stands are made by
 * the maker of every note made ahead (new name, times, agenda, Before-the-meeting section). The
 * old ones go first: a meeting note someone typed into meanwhile stays, and the instance then
 * gets no second note; the same name (a retitle the file name does not show) is free again.
 */
async function follow(vault: Vault, record: NoteAheadRecord, instance: CalendarEvent, deps: FollowDeps): Promise<NoteAheadOutcome | { made: false; why: string } | 'kept'> {
  if ((await removeAsWritten(vault, record.meeting, record.meetingHash)) === 'changed') return 'kept';
  // A context note someone wrote in stays where it is (a stray, but theirs).
  await removeAsWritten(vault, record.context, record.contextHash);
  // The old notes are gone: a failure now is said, and the look makes the note when the event comes near (its start is new to it).
  return makeNoteAhead(vault, deps, instance).catch((err: unknown): NoteAheadOutcome | { made: false; why: string } => ({ made: false, why: `could not be written: ${(err as Error)?.message ?? String(err)}` }));
}

/**
 * Removes the file when its text is still the one hashed, decided on the file as it is at the
 * removal (`trash`: left in `.trash/`, as a cancelled event's notes are): it is first moved aside
 * into `.trash/` (atomic: an editor's save after that lands under the note's own name, a file of
 * its own), then read; a text someone changed goes back under its name, or stays in `.trash/`
 * when a save took the name meanwhile. Under the file's lock, so no write of this daemon's (a
 * recording joining the note) falls between. Aside in `.trash/`, not under a temporary name: a
 * crash between the steps leaves the text there, where the start's sweep of temporary files
 * (temp-sweep.ts) never removes it, and a person typed into it in the instant before the move
 * may be what it holds.
 */
async function removeAsWritten(vault: Vault, rel: string, hash: string, as: 'delete' | 'trash' = 'delete'): Promise<'removed' | 'changed' | 'missing'> {
  const abs = vault.abs(rel);
  const place = await confinedPlace(vault, abs);
  if (place === 'missing') return 'missing';
  return vault.locks.run(place.real, async () => {
    const stat = await vault.fs.lstat(abs).catch(() => undefined);
    if (!stat) return 'missing';
    // A symbolic link is no note the daemon made (it wrote a file): left alone.
    if (stat.isSymbolicLink()) return 'changed';
    let aside: string;
    try {
      aside = await vault.moveToTrash(abs);
    } catch (err) {
      if (isNotFound(err)) return 'missing';
      throw err;
    }
    const bytes = await readRegularFile(vault.fs, aside, vault.maxFileBytes).catch(() => undefined);
    if (bytes !== undefined && hashOf(bytes.toString('utf8')) === hash) {
      if (as === 'delete') await vault.fs.unlink(aside);
      return 'removed';
    }
    // Unreadable as a note now: kept in `.trash/`, never removed.
    if (bytes === undefined) return 'changed';
    // Back under its name, byte for byte, only if no save took it meanwhile (created, never
    // replaced); else that save stays and this text stays in `.trash/` under the note's name.
    const back = await vault.fs.writeFile(abs, bytes, { flag: 'wx' }).then(
      () => true,
      (err: unknown) => ((err as { code?: string }).code === 'EEXIST' ? false : Promise.reject(err)),
    );
    if (back) await vault.fs.unlink(aside);
    return 'changed';
  });
}

/** A note this one replaced that is there again and names the same event (vault-relative), if any. */
async function replacedBack(vault: Vault, record: NoteAheadRecord): Promise<string | undefined> {
  for (const rel of record.replaced ?? []) {
    if (rel === record.meeting) continue; // a retitle the file name does not show: the same name
    const text = await readConfinedText(vault, vault.abs(rel)).catch(() => undefined);
    if (text === undefined) continue;
    try {
      const event = parseNote(text).data.event;
      if (typeof event === 'string' && event.trim() === record.uid) return rel;
    } catch {
      // a note that cannot be read names no event
    }
  }
  return undefined;
}

/** The record's instance: the same UID and slot; a single event (no series) moved has a new slot, so its UID alone. */
function instanceOf(events: readonly CalendarEvent[], record: NoteAheadRecord): CalendarEvent | undefined {
  const same = events.filter((e) => e.uid === record.uid);
  return same.find((e) => e.eventStart.getTime() === record.eventStart) ?? (same.length === 1 && !same[0]!.recurring ? same[0] : undefined);
}

/** Both notes as made, and no transcript note where the meeting note links one. */
async function untouched(vault: Vault, record: NoteAheadRecord): Promise<boolean> {
  const read = (rel: string) => readConfinedText(vault, vault.abs(rel)).catch(() => undefined);
  const [meeting, context] = await Promise.all([read(record.meeting), read(record.context)]);
  if (meeting === undefined || context === undefined) return false;
  if (hashOf(meeting) !== record.meetingHash || hashOf(context) !== record.contextHash) return false;
  try {
    const target = linkTarget(parseNote(meeting).data.transcript);
    // A link out of the vault is no note made ahead: it is left alone, never looked at.
    if (target !== undefined && (!vault.contains(vault.abs(target)) || (await vault.exists(vault.abs(target))))) return false;
  } catch {
    return false;
  }
  return true;
}

import { createHash } from 'node:crypto';
import path from 'node:path';
import type { CalendarEvent, CalendarSourceState } from '../calendar/types.js';
import { statIfExists, writeFileAtomic } from '../vault/files/fs.js';
import { confinedPlace, readConfinedText } from '../vault/files/real-place.js';
import { STATE_FOLDER } from '../vault/files/state.js';
import type { Vault } from '../vault/files/vault.js';
import { parseNote } from '../vault/format/frontmatter.js';
import { linkTarget } from '../vault/format/links.js';

/**
 * The notes made ahead whose event moves or is cancelled before it starts (docs/design.md §12):
 * a note nobody has touched follows the event (it goes to `.trash/`, and the next look makes it
 * again for the event's new time and title) or, cancelled, goes to `.trash/`; a note with
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
}

/** How far ahead a moved event is looked for; one moved further is taken for cancelled (an untouched note is made again when it comes). */
export const REVIEW_AHEAD_MS = 7 * 24 * 60 * 60 * 1000;

const recordsPath = (vault: Vault) => path.join(vault.root, STATE_FOLDER, 'notes-ahead.json');
const hashOf = (text: string) => createHash('sha256').update(text).digest('hex');

/** A record bigger than this is no record the daemon wrote: it is passed over unread. */
const MAX_RECORDS_BYTES = 1024 * 1024;

/**
 * The records, as the daemon wrote them: the file is in the vault, which a sync tool and other
 * people write, so a record naming a note out of the vault (or without its hashes) is dropped.
 */
async function readRecords(vault: Vault): Promise<NoteAheadRecord[]> {
  try {
    const stat = await statIfExists(vault.fs, recordsPath(vault));
    if (!stat || stat.size > MAX_RECORDS_BYTES) return [];
    const parsed: unknown = JSON.parse(Buffer.from(await vault.fs.readFile(recordsPath(vault))).toString('utf8'));
    const inVault = (rel: unknown) => typeof rel === 'string' && vault.contains(vault.abs(rel));
    return Array.isArray(parsed)
      ? (parsed as NoteAheadRecord[]).filter((r) => inVault(r?.meeting) && inVault(r.context) && typeof r.meetingHash === 'string' && typeof r.contextHash === 'string')
      : [];
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
  const [meeting, context] = await Promise.all([vault.read(vault.abs(notes.meeting)), vault.read(vault.abs(notes.context))]);
  const records = (await readRecords(vault)).filter((r) => r.meeting !== notes.meeting);
  records.push({ ...notes, uid: event.uid, eventStart: event.eventStart.getTime(), start: event.start.getTime(), title: event.title.trim(), meetingHash: hashOf(meeting), contextHash: hashOf(context) });
  await writeRecords(vault, records);
}

export interface ReviewOutcome {
  /** Meeting notes moved to `.trash/` with their context notes, and why. */
  removed: { meeting: string; why: 'moved' | 'cancelled' }[];
  /** Meeting notes left as they are though their event moved or was cancelled: someone wrote in them. */
  kept: string[];
}

/**
 * Looks at the notes made ahead whose event has not started: `events` are those of the calendar
 * from now to REVIEW_AHEAD_MS ahead. Nothing is judged while a source is unread or failing: an
 * event missing from a calendar that could not be read is no cancelled event.
 */
export async function reviewNotesAhead(vault: Vault, events: readonly CalendarEvent[], sources: readonly CalendarSourceState[], now: Date): Promise<ReviewOutcome> {
  const outcome: ReviewOutcome = { removed: [], kept: [] };
  const records = await readRecords(vault);
  if (records.length === 0) return outcome;
  if (sources.length === 0 || sources.some((s) => !s.ok || s.readAt === null)) return outcome;
  const left: NoteAheadRecord[] = [];
  for (const record of records) {
    // Begun: it is the meeting's now, never moved again.
    if (record.start <= now.getTime()) continue;
    const instance = instanceOf(events, record);
    if (instance && instance.start.getTime() === record.start && instance.title.trim() === record.title) {
      left.push(record);
      continue;
    }
    if (!(await untouched(vault, record))) {
      outcome.kept.push(record.meeting);
      continue; // someone wrote in it: it stays, and is no longer followed
    }
    for (const rel of [record.context, record.meeting]) {
      // Confined as every read of a path vault content names (real-place.ts): never a file a link leads out to.
      const place = await confinedPlace(vault, vault.abs(rel)).catch(() => 'missing' as const);
      if (place !== 'missing') await vault.moveToTrash(vault.abs(rel));
    }
    outcome.removed.push({ meeting: record.meeting, why: instance ? 'moved' : 'cancelled' });
  }
  await writeRecords(vault, left);
  return outcome;
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

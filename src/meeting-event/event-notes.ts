import path from 'node:path';
import type { CalendarEvent } from '../calendar/types.js';
import { mapLimit } from '../vault/files/concurrency.js';
import type { Vault } from '../vault/files/vault.js';
import { HeadCache } from '../vault/scan/head-cache.js';
import { isEmptyValue } from './event-keys.js';

/**
 * The meeting note each event belongs to (docs/design.md §12): the one whose `event` is the
 * event's UID and whose `event_start` is the instance's slot (a recurring event's UID names the
 * series; the slot names the instance, even when it moved). The heads are kept between looks, so
 * a page asking every few seconds reads only the notes that changed. The one lookup of it, for
 * the status page, `calendar` and GET /api/calendar alike.
 */

const PARALLEL = 16;

export class EventNotes {
  readonly #heads: HeadCache;

  constructor(private readonly vault: Vault) {
    this.#heads = new HeadCache(vault, ['event', 'event_start']);
  }

  /** Event → the absolute path of its meeting note, for those that have one. */
  async notesOf(events: readonly CalendarEvent[]): Promise<Map<CalendarEvent, string>> {
    const found = new Map<CalendarEvent, string>();
    if (events.length === 0) return found;
    const wanted = new Set(events.map((event) => event.uid));
    const bySlot = new Map<string, string>();
    const byUid = new Map<string, string>();
    const notes = await this.vault.listNotesOf('Meetings').catch(() => [] as string[]);
    await mapLimit(notes, PARALLEL, async (note) => {
      const head = await this.#heads.get(note).catch(() => undefined);
      if (!head?.ok || isEmptyValue(head.data.event)) return;
      const uid = String(head.data.event).trim();
      if (!wanted.has(uid)) return;
      const slot = instantOf(head.data.event_start);
      if (Number.isFinite(slot)) bySlot.set(`${uid}\n${slot}`, note);
      byUid.set(uid, note);
    });
    for (const event of events) {
      const note = bySlot.get(`${event.uid}\n${event.eventStart.getTime()}`) ?? (event.recurring ? undefined : byUid.get(event.uid));
      if (note) found.set(event, note);
    }
    return found;
  }

  /** Event → its meeting note, vault-relative with forward slashes; null when none (`calendar`, the API). */
  async meetingOf(events: readonly CalendarEvent[]): Promise<(event: CalendarEvent) => string | null> {
    const notes = await this.notesOf(events);
    return (event) => {
      const note = notes.get(event);
      return note ? this.vault.rel(note).split(path.sep).join('/') : null;
    };
  }
}

/** A YAML timestamp is read as a Date, a quoted one as text. */
function instantOf(value: unknown): number {
  return value instanceof Date ? value.getTime() : Date.parse(String(value ?? '').trim());
}

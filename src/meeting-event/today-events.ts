import type { Clock } from '../clock.js';
import type { CalendarLookup } from '../calendar/types.js';
import type { Vault } from '../vault/files/vault.js';
import { EventNotes } from './event-notes.js';

/**
 * Today's events, each with its meeting note, for the status page (docs/design.md §12). The page
 * asks every second; the day is looked up again at most every `ttlMs`.
 */

/** One of today's events: text only, never the calendar's HTML. */
export interface CalendarEventView {
  title: string;
  /** ISO 8601 UTC. */
  start: string;
  end: string;
  /** Its meeting note, vault-relative; undefined when it has none yet. */
  meeting?: string;
}

export interface CalendarDayView {
  events: CalendarEventView[];
  /** Sources whose last read failed: their name and why (never the address). */
  failing: { name: string; error: string }[];
}

export const TODAY_TTL_MS = 30_000;

export class TodayEvents {
  readonly #notes: EventNotes;
  #kept: { at: number; day: string; view: CalendarDayView } | undefined;
  #pending: Promise<CalendarDayView> | undefined;

  constructor(
    private readonly o: { calendar: CalendarLookup; vault: Vault; clock: Clock; ttlMs?: number },
  ) {
    this.#notes = new EventNotes(o.vault);
  }

  async day(): Promise<CalendarDayView> {
    const now = this.o.clock();
    const key = now.toDateString();
    const kept = this.#kept;
    if (kept && kept.day === key && now.getTime() - kept.at < (this.o.ttlMs ?? TODAY_TTL_MS)) return kept.view;
    this.#pending ??= this.read(now).finally(() => (this.#pending = undefined));
    const view = await this.#pending;
    this.#kept = { at: now.getTime(), day: key, view };
    return view;
  }

  private async read(now: Date): Promise<CalendarDayView> {
    const from = new Date(now.getFullYear(), now.getMonth(), now.getDate());
    const to = new Date(now.getFullYear(), now.getMonth(), now.getDate() + 1);
    // The page never waits for a calendar's first read: it shows what there is, and looks again.
    const events = (await this.o.calendar.eventsBetween(from, to, { waitForFirstRead: false })).filter((e) => e.start < to && e.start >= from);
    const notes = await this.#notes.notesOf(events);
    const failing = this.o.calendar
      .sources()
      .filter((s) => !s.ok)
      .map((s) => ({ name: s.name, error: s.error ?? 'not read' }));
    return {
      events: events.map((e) => {
        const note = notes.get(e);
        return { title: e.title, start: e.start.toISOString(), end: e.end.toISOString(), ...(note ? { meeting: this.o.vault.rel(note) } : {}) };
      }),
      failing,
    };
  }
}


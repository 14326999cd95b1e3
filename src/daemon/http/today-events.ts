import type { Clock } from '../../clock.js';
import type { CalendarLookup } from '../../calendar/types.js';
import { EventNotes } from '../../meeting-event/event-notes.js';
import type { Vault } from '../../vault/files/vault.js';
import { escapeHtml } from './html.js';
import type { CalendarDayView, StatusView } from './status-view.js';

/**
 * Today's events on the status page (docs/design.md §12), each with a link to its meeting note.
 * The page asks every second; the day is looked up again at most every `ttlMs`. Everything
 * shown is the calendar's text escaped: an event's title is whatever its sender wrote.
 */

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

  /** The view with today's events; a calendar that fails leaves them out rather than the page. */
  async fill(view: StatusView): Promise<StatusView> {
    const calendar = await this.day().catch(() => undefined);
    return calendar ? { ...view, calendar } : view;
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
    const events = (await this.o.calendar.eventsBetween(from, to)).filter((e) => e.start < to && e.start >= from);
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

/** The page's own cell renderers, passed in so this module and status-page.ts do not import each other. */
export interface DayCells {
  clock(iso: string): string;
  noteCell(view: StatusView, note: string | undefined): string;
}

export function renderTodayEvents(view: StatusView, cells: DayCells): string {
  const day = view.calendar;
  if (!day) return '';
  const rows = day.events.map(
    (e) =>
      `<tr class="event"><td>${cells.clock(e.start)} – ${cells.clock(e.end)}</td><td><strong>${escapeHtml(e.title)}</strong></td>` +
      (e.meeting ? cells.noteCell(view, e.meeting) : '<td class="empty">no meeting note yet</td>') +
      `</tr>`,
  );
  const body = rows.length > 0 ? rows.join('\n') : '<tr><td colspan="3" class="empty">No event today.</td></tr>';
  const failing = day.failing.map((s) => `<li class="error">${escapeHtml(s.name)}: ${escapeHtml(s.error)}</li>`).join('');
  return (
    `<section id="calendar"><h2>Today's events</h2>` +
    (failing ? `<ul>${failing}</ul>` : '') +
    `<table><thead><tr><th>When</th><th>Event</th><th>Meeting note</th></tr></thead><tbody>\n${body}\n</tbody></table></section>`
  );
}

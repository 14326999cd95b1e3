import type { CalendarLookup } from '../../calendar/types.js';
import type { Clock } from '../../clock.js';
import type { Logger } from '../../log.js';
import { makeNoteAhead, type NotesAheadMode } from '../../meeting-event/note-ahead.js';
import { recordNoteAhead, REVIEW_AHEAD_MS, reviewNotesAhead } from '../../meeting-event/note-ahead-review.js';
import type { Vault } from '../../vault/files/vault.js';

/**
 * The daemon's notes made ahead (docs/design.md §12, "Before the meeting"): every minute, the
 * events that start within `Calendar.NotesAheadMinutes` get their meeting note and context note
 * (meeting-event/note-ahead.ts), so that a person can type into the meeting note while it runs.
 * Only the active machine's daemon makes them (`isActive`: the claim's role, §2); an instance that
 * has a meeting note is skipped, decided on the vault each time, so a restart or the other
 * machine's notes make no second one. An instance looked at once is not looked at again by this
 * daemon: a note made ahead that a person deleted stays deleted.
 */

export interface NotesAheadOptions {
  vault: Vault;
  calendar: CalendarLookup;
  settings: { NotesAhead: NotesAheadMode; NotesAheadMinutes: number; Projects: Readonly<Record<string, string>> };
  clock: Clock;
  log: Logger;
  /** Whether this daemon is the vault's active one now (a standby or a stopping daemon makes none). */
  isActive: () => boolean;
  /** Between two looks; default a minute. */
  everyMs?: number;
}

const MINUTE_MS = 60_000;

export class NotesAhead {
  readonly #o: NotesAheadOptions;
  readonly #seen = new Set<string>();
  #timer: NodeJS.Timeout | undefined;
  #running: Promise<void> | undefined;
  #again: Promise<void> | undefined;

  constructor(options: NotesAheadOptions) {
    this.#o = options;
  }

  /** Looks now, then every `everyMs`; nothing when `NotesAhead` is `none`. */
  start(): void {
    if (this.#o.settings.NotesAhead === 'none' || this.#timer) return;
    void this.tick();
    this.#timer = setInterval(() => void this.tick(), this.#o.everyMs ?? MINUTE_MS);
    this.#timer.unref();
  }

  /** One look (a look still running is waited for, not doubled); never throws. */
  tick(): Promise<void> {
    this.#running ??= this.#look().finally(() => (this.#running = undefined));
    return this.#running;
  }

  /**
   * A look that begins after this call (after the one running, which may have read the calendar
   * before it changed); calls meanwhile share it. What a change of a calendar file asks for.
   */
  lookAgain(): Promise<void> {
    this.#again ??= (this.#running ?? Promise.resolve()).then(() => {
      this.#again = undefined;
      return this.tick();
    });
    return this.#again;
  }

  async close(): Promise<void> {
    if (this.#timer) clearInterval(this.#timer);
    this.#timer = undefined;
    await this.#running;
  }

  async #look(): Promise<void> {
    const { vault, calendar, settings, clock, log } = this.#o;
    if (settings.NotesAhead === 'none' || !this.#o.isActive()) return;
    const now = clock();
    const until = new Date(now.getTime() + settings.NotesAheadMinutes * MINUTE_MS);
    let ahead;
    try {
      ahead = await calendar.eventsBetween(now, new Date(now.getTime() + Math.max(REVIEW_AHEAD_MS, until.getTime() - now.getTime())));
    } catch (err) {
      log.debug({ err }, 'notes ahead: the calendar could not be read');
      return;
    }
    // First the notes made earlier whose event moved or was cancelled (§12): an untouched one follows a moved event at once.
    const deps = { projects: settings.Projects, mode: settings.NotesAhead };
    try {
      const review = await reviewNotesAhead(vault, ahead, calendar.sources(), now, deps);
      for (const meeting of review.trashed) log.info({ meeting }, `the event of ${meeting} was cancelled: the untouched note made ahead went to .trash/`);
      for (const { from, to, why } of review.followed) {
        if (to) log.info({ from, to }, `the event of ${from} moved or was renamed: its untouched note made ahead follows it, now ${to}`);
        else log.info({ from, why }, `the event of ${from} moved or was renamed: its untouched note made ahead was removed, and none made for it now (${why ?? 'none'})`);
      }
      for (const { meeting, to } of review.yielded) log.info({ meeting, to }, `${to} came back (an editor saved it after it followed its event): it is the meeting's note, and ${meeting}, made for the move, went to .trash/`);
      for (const meeting of review.kept) log.info({ meeting }, `the event of ${meeting} moved or was cancelled; the note has someone's writing and stays`);
      for (const { meeting, error } of review.failed) log.warn({ err: error, meeting }, `could not look at ${meeting}, made ahead of an event that changed; tried again at the next look`);
    } catch (err) {
      log.warn({ err }, 'could not look at the notes made ahead whose events changed');
    }
    const events = ahead.filter((e) => e.start.getTime() <= until.getTime());
    let made = 0;
    for (const event of events) {
      // Starting within the window; one already begun is a session's to make (session start).
      if (event.start.getTime() < now.getTime() || event.start.getTime() > until.getTime()) continue;
      // The start too: a moved instance (same slot, new time) is looked at again.
      const key = `${event.uid}\n${event.eventStart.getTime()}\n${event.start.getTime()}`;
      if (this.#seen.has(key)) continue;
      if (!this.#o.isActive()) return;
      try {
        const outcome = await makeNoteAhead(vault, { projects: settings.Projects, mode: settings.NotesAhead }, event);
        this.#seen.add(key);
        if (outcome.made) {
          made++;
          await recordNoteAhead(vault, event, outcome);
        }
        if (outcome.made) log.info({ meeting: outcome.meeting, context: outcome.context }, `made the meeting note ahead of "${event.title.trim()}": ${outcome.meeting}`);
      } catch (err) {
        // One event whose notes cannot be written (a broken note, a full disk) fails no other; it is tried again next look.
        log.warn({ err, event: event.title }, `could not make the meeting note ahead of "${event.title.trim()}"`);
      }
    }
    log.debug({ events: events.length, made }, 'notes ahead: looked at the next events');
  }
}

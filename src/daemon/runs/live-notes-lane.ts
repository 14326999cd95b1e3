import { type Clock, systemClock } from '../../clock.js';
import type { Logger } from '../../log.js';
import type { LiveNotesResult } from '../../meeting/long-transcript/live-notes.js';
import { resolveMeeting } from '../../vault/notes/meeting.js';
import { findMeetingOfTranscript } from '../../vault/notes/locate-meeting.js';
import { readNotesSection } from '../../vault/notes/transcript-notes-section.js';
import type { Vault } from '../../vault/files/vault.js';

/**
 * When the daemon makes the notes of a meeting still running (docs/design.md §3 step 9): a
 * transcript that grows is noted a few seconds after its last change (at most 30 s after its
 * first change not yet noted, when it never pauses), one meeting at a time,
 * and only while no summary runs. A summary never waits for notes: as one starts, the notes
 * being made stop (the parts done are saved; the meeting is noted again afterwards), and a
 * summary of the meeting itself takes its notes over. The daemon's stop ends them; its next
 * start resumes the notes begun (catch-up).
 */

export interface LiveNotesRun {
  signal: AbortSignal;
  /** Only go on with notes begun earlier (the start's resume). */
  onlyIfStarted: boolean;
  onPart(progress: { part: number; parts: number }): void;
}

export interface LiveNotesLaneOptions {
  vault: Vault;
  log: Logger;
  /** One live notes pass of a meeting, where the runs happen (run-place.ts). */
  notes(meetingPath: string, run: LiveNotesRun): Promise<LiveNotesResult>;
  /** Held while a pass runs: the run process stays for it. */
  hold(): () => void;
  /** After the last change of a transcript, how long to wait for the next one before noting. */
  settleMs?: number;
  /** After a failed pass (the endpoint down), how long before the meeting is tried again. */
  retryMs?: number;
  timers?: { setTimeout(fn: () => void, ms: number): unknown; clearTimeout(handle: unknown): void };
  clock?: Clock;
}

/** A meeting being noted, for the status page and `status`. */
export interface LiveNotesEntry {
  meeting: string;
  /** Parts with notes, of about how many the transcript makes so far. */
  parts: number;
  about: number;
  /** A pass is making notes now. */
  active: boolean;
}

/** "notes: parts 1–4 of ~6", and whether they are being made now. */
export function liveNotesLine(entry: LiveNotesEntry): string {
  const parts = entry.parts === 0 ? 'no part yet' : entry.parts === 1 ? 'part 1' : `parts 1–${entry.parts}`;
  return `notes: ${parts} of ~${Math.max(entry.about, entry.parts + 1)}${entry.active ? ' (noting now)' : ''}`;
}

interface Pending {
  onlyIfStarted: boolean;
  notBefore: number;
  /** The latest a pass for this change may start, however often the transcript changes. */
  latest: number;
}

const SETTLE_MS = 3000;
/** A transcript written without pauses is noted at most this many settle periods after its first change not yet noted. */
const LONGEST_WAIT = 10;

/** `MEETING_ASSISTANT_LIVE_NOTES_SETTLE_MS`: a shorter settle, so tests of the real daemon need not wait 3 s a batch. */
export function liveNotesFromEnv(env: Record<string, string | undefined>): { settleMs?: number } {
  const ms = Number(env.MEETING_ASSISTANT_LIVE_NOTES_SETTLE_MS);
  return Number.isFinite(ms) && ms >= 0 && env.MEETING_ASSISTANT_LIVE_NOTES_SETTLE_MS !== '' && env.MEETING_ASSISTANT_LIVE_NOTES_SETTLE_MS !== undefined ? { settleMs: ms } : {};
}
const RETRY_MS = 60_000;
/** Transcripts whose meeting is remembered (the ones growing now are a handful). */
const MEETINGS_KEPT = 64;

/**
 * The meeting of a transcript that changes, found once per transcript and then remembered: a
 * transcript without a `meeting` link is found by reading every meeting note, which a
 * transcriber's appends must not cost at each change (in the daemon's own process). One not
 * found is looked for again at its next change.
 */
export function meetingsOfTranscripts(vault: Vault): (transcriptPath: string) => Promise<string> {
  const known = new Map<string, Promise<string>>();
  return (transcriptPath) => {
    const key = vault.abs(transcriptPath);
    const kept = known.get(key);
    if (kept) return kept;
    const found = findMeetingOfTranscript(vault, key);
    known.set(key, found);
    found.catch(() => known.delete(key));
    if (known.size > MEETINGS_KEPT) known.delete(known.keys().next().value!);
    return found;
  };
}
/** A meeting whose passes keep failing is tried again at most this many retry periods apart (32 minutes). */
const MAX_BACKOFF = 32;

export class LiveNotesLane {
  readonly #o: LiveNotesLaneOptions;
  readonly #pending = new Map<string, Pending>();
  readonly #entries = new Map<string, LiveNotesEntry>();
  /** Failed passes in a row, by meeting: each waits twice as long as the one before. */
  readonly #failures = new Map<string, number>();
  #current: { key: string; controller: AbortController; done: Promise<void> } | undefined;
  /** Summaries running now: notes wait until there are none. */
  #summaries = 0;
  #closed = false;
  #timer: unknown;
  #timerAt = 0;

  /** The meeting of a transcript that changed (remembered: meetingsOfTranscripts). */
  readonly meetingOf: (transcriptPath: string) => Promise<string>;

  constructor(options: LiveNotesLaneOptions) {
    this.#o = options;
    this.meetingOf = meetingsOfTranscripts(options.vault);
  }

  /** A transcript that changed, or was found unfinished at the start (`resume`): its meeting's notes are made once it settles. */
  transcriptGrew(transcript: string, options: { resume?: boolean } = {}): void {
    void this.meetingOf(transcript).then(
      (meeting) => (options.resume ? this.resume(meeting) : this.touched(meeting)),
      // Its meeting cannot be found (yet): the finished transcript's trigger says so in the log.
      () => undefined,
    );
  }

  /** A transcript of this meeting changed while not finished: note it once it has settled. */
  touched(meetingPath: string, options: { resume?: boolean } = {}): void {
    if (this.#closed) return;
    const earlier = this.#pending.get(meetingPath);
    const onlyIfStarted = options.resume === true && (earlier?.onlyIfStarted ?? true);
    const now = this.#now();
    // The settle is pushed on by each change, but not past the longest wait: a transcriber that
    // writes a line a second must not keep the notes from being made until the meeting ends.
    const latest = earlier?.latest ?? now + this.#settle() * LONGEST_WAIT;
    const notBefore = Math.max(earlier?.notBefore ?? 0, Math.min(now + this.#settle(), latest));
    this.#pending.set(meetingPath, { onlyIfStarted, notBefore, latest: Math.max(latest, notBefore) });
    this.#schedule(Math.max(0, notBefore - now));
  }

  /**
   * At the start, a meeting whose transcript is not in the trigger state: noted again only when
   * its notes were begun (its context note has the notes section). Looked at here, in the
   * daemon's process, so that a vault of unfinished transcripts neither starts the run process
   * nor has each transcript read and counted there at every start.
   */
  async resume(meetingPath: string): Promise<void> {
    const { vault } = this.#o;
    const meeting = await resolveMeeting(vault, meetingPath, { writeBack: false }).catch(() => undefined);
    if (!meeting || (await readNotesSection(vault, meeting.contextPath).catch(() => undefined)) === undefined) return;
    this.touched(meetingPath, { resume: true });
  }

  /**
   * A summary run begins: the notes being made stop now (and are resumed after it), those of
   * this meeting are its own from now on. Resolves once the notes pass has ended.
   */
  async summaryStarts(key: string): Promise<void> {
    this.#summaries++;
    this.#pending.delete(key);
    this.#entries.delete(key);
    this.#failures.delete(key);
    const current = this.#current;
    if (!current) return;
    current.controller.abort(new Error('a summary run begins'));
    await current.done;
  }

  summaryEnded(): void {
    this.#summaries = Math.max(0, this.#summaries - 1);
    if (this.#summaries === 0) this.#schedule(0);
  }

  status(): LiveNotesEntry[] {
    return [...this.#entries.values()].filter((e) => e.parts > 0 || e.active).map((e) => ({ ...e }));
  }

  /** The daemon stops: the pass being made ends now (its parts done are saved). */
  async close(): Promise<void> {
    this.#closed = true;
    this.#pending.clear();
    if (this.#timer !== undefined) this.#timers().clearTimeout(this.#timer);
    const current = this.#current;
    current?.controller.abort(new Error('daemon shutting down'));
    await current?.done;
  }

  #now(): number {
    return (this.#o.clock ?? systemClock)().getTime();
  }

  #settle(): number {
    return this.#o.settleMs ?? SETTLE_MS;
  }

  #timers() {
    return this.#o.timers ?? { setTimeout: (fn: () => void, ms: number) => setTimeout(fn, ms).unref(), clearTimeout: (h: unknown) => clearTimeout(h as NodeJS.Timeout) };
  }

  /** The pump runs in `ms` at the latest: a timer due sooner is kept (it finds what is due then, and waits for the rest). */
  #schedule(ms: number): void {
    if (this.#closed) return;
    const at = this.#now() + ms;
    if (this.#timer !== undefined) {
      if (this.#timerAt <= at) return;
      this.#timers().clearTimeout(this.#timer);
    }
    this.#timerAt = at;
    this.#timer = this.#timers().setTimeout(() => {
      this.#timer = undefined;
      this.#pump();
    }, ms);
  }

  #pump(): void {
    if (this.#closed || this.#current || this.#summaries > 0) return;
    const now = this.#now();
    let next: [string, Pending] | undefined;
    let wait = Infinity;
    for (const entry of this.#pending) {
      if (entry[1].notBefore <= now) {
        next = entry;
        break;
      }
      wait = Math.min(wait, entry[1].notBefore - now);
    }
    if (!next) {
      if (wait !== Infinity) this.#schedule(wait);
      return;
    }
    const [key, pending] = next;
    this.#pending.delete(key);
    const controller = new AbortController();
    const release = this.#o.hold();
    const done = this.#run(key, pending, controller.signal).finally(() => {
      release();
      this.#current = undefined;
      this.#pump();
    });
    this.#current = { key, controller, done };
  }

  async #run(key: string, pending: Pending, signal: AbortSignal): Promise<void> {
    const { vault, log } = this.#o;
    const meeting = vault.rel(key);
    const entry = this.#entries.get(key) ?? { meeting, parts: 0, about: 0, active: false };
    this.#entries.set(key, entry);
    entry.active = true;
    let result: LiveNotesResult;
    try {
      result = await this.#o.notes(key, {
        signal,
        onlyIfStarted: pending.onlyIfStarted,
        onPart: (p) => {
          entry.parts = p.part - 1;
          entry.about = p.parts;
        },
      });
    } catch (err) {
      result = { status: 'failed', error: err instanceof Error ? err.message : String(err) };
    } finally {
      entry.active = false;
    }
    log.debug(
      { meeting, status: result.status, ...('parts' in result && { parts: result.parts, about: result.about, requests: result.requests }), ...('reason' in result && { reason: result.reason }) },
      'live notes pass',
    );
    if (result.status !== 'failed') this.#failures.delete(key);
    if (result.status === 'noted') {
      entry.parts = result.parts;
      entry.about = result.about;
      return;
    }
    if (result.status !== 'failed') {
      // Nothing noted (it fits, it is finished, nothing to resume): nothing to show.
      if (entry.parts === 0 || result.status !== 'skipped') this.#entries.delete(key);
      return;
    }
    if (signal.aborted) {
      // Stopped for a summary: what is left is noted once it has run (the stop: at the next start).
      if (!this.#closed && this.#entries.has(key)) this.#pending.set(key, { onlyIfStarted: false, notBefore: 0, latest: 0 });
      return;
    }
    // Tried again later and later (a transcript left unfinished behind a server that is down, or
    // one that always fails, would otherwise cost a pass and a warning every minute for good);
    // a change of the transcript meanwhile does not cut the wait short. Warned of once a streak.
    const failures = (this.#failures.get(key) ?? 0) + 1;
    this.#failures.set(key, failures);
    const retryMs = (this.#o.retryMs ?? RETRY_MS) * Math.min(MAX_BACKOFF, 2 ** (failures - 1));
    const message = `notes while the meeting runs failed: ${result.error ?? 'unknown error'}; tried again in ${Math.round(retryMs / 1000)} s`;
    if (failures === 1) log.warn({ meeting, error: result.error }, `${message} (later failures in a row are logged at debug level)`);
    else log.debug({ meeting, error: result.error, failures }, message);
    const notBefore = Math.max(this.#pending.get(key)?.notBefore ?? 0, this.#now() + retryMs);
    this.#pending.set(key, { onlyIfStarted: this.#pending.get(key)?.onlyIfStarted ?? pending.onlyIfStarted, notBefore, latest: notBefore });
    this.#schedule(retryMs);
  }
}

import { createHash } from 'node:crypto';
import type { NoteKind } from '../../vault/files/vault.js';
import type { VaultEvent } from './file-events.js';
import type { NoteFacts } from '../../vault/scan/note-head.js';
import { RECORDER_STATES } from '../../sessions/recorder-states.js';

/**
 * The trigger rules of docs/design.md §2, as pure logic: given a file event, the note's
 * current content and what was known about it before, decide whether the daemon has work.
 * The daemon reacts to a change of state, not to every save, and never to its own writes.
 */

/** Reads the facts from a note's text; undefined when its frontmatter does not parse. */
export type FactsReader = (content: string) => NoteFacts | undefined;

export type Trigger =
  | { kind: 'summarize'; transcriptPath: string }
  | { kind: 'retry'; summaryPath: string };

export interface TriggerTrackerOptions {
  /** `Daemon.TriggerState`. */
  triggerState: string;
  kindOf(absPath: string): NoteKind | undefined;
  readFacts: FactsReader;
}

export function contentHash(content: string): string {
  return createHash('sha1').update(content).digest('hex');
}

/** `retry: true` as Obsidian's checkbox writes it; a quoted "true" is meant the same. */
export function isRetryRequested(facts: NoteFacts | undefined): boolean {
  return facts?.status === 'failed' && facts.retry === true;
}

/**
 * Distinct facts kept as one shared object each: the tracker knows every note a scan saw (12,000
 * of a 20,000-note vault), and nearly all of them are one of a few combinations (`finished`,
 * `done`, …): an object and two strings each would be about 1 MB of an idle daemon's heap
 * (docs/design.md §8). Bounded: past this many combinations, facts are kept as they come.
 */
const MAX_SHARED_FACTS = 256;

export class TriggerTracker {
  private readonly known = new Map<string, NoteFacts>();
  private readonly ownWrites = new Map<string, string>();
  private readonly shared = new Map<string, NoteFacts>();

  constructor(private readonly options: TriggerTrackerOptions) {}

  /**
   * The daemon wrote `content` to `absPath`: an event showing exactly this content is its own
   * echo, and what it wrote is the note's known state from now on (so a failure report the
   * daemon writes with `retry: false` is the baseline a person's tick is compared with).
   */
  noteOwnWrite(absPath: string, content: string): void {
    this.ownWrites.set(absPath, contentHash(content));
    const facts = this.options.readFacts(content);
    if (facts) this.known.set(absPath, this.share(facts));
  }

  /** What a scan found, so the first event after start is compared with it. */
  remember(absPath: string, facts: NoteFacts): void {
    this.known.set(absPath, this.share(facts));
  }

  /** The one frozen object for these facts (a copy of them). */
  private share(facts: NoteFacts): NoteFacts {
    const key = JSON.stringify([facts.state ?? null, facts.status ?? null, facts.retry ?? null]);
    const found = this.shared.get(key);
    if (found) return found;
    const copy = Object.freeze({ ...facts });
    if (this.shared.size < MAX_SHARED_FACTS) this.shared.set(key, copy);
    return copy;
  }

  /**
   * For a transcript's event: whether a recorder is still at it (its state one of the recorder's,
   * docs/design.md §8: the run process is started ahead); undefined for any other note. The
   * daemon's own writes count (the recorder's `session` calls write through it).
   */
  recording(event: VaultEvent, content: string | undefined): boolean | undefined {
    if (this.options.kindOf(event.path) !== 'transcript') return undefined;
    if (event.type === 'unlink' || content === undefined) return false;
    const state = this.options.readFacts(content)?.state;
    return typeof state === 'string' && (RECORDER_STATES as readonly string[]).includes(state);
  }

  /**
   * Whether a transcript showing `content` would start its summary by the rules of `onEvent`
   * (its state the trigger state, not known as such before, not the daemon's own write), without
   * taking it as known: the content of a raw event, before the write has settled (the run
   * process is started ahead on it, runs/finishing-ahead.ts). `onEvent` still decides.
   */
  wouldSummarize(absPath: string, content: string): boolean {
    if (this.options.kindOf(absPath) !== 'transcript' || this.isOwnWrite(absPath, content)) return false;
    return this.finishes(this.options.readFacts(content), this.known.get(absPath));
  }

  /** The transcript rule of `onEvent`: the trigger state reached, not known as such before. */
  private finishes(facts: NoteFacts | undefined, previous: NoteFacts | undefined): boolean {
    const wanted = this.options.triggerState;
    return facts?.state === wanted && previous?.state !== wanted;
  }

  private isOwnWrite(file: string, content: string): boolean {
    const own = this.ownWrites.get(file);
    return own !== undefined && own === contentHash(content);
  }

  knownFacts(absPath: string): NoteFacts | undefined {
    return this.known.get(absPath);
  }

  /**
   * Decide on one event. `content` is the note as read after the event (undefined when it is
   * gone again). Returns the trigger it fires, if any.
   */
  onEvent(event: VaultEvent, content: string | undefined): Trigger | undefined {
    const file = event.path;
    if (event.type === 'unlink' || content === undefined) {
      this.known.delete(file);
      this.ownWrites.delete(file);
      return undefined;
    }
    if (this.isOwnWrite(file, content)) return undefined;
    this.ownWrites.delete(file);
    const kind = this.options.kindOf(file);
    if (kind !== 'transcript' && kind !== 'summary') return undefined;
    const facts = this.options.readFacts(content);
    // A half-typed frontmatter says nothing: keep the last good state so fixing it is no flip.
    if (!facts) return undefined;
    const previous = this.known.get(file);
    this.known.set(file, this.share(facts));
    if (kind === 'transcript') return this.finishes(facts, previous) ? { kind: 'summarize', transcriptPath: file } : undefined;
    if (isRetryRequested(facts) && !isRetryRequested(previous)) return { kind: 'retry', summaryPath: file };
    return undefined;
  }
}


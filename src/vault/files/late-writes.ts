import { setTimeout as delay } from 'node:timers/promises';
import { WatchEnd } from './watch-end.js';
import { createRequire } from 'node:module';
import type * as Diff from 'diff';
import type { FileHandleLike } from './fs.js';
import { MeetingAssistantError } from '../../errors.js';

/**
 * Writes that land in a file after it was replaced (docs/design.md §1, "Changing notes that
 * people own"). A program that opened a note before the daemon renamed a new version over it
 * writes into the replaced file, which nobody will read again: an editor that rewrites in
 * place (truncate, then write) or appends with a handle it opened a moment earlier. On a
 * loaded machine that program can be descheduled for hundreds of milliseconds between its
 * open and its write, so the replaced file is watched for LATE_WATCH_MS after the update
 * returns, and what lands in it is merged into the file as it is then. A replaced file seen
 * empty, or holding a prefix of what it held, when that window ends has a write under way (an
 * editor's open with truncate, its write held up: a disk throttling writers can hold one for
 * seconds), so the watch of that file goes on until the write is complete, UNDER_WAY_MS at most.
 */

/**
 * The diff library, loaded at the first merge: the daemon's own process writes notes (imports,
 * sessions) but rarely merges, and keeps no module it does not use (docs/design.md §8).
 */
function diffLibrary(): typeof Diff {
  return createRequire(import.meta.url)('diff') as typeof Diff;
}

/** What a transform returns to leave the file as it is. */
export const UNCHANGED = Symbol('unchanged');

/** The change, applied to the content as it is now (undefined: the file does not exist). */
export type Transform = (current: string | undefined) => string | typeof UNCHANGED;

/** A late write that cannot be merged into the current file: the caller keeps it elsewhere (.trash). */
export class LateMergeError extends MeetingAssistantError {
  constructor() {
    // Not the person's mistake, yet handled: the late write is kept in .trash/ and logged.
    super('a late write to a replaced file does not apply to the file as it is now', true);
  }
}

/** One rename of a write: the file it replaced, still open, and the write's own change. */
export interface ReplacedFile {
  /** The replaced file (undefined: the write created the file). */
  handle?: FileHandleLike;
  /** What the replaced file held when compared (what a late write to it is measured against). */
  seen: string;
  /** This write's own change: made from `base`, it gave `next`. */
  base: string | undefined;
  next: string;
  /** The whole content renamed into place (`next` plus what others appended meanwhile). */
  written: string;
  /**
   * This rename wrote a late write's merge (a later attempt of the same update), not the
   * caller's change: the lines it lacks are a stale rewrite's, never the daemon's removals.
   */
  merge: boolean;
}

/** Whole file through a handle, from the start (the handle's position is not used). */
export async function readHandle(handle: FileHandleLike): Promise<string> {
  const chunks: Buffer[] = [];
  let position = 0;
  for (;;) {
    const buffer = Buffer.alloc(64 * 1024);
    const { bytesRead } = await handle.read(buffer, 0, buffer.length, position);
    if (bytesRead === 0) break;
    chunks.push(buffer.subarray(0, bytesRead));
    position += bytesRead;
  }
  return Buffer.concat(chunks).toString('utf8');
}

/**
 * The change a late write made to a replaced file (`seen` → `replaced`), as a transform of
 * the file as it is now; undefined when there is nothing to merge yet. A replaced content
 * that is a prefix of what was seen is a rewrite under way (truncated, partly written): it
 * is waited for, never merged (merging it would delete lines). An addition at the end is
 * appended; any other change is a line-based three-way merge (the diff seen → replaced
 * applied to the current content), which keeps both the person's lines and the daemon's.
 * When the diff does not apply (the lines around it changed meanwhile), the lines it added
 * that the file lacks are inserted after the line they followed (keepAddedLines); only when
 * that cannot be done either does the transform throw LateMergeError.
 */
export function lateMerge(seen: string, replaced: string): Transform | undefined {
  if (replaced === seen || seen.startsWith(replaced)) return undefined;
  if (replaced.startsWith(seen)) {
    const added = replaced.slice(seen.length);
    return (current) => (current ?? '') + added;
  }
  const { applyPatch, structuredPatch } = diffLibrary();
  const patch = structuredPatch('replaced', 'replaced', seen, replaced, undefined, undefined, { context: 3 });
  return (current) => {
    if (current === undefined) throw new LateMergeError();
    const merged = applyPatch(current, patch, { fuzzFactor: 2 }) || keepAddedLines(seen, replaced, current);
    if (merged === false) throw new LateMergeError();
    return merged;
  };
}

/** Index of the line closing a leading frontmatter block (0 when there is none). */
function frontmatterEnd(lines: string[]): number {
  if (lines[0]?.trimEnd() !== '---') return 0;
  const end = lines.findIndex((l, i) => i > 0 && l.trimEnd() === '---');
  return end < 0 ? lines.length : end;
}

/**
 * The union fallback of a three-way merge: every line `target` added to `base` that
 * `current` lacks is inserted into `current` after the nearest line it followed in
 * `target` (at the end when none is left). A missing line inside the frontmatter is not
 * inserted (a second `attendees:` would make the note unreadable): false.
 */
export function keepAddedLines(base: string, target: string, current: string): string | false {
  const had = new Set(base.split('\n'));
  const lines = target.split('\n');
  const out = current.split('\n');
  const present = new Set(out);
  const fmEnd = frontmatterEnd(lines);
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i]!;
    if (line.trim() === '' || had.has(line) || present.has(line)) continue;
    if (i <= fmEnd && fmEnd > 0) return false;
    let at = -1;
    for (let j = i - 1; j >= 0 && at < 0; j--) if (lines[j]!.trim() !== '') at = out.lastIndexOf(lines[j]!);
    // After its anchor, else at the end (before the final newline's empty piece).
    const pos = at >= 0 ? at + 1 : out[out.length - 1] === '' ? out.length - 1 : out.length;
    out.splice(pos, 0, line);
    present.add(line);
  }
  return out.join('\n');
}

const linesOf = (text: string) => text.split(/\r?\n/).filter((l) => l.trim() !== '');

/** The non-blank lines of `next` that `base` lacks (what a write added). */
export function addedLines(base: string | undefined, next: string): string[] {
  const had = new Set(linesOf(base ?? ''));
  return linesOf(next).filter((l) => !had.has(l));
}

/**
 * An editor that rewrites a whole file from what it read a moment earlier (read, then
 * open with truncate, then write) puts back the old content over a write of the daemon
 * that landed in between: the daemon's lines vanish, and so do lines it had merged from a
 * replaced file. This transform puts a write's own change (`base` → `next`) back when the
 * file as it is now lacks every line that change added, except lines a later write of the
 * daemon itself removed (`removedSince`: those are gone on purpose). Undefined when the
 * change added no line.
 */
export function restoreOwn(base: string | undefined, next: string, removedSince: () => Set<string>): Transform | undefined {
  const added = addedLines(base, next);
  const merge = lateMerge(base ?? '', next);
  if (added.length === 0 || !merge) return undefined;
  return (current) => {
    if (current === undefined) return UNCHANGED;
    const present = new Set(linesOf(current));
    const removed = removedSince();
    if (added.some((l) => present.has(l)) || added.every((l) => removed.has(l))) return UNCHANGED;
    return merge(current);
  };
}

/** How long a replaced file is watched after the update returns (sum of the polling intervals). */
export const LATE_WATCH_MS = 2000;
/**
 * How long, at most, a watch goes on past its window while the replaced file holds a rewrite
 * under way (empty, or a prefix of what it held): the editor's write that truncated it is
 * still to come, and it would land where nobody reads again.
 */
export const UNDER_WAY_MS = 30_000;
const FIRST_POLL_MS = 5;
const MAX_POLL_MS = 200;
/** A write seen under way is read again until it holds still for this long. */
const SETTLE_MS = 5;
const SETTLE_CHECKS = 40;

export interface StillOptions {
  /** A read already made (else the first read is made here). */
  first?: string;
  /** Pause between reads of a changing content (0: read again at once). */
  pauseMs: number;
  /** Pause while the content is empty: an editor's truncate, its write still to come. */
  emptyPauseMs: number;
  checks: number;
  /** An empty content can be the real one (else it is waited out, within `checks`). */
  emptyIsStill: boolean;
}

/**
 * The handle's content once two reads agree: a read racing a write can see its first part
 * only, or nothing (truncated, not yet written). Bounded by `checks`; then the last read.
 */
export async function readWhenStill(handle: FileHandleLike, options: StillOptions): Promise<string> {
  let previous = options.first ?? (await readHandle(handle));
  for (let i = 0; i < options.checks; i++) {
    const pause = previous === '' ? options.emptyPauseMs : options.pauseMs;
    if (pause > 0) await delay(pause);
    const now = await readHandle(handle);
    if (now === previous && (now !== '' || options.emptyIsStill)) return now;
    previous = now;
  }
  return previous;
}

function wouldChange(transform: Transform, content: string): boolean {
  try {
    return transform(content) !== UNCHANGED;
  } catch {
    return true; // applied under the lock, where the failure is reported
  }
}

export interface WatchIo {
  /** The file as it is at its path now (undefined: gone). */
  readPath(): Promise<string | undefined>;
  /** Applies a transform to the file under its lock; `content` is a replaced content to keep when the merge throws. */
  apply(merge: Transform, content?: string): Promise<void>;
  /** Lines the daemon's own writes removed from the file since this one (see restoreOwn). */
  removedSince(): Set<string>;
}

/**
 * Watches a write for `windowMs` (polling, quickly at first, then every MAX_POLL_MS): late
 * writes into the replaced file, once they hold still, are merged into the file; a stale
 * rewrite of the file at its path that dropped this write's own lines gets them back
 * (restoreOwn). A rewrite of the replaced file seen under way keeps the watch of that file
 * (not of the path) going past the window until it is complete, UNDER_WAY_MS in all at most.
 * `finish` ends the watch early after one last look (a stopping daemon merges what has landed
 * instead of waiting the window out). Closes the handle.
 */
export async function watchReplaced(replaced: ReplacedFile, io: WatchIo, windowMs = LATE_WATCH_MS, finish = new WatchEnd()): Promise<void> {
  const { handle } = replaced;
  const restore = restoreOwn(replaced.base, replaced.next, io.removedSince);
  let seen = replaced.seen;
  let atPath = replaced.written;
  let interval = FIRST_POLL_MS;
  let underWay = false;
  const rewriteUnderWay = (content: string) => content !== seen && seen.startsWith(content);
  const goOn = (waited: number) => waited < windowMs || (underWay && waited < UNDER_WAY_MS);
  try {
    for (let waited = 0, last = false; !last && goOn(waited); waited += interval) {
      if (!finish.ended) await finish.sleep(interval);
      last = finish.ended; // this pass is the last
      interval = Math.min(interval * 2, MAX_POLL_MS);
      if (handle) {
        const now = await readHandle(handle);
        underWay = rewriteUnderWay(now);
        if (lateMerge(seen, now)) {
          const content = await readWhenStill(handle, {
            first: now,
            pauseMs: SETTLE_MS,
            emptyPauseMs: SETTLE_MS,
            checks: SETTLE_CHECKS,
            emptyIsStill: true,
          });
          const merge = lateMerge(seen, content);
          if (merge) {
            await io.apply(merge, content);
            seen = content;
            // Another write may follow soon (an editor saving again): look closely again.
            interval = FIRST_POLL_MS;
          } else underWay = rewriteUnderWay(content);
        }
      }
      // Past the window only the replaced file's rewrite is waited for: a person who removes the
      // daemon's lines after the window means it, as without a rewrite under way.
      if (!restore || waited >= windowMs) continue;
      const now = await io.readPath();
      if (now === undefined || now === atPath) continue;
      atPath = now;
      if (wouldChange(restore, now)) {
        await io.apply(restore);
        interval = FIRST_POLL_MS;
      }
    }
  } finally {
    await handle?.close().catch(() => undefined);
  }
}

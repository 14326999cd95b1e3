import path from 'node:path';
import { ToolError } from '../errors.js';
import type { ToolBinding } from '../binding/types.js';

/**
 * What the agent last saw of each file it edits by line numbers (docs/design.md §1): the
 * content when it last read or wrote the file. An edit by line numbers, or a whole-file
 * replacement, of a file someone else changed since is refused: the line numbers the agent
 * holds no longer mean what it thinks, and a replacement would erase what it never saw.
 */

function seenOf(ctx: ToolBinding): Map<string, string> {
  return (ctx.run.seen ??= new Map());
}

/** The agent now knows `content` as `abs` (a read, or its own write). */
export function rememberSeen(ctx: ToolBinding, abs: string, content: string): void {
  seenOf(ctx).set(path.resolve(abs), content);
}

/** Whether the agent has seen `abs` at all in this run. */
export function lastSeen(ctx: ToolBinding, abs: string): string | undefined {
  return seenOf(ctx).get(path.resolve(abs));
}

/**
 * Refuses when `current` is not what the agent last saw of `abs`. A file the agent never saw
 * passes; for one it must have read first, see requireReadAndUnchanged.
 */
export function requireUnchangedSinceSeen(ctx: ToolBinding, abs: string, current: string | undefined, readTool: string, what = ctx.vault.rel(abs)): void {
  const seen = lastSeen(ctx, abs);
  if (seen === undefined || seen === current) return;
  throw new ToolError(
    `${what} changed since you last read it (someone else edited it); read it again with ${readTool} and redo this edit with the current line numbers. Nothing was changed.`,
  );
}

/**
 * For an edit by line numbers or a whole-file replacement of an existing file: refuses when the
 * agent has not read (or written) it in this run, since its line numbers then come from
 * somewhere else (a search result, an earlier meeting) and may no longer match, and when it
 * changed since. `current` undefined (no file yet: a creation) passes.
 */
export function requireReadAndUnchanged(ctx: ToolBinding, abs: string, current: string | undefined, readTool: string, what = ctx.vault.rel(abs)): void {
  if (current === undefined) return;
  if (lastSeen(ctx, abs) === undefined) {
    throw new ToolError(
      `you have not read ${what} in this run; read it first with ${readTool}, then redo this edit with its current line numbers. Nothing was changed.`,
    );
  }
  requireUnchangedSinceSeen(ctx, abs, current, readTool, what);
}

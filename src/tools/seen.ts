import path from 'node:path';
import { ToolError } from './errors.js';
import type { ToolContext } from './types.js';

/**
 * What the agent last saw of each file it edits by line numbers (docs/design.md §1): the
 * content when it last read or wrote the file. An edit by line numbers, or a whole-file
 * replacement, of a file someone else changed since is refused: the line numbers the agent
 * holds no longer mean what it thinks, and a replacement would erase what it never saw.
 */

function seenOf(ctx: ToolContext): Map<string, string> {
  return (ctx.run.seen ??= new Map());
}

/** The agent now knows `content` as `abs` (a read, or its own write). */
export function rememberSeen(ctx: ToolContext, abs: string, content: string): void {
  seenOf(ctx).set(path.resolve(abs), content);
}

/** Whether the agent has seen `abs` at all in this run. */
export function lastSeen(ctx: ToolContext, abs: string): string | undefined {
  return seenOf(ctx).get(path.resolve(abs));
}

/** Refuses when `current` is not what the agent last saw of `abs` (a file it never saw passes). */
export function requireUnchangedSinceSeen(ctx: ToolContext, abs: string, current: string | undefined, readTool: string, what = ctx.vault.rel(abs)): void {
  const seen = lastSeen(ctx, abs);
  if (seen === undefined || seen === current) return;
  throw new ToolError(
    `${what} changed since you last read it (someone else edited it); read it again with ${readTool} and redo this edit with the current line numbers. Nothing was changed.`,
  );
}

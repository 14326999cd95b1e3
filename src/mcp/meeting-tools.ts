import { z } from 'zod';
import type { Settings } from '../config.js';
import { isExpectedError } from '../errors.js';
import type { Logger } from '../log.js';
import type { RunCaches } from '../tools/binding/run-caches.js';
import { SearchPlans } from '../tools/search/search-plans.js';
import type { Vault } from '../vault/files/vault.js';
import { listActionItems } from './list-action-items.js';
import { listMeetings } from './list-meetings.js';
import { MeetingIndex } from './meeting-index.js';
import { readMeeting } from './read-meeting.js';
import { searchMeetings } from './search-meetings.js';
import type { McpContext, McpTool, Scope } from './tool.js';

/**
 * The four read-only meeting tools of docs/design.md §10, bound once: the MCP server
 * (server.ts) registers them with the SDK, and `ask` (docs/design.md §11) offers the very
 * same definitions to its own agent run, so both answer alike and neither holds a copy.
 */

// The tools are generic in their shapes; the list is what both bindings iterate over.
export const MEETING_TOOLS: readonly McpTool<z.ZodRawShape>[] = [listMeetings, readMeeting, searchMeetings, listActionItems] as never;

export interface MeetingToolsOptions {
  vault: Vault;
  settings: Settings;
  log: Logger;
  caches: RunCaches;
  /** Told of every note a call read (docs/design.md §11: an answer's sources). */
  onRead?: (rel: string) => void;
}

export function createMeetingToolsContext(options: MeetingToolsOptions): McpContext {
  const { vault, caches } = options;
  const { Meetings, Summaries, Transcripts } = vault.layout.folders;
  return {
    vault,
    settings: options.settings,
    log: options.log,
    caches,
    index: new MeetingIndex(vault, caches.watch),
    plans: new SearchPlans<Scope>(caches.watch, [Meetings, Summaries, Transcripts]),
    ...(options.onRead ? { onRead: options.onRead } : {}),
  };
}

/** A call's answer: the text, or a tool error whose text starts with `Error: `. */
export interface MeetingToolAnswer {
  text: string;
  isError: boolean;
}

/**
 * One call with arguments already checked against the tool's shape. A refusal (a bad
 * pattern, a path outside the vault, an unknown meeting) is a tool error result, never a
 * throw: neither the MCP server nor a question fails because of one call.
 */
export async function callMeetingTool(
  tool: McpTool<z.ZodRawShape>,
  args: Record<string, unknown>,
  ctx: McpContext,
  signal: AbortSignal,
): Promise<MeetingToolAnswer> {
  const started = Date.now();
  // Nothing the call uses is let go while it runs; one idle minute after the last, it is (run-caches.ts).
  const release = ctx.caches.hold();
  try {
    const text = await tool.handler(args as never, ctx, signal);
    ctx.log.debug({ tool: tool.name, ms: Date.now() - started }, 'tool call');
    return { text, isError: false };
  } catch (err) {
    // The caller cancelled the call or went away: nobody waits for an answer, and nothing failed.
    if (signal.aborted) {
      ctx.log.info({ tool: tool.name, ms: Date.now() - started }, 'tool call cancelled by the client');
      return { isError: true, text: 'Error: the call was cancelled.' };
    }
    if (isExpectedError(err)) {
      ctx.log.info({ tool: tool.name, error: err.message }, 'tool call refused');
      return { isError: true, text: `Error: ${err.message}` };
    }
    ctx.log.error({ tool: tool.name, err }, 'tool call failed');
    const message = err instanceof Error ? err.message : String(err);
    return { isError: true, text: `Error: unexpected failure: ${message}` };
  } finally {
    release();
  }
}

/**
 * Arguments a model sent as JSON text, checked against the tool's shape as the MCP SDK
 * checks them: the parsed object, or what is wrong in words the model can act on.
 */
export function parseToolArguments(tool: McpTool<z.ZodRawShape>, raw: string): { args: Record<string, unknown> } | { error: string } {
  let value: unknown;
  try {
    value = raw.trim() === '' ? {} : JSON.parse(raw);
  } catch {
    return { error: `the arguments of ${tool.name} are not valid JSON: ${JSON.stringify(raw.slice(0, 200))}` };
  }
  const parsed = z.object(tool.shape).safeParse(value);
  if (parsed.success) return { args: parsed.data };
  const problems = parsed.error.issues.map((issue) => `${issue.path.join('.') || 'arguments'}: ${issue.message}`);
  return { error: `invalid arguments for ${tool.name}: ${problems.join('; ')}` };
}

/** The tool's JSON Schema, as the model endpoints take it (the MCP SDK derives its own from the same shape). */
export function meetingToolSchema(tool: McpTool<z.ZodRawShape>): { name: string; description: string; parameters: Record<string, unknown> } {
  const { $schema: _, ...parameters } = z.toJSONSchema(z.object(tool.shape)) as Record<string, unknown>;
  return { name: tool.name, description: tool.description, parameters };
}

import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import type { z } from 'zod';
import type { Settings } from '../config.js';
import { isExpectedError } from '../errors.js';
import type { Logger } from '../log.js';
import type { RunCaches } from '../tools/run-caches.js';
import { SearchPlans } from '../tools/search/search-plans.js';
import type { Vault } from '../vault/vault.js';
import { listActionItems } from './list-action-items.js';
import { listMeetings } from './list-meetings.js';
import { MeetingIndex } from './meeting-index.js';
import { readMeeting } from './read-meeting.js';
import { searchMeetings } from './search-meetings.js';
import type { McpContext, McpTool, Scope } from './tool.js';

/**
 * The meetings as an MCP server (docs/design.md §10): four read-only tools over the vault,
 * on the official SDK. Which transport carries it is the caller's business (stdio for
 * `meeting-assistant mcp`). A bad argument — one the schema refuses, an invalid pattern, a
 * path outside the vault, an unknown meeting — is a tool error result, never a failure of the
 * server; so is anything unexpected, which is also logged.
 */

export interface MeetingsServerOptions {
  vault: Vault;
  settings: Settings;
  log: Logger;
  version: string;
  caches: RunCaches;
}

const INSTRUCTIONS =
  'Past meetings from a Markdown vault: list_meetings to find them, read_meeting for a summary, transcript or notes, ' +
  'search_meetings for words across them, list_action_items for what people agreed to do. Paths are vault-relative.';

export function createMeetingsServer(options: MeetingsServerOptions): McpServer {
  const server = new McpServer({ name: 'meeting-assistant', version: options.version }, { instructions: INSTRUCTIONS });
  const { vault, caches } = options;
  const { Meetings, Summaries, Transcripts } = vault.layout.folders;
  const ctx: McpContext = {
    vault,
    settings: options.settings,
    log: options.log,
    caches,
    index: new MeetingIndex(vault, caches.watch),
    plans: new SearchPlans<Scope>(caches.watch, [Meetings, Summaries, Transcripts]),
  };
  register(server, listMeetings, ctx);
  register(server, readMeeting, ctx);
  register(server, searchMeetings, ctx);
  register(server, listActionItems, ctx);
  return server;
}

function register<S extends z.ZodRawShape>(server: McpServer, tool: McpTool<S>, ctx: McpContext): void {
  server.registerTool(
    tool.name,
    { description: tool.description, inputSchema: tool.shape, annotations: { readOnlyHint: true, openWorldHint: false } },
    // The SDK validates `args` with this same shape; its callback type cannot be named for a generic one.
    (async (args: z.infer<z.ZodObject<S>>, extra: { signal: AbortSignal }) => run(tool, args, ctx, extra.signal)) as never,
  );
}

async function run<S extends z.ZodRawShape>(tool: McpTool<S>, args: z.infer<z.ZodObject<S>>, ctx: McpContext, signal: AbortSignal): Promise<CallToolResult> {
  const started = Date.now();
  // Nothing the call uses is let go while it runs; one idle minute after the last, it is (run-caches.ts).
  const release = ctx.caches.hold();
  try {
    const text = await tool.handler(args, ctx, signal);
    ctx.log.debug({ tool: tool.name, ms: Date.now() - started }, 'tool call');
    return { content: [{ type: 'text', text }] };
  } catch (err) {
    // The client cancelled the call or went away (the SDK aborts the signal): nobody waits for an answer, and nothing failed.
    if (signal.aborted) {
      ctx.log.info({ tool: tool.name, ms: Date.now() - started }, 'tool call cancelled by the client');
      return { isError: true, content: [{ type: 'text', text: 'Error: the call was cancelled.' }] };
    }
    if (isExpectedError(err)) {
      ctx.log.info({ tool: tool.name, error: err.message }, 'tool call refused');
      return { isError: true, content: [{ type: 'text', text: `Error: ${err.message}` }] };
    }
    ctx.log.error({ tool: tool.name, err }, 'tool call failed');
    const message = err instanceof Error ? err.message : String(err);
    return { isError: true, content: [{ type: 'text', text: `Error: unexpected failure: ${message}` }] };
  } finally {
    release();
  }
}

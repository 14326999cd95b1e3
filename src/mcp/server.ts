import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import type { z } from 'zod';
import type { Settings } from '../config.js';
import type { Logger } from '../log.js';
import type { RunCaches } from '../tools/binding/run-caches.js';
import type { Vault } from '../vault/files/vault.js';
import { callMeetingTool, createMeetingToolsContext, MEETING_TOOLS, type MeetingToolAnswer } from './meeting-tools.js';
import type { McpContext, McpTool } from './tool.js';

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
  const ctx = createMeetingToolsContext(options);
  for (const tool of MEETING_TOOLS) register(server, tool, ctx);
  return server;
}

function register(server: McpServer, tool: McpTool<z.ZodRawShape>, ctx: McpContext): void {
  server.registerTool(
    tool.name,
    { description: tool.description, inputSchema: tool.shape, annotations: { readOnlyHint: true, openWorldHint: false } },
    // The SDK validates `args` with this same shape; its callback type cannot be named for a generic one.
    (async (args: Record<string, unknown>, extra: { signal: AbortSignal }) => answer(await callMeetingTool(tool, args, ctx, extra.signal))) as never,
  );
}

function answer({ text, isError }: MeetingToolAnswer): CallToolResult {
  return isError ? { isError: true, content: [{ type: 'text', text }] } : { content: [{ type: 'text', text }] };
}

import type { z } from 'zod';
import type { Settings } from '../config.js';
import type { Logger } from '../log.js';
import type { Vault } from '../vault/files/vault.js';
import type { MeetingIndex } from './meeting-index.js';
import type { RunCaches } from '../tools/binding/run-caches.js';
import type { SearchPlans } from '../tools/search/search-plans.js';

/** The files a search_meetings call covers, in result order, and how many of each kind. */
export interface Scope {
  files: string[];
  summaries: number;
  transcripts: number;
}

/** What every MCP tool gets: the vault read through the vault layer, its index, the settings. */
export interface McpContext {
  vault: Vault;
  settings: Settings;
  index: MeetingIndex;
  /** The caches the server owns for its life: the watch, the search workers and texts. */
  caches: RunCaches;
  /** search_meetings' plans, with the scope each covered. */
  plans: SearchPlans<Scope>;
  log: Logger;
  /** Told of every note a call read, for an answer's sources (docs/design.md §11); absent for MCP clients. */
  onRead?: (rel: string) => void;
}

/**
 * One tool of the MCP server (docs/design.md §10): its name, a short exact description, the
 * zod shape the SDK turns into its JSON schema and validates with, and the handler. A refusal
 * or a bad argument is thrown as a ToolError and becomes a tool error result (server.ts).
 */
export interface McpTool<S extends z.ZodRawShape> {
  name: string;
  description: string;
  shape: S;
  handler(args: z.infer<z.ZodObject<S>>, ctx: McpContext, signal: AbortSignal): Promise<string>;
}

export function defineMcpTool<S extends z.ZodRawShape>(tool: McpTool<S>): McpTool<S> {
  return tool;
}

/**
 * A list answered as JSON, one item a line: exact for a program, compact for a model's
 * context, still readable. `head` comes first (totals), `items` under `key`.
 */
export function jsonList(head: Record<string, unknown>, key: string, items: readonly unknown[]): string {
  const open = JSON.stringify({ ...head, [key]: [] }).slice(0, -3);
  if (items.length === 0) return `${open}[]}`;
  return `${open}[\n${items.map((item) => JSON.stringify(item)).join(',\n')}\n]}`;
}

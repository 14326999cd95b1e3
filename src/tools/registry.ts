import type { Settings } from '../config.js';
import { Audit } from '../audit.js';
import { type Logger, silentLogger } from '../log.js';
import type { ToolCall, ToolExecutor, ToolResult } from '../agent/types.js';
import { isExpectedError } from '../errors.js';
import type { MeetingArtifacts } from '../vault/notes/meeting.js';
import type { Vault } from '../vault/files/vault.js';
import { capResult, resultBudget } from './define/format.js';
import {
  addAttendee,
  readContext,
  readGlossary,
  readMeetingNote,
  readTranscript,
  readUserNotes,
  removeAttendee,
  writeContext,
  writeSummary,
} from './meeting/meeting.js';
import type { PastSummaryIndex } from './cache/past-index.js';
import { listPastProjectMeetings, readPastProjectMeetingSummary } from './projects/past-meetings.js';
import { listProjectFiles, listProjects, readProjectFile, writeProjectFile } from './projects/projects.js';
import { RunCaches } from './binding/run-caches.js';
import { search } from './search-tool.js';
import { addDictationWord, deleteIdentity, overrideSpeaker } from './meeting/speakers.js';
import type { AnyTool, RunState, ToolBinding } from './binding/types.js';

/**
 * The agent's tools, bound to one meeting. `call` never throws: an unknown tool, arguments
 * that are not JSON or do not fit, a refusal, or a handler's unexpected failure (EACCES…)
 * all come back as a tool result starting with `Error: `, so no tool call ends the run.
 */

export type ToolRegistry = ToolExecutor;

/** All nineteen tools, in the order of docs/design.md §4 (the order the model sees them). */
export const TOOLS: readonly AnyTool[] = [
  readMeetingNote,
  readTranscript,
  readContext,
  readUserNotes,
  readGlossary,
  addDictationWord,
  addAttendee,
  removeAttendee,
  overrideSpeaker,
  deleteIdentity,
  writeSummary,
  writeContext,
  listProjects,
  listProjectFiles,
  readProjectFile,
  writeProjectFile,
  listPastProjectMeetings,
  readPastProjectMeetingSummary,
  search,
];

export function createToolRegistry(ctx: ToolBinding, tools: readonly AnyTool[] = TOOLS): ToolRegistry {
  // A caller that builds the context by hand may leave the caches out: they are its own then.
  ctx.caches ??= new RunCaches(ctx.vault);
  ctx.pastSummaries ??= ctx.caches.pastSummaries;
  const byName = new Map(tools.map((t) => [t.name, t]));
  const schemas = tools.map(({ name, description, parameters }) => ({ name, description, parameters }));
  return {
    schemas,
    async call(call: ToolCall): Promise<ToolResult> {
      const started = performance.now();
      // The type says string; a client that hands over parsed arguments is still understood.
      const raw = typeof call.arguments === 'string' ? call.arguments : JSON.stringify(call.arguments ?? {});
      const tool = byName.get(call.name);
      let result: ToolResult;
      if (!tool) {
        result = error(`there is no tool named ${JSON.stringify(call.name)}. Available tools: ${[...byName.keys()].join(', ')}.`);
      } else if (ctx.signal?.aborted) {
        result = error('the run was cancelled; no more tool calls are carried out.');
      } else {
        // Nothing is released during a call; the idle period starts again after it.
        const done = ctx.caches.hold();
        try {
          result = { content: capResult(await tool.invoke(raw, ctx), resultBudget(ctx)), isError: false };
        } catch (err) {
          result = error(describeFailure(call.name, err));
          if (!isExpectedError(err)) ctx.log.warn({ tool: call.name, err }, 'tool failed unexpectedly');
        } finally {
          done();
        }
      }
      // At info the turn's one line names the calls (agent/turn-line.ts); the details are here.
      ctx.log.debug(
        { tool: call.name, args: summarizeArgs(raw), ok: !result.isError, ms: Math.round(performance.now() - started) },
        'tool call',
      );
      return result;
    },
  };
}

function error(message: string): ToolResult {
  return { content: `Error: ${message}`, isError: true };
}

function describeFailure(tool: string, err: unknown): string {
  if (isExpectedError(err)) return err.message;
  const e = err as { code?: unknown; message?: unknown };
  const code = typeof e?.code === 'string' ? ` (${e.code})` : '';
  const message = typeof e?.message === 'string' ? e.message : String(err);
  return `${tool} failed${code}: ${message}. Nothing was changed by this call; try another approach or continue without it.`;
}

/** Arguments for the log: short values as they are, long text as its length (never content). */
export function summarizeArgs(raw: string | undefined): Record<string, unknown> | string {
  if (raw === undefined || raw.trim() === '') return {};
  let value: unknown;
  try {
    value = JSON.parse(raw);
  } catch {
    return `<invalid JSON, ${raw.length} chars>`;
  }
  if (value === null || typeof value !== 'object' || Array.isArray(value)) return `<${typeof value}>`;
  const out: Record<string, unknown> = {};
  for (const [key, v] of Object.entries(value)) {
    if (typeof v === 'string') out[key] = key === 'content' || v.length > 80 ? `<${v.length} chars>` : v;
    else if (Array.isArray(v)) out[key] = v.length > 10 ? `<${v.length} items>` : v.map((x) => (typeof x === 'string' && x.length > 80 ? `<${x.length} chars>` : x));
    else out[key] = typeof v === 'object' && v !== null ? '<object>' : v;
  }
  return out;
}

export interface ToolBindingOptions {
  vault: Vault;
  settings: Settings;
  meeting: MeetingArtifacts;
  log?: Logger;
  /** Default: a new audit excluding this meeting's summary and context notes. */
  audit?: Audit;
  run?: RunState;
  /** Default: `caches.pastSummaries`. */
  pastSummaries?: PastSummaryIndex;
  /** The owner's caches (the daemon's, a command's); default: caches of this context alone. */
  caches?: RunCaches;
  signal?: AbortSignal;
  maxResultChars?: number;
  searchTimeoutMs?: number;
  searchMaxResults?: number;
}

/** A ToolBinding with the defaults filled in: what the pipeline builds for one run. */
export function createToolBinding(options: ToolBindingOptions): ToolBinding {
  const { vault, meeting } = options;
  const caches = options.caches ?? new RunCaches(vault);
  const ctx: ToolBinding = {
    vault,
    settings: options.settings,
    meeting,
    audit: options.audit ?? new Audit(vault, { excluded: [meeting.summaryPath, meeting.contextPath] }),
    log: options.log ?? silentLogger,
    run: options.run ?? { summaryWritten: false },
    caches,
    pastSummaries: options.pastSummaries ?? caches.pastSummaries,
  };
  if (options.signal) ctx.signal = options.signal;
  if (options.maxResultChars !== undefined) ctx.maxResultChars = options.maxResultChars;
  if (options.searchTimeoutMs !== undefined) ctx.searchTimeoutMs = options.searchTimeoutMs;
  if (options.searchMaxResults !== undefined) ctx.searchMaxResults = options.searchMaxResults;
  return ctx;
}

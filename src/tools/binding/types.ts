import type { Settings } from '../../config.js';
import type { Logger } from '../../log.js';
import type { Audit } from '../../audit.js';
import type { MeetingArtifacts } from '../../vault/notes/meeting.js';
import type { Vault } from '../../vault/files/vault.js';
import type { ToolSchema } from '../../agent/types.js';
import type { PastSummaryIndex } from '../cache/past-index.js';
import type { RunCaches } from './run-caches.js';

/** What one run's tools share: the meeting they are bound to and the services they use. */
export interface ToolBinding {
  vault: Vault;
  settings: Settings;
  meeting: MeetingArtifacts;
  /** Every write to a file other than this meeting's summary and context notes goes through it. */
  audit: Audit;
  log: Logger;
  /** Mutable run state the pipeline reads after the loop. */
  run: RunState;
  signal?: AbortSignal;
  /** Summary notes' frontmatter, shared between runs: `caches.pastSummaries` unless given. */
  pastSummaries: PastSummaryIndex;
  /** What the runs of this vault share (search workers and texts, plans, the index): run-caches.ts. */
  caches: RunCaches;
  /** Cap on one tool result in characters; longer reads are cut at a line boundary. Default 60 000. */
  maxResultChars?: number;
  /** Overrides `Agent.SearchTimeoutSeconds` (milliseconds). */
  searchTimeoutMs?: number;
  /** Overrides `Agent.SearchMaxResults`. */
  searchMaxResults?: number;
}

export interface RunState {
  /** Set by `write_summary`: a summary written in this run is never replaced by a failure report. */
  summaryWritten: boolean;
  /** The body of the summary `write_summary` last wrote in this run (the speaker-label checks read it). */
  summaryBody?: string;
  /** Title the agent supplied through `write_summary` when the meeting note has none. */
  agentTitle?: string;
  /** Labels `override_speaker` replaced with names in this run (label -> name): the summary must use the names. */
  speakerNames?: Map<string, string>;
  /** What the agent last read or wrote of each file it may edit by line numbers (tools/define/last-seen.ts). */
  seen?: Map<string, string>;
}

export interface ToolDefinition<Args = Record<string, unknown>> extends ToolSchema {
  /** Runs the tool on parsed arguments; a refusal is thrown as a ToolError. */
  handler(args: Args, ctx: ToolBinding): Promise<string>;
  /** Parses the raw argument text (coercing what is unambiguous), then runs the handler. */
  invoke(rawArguments: string, ctx: ToolBinding): Promise<string>;
}

/** A tool with its argument type erased, as the registry holds it. */
export type AnyTool = ToolSchema & Pick<ToolDefinition, 'invoke'>;

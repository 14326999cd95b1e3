import type { Settings } from '../config.js';
import type { Logger } from '../log.js';
import type { Audit } from '../audit.js';
import type { MeetingArtifacts } from '../vault/meeting.js';
import type { Vault } from '../vault/vault.js';
import type { ToolSchema } from '../agent/types.js';

/** What one run's tools share: the meeting they are bound to and the services they use. */
export interface ToolContext {
  vault: Vault;
  settings: Settings;
  meeting: MeetingArtifacts;
  audit: Audit;
  log: Logger;
  /** Mutable run state the pipeline reads after the loop. */
  run: RunState;
  signal?: AbortSignal;
}

export interface RunState {
  /** Set by `write_summary`: a summary written in this run is never replaced by a failure report. */
  summaryWritten: boolean;
  /** Title the agent supplied through `write_summary` when the meeting note has none. */
  agentTitle?: string;
}

export interface ToolResult {
  content: string;
  isError: boolean;
}

export interface ToolDefinition<Args = Record<string, unknown>> extends ToolSchema {
  handler(args: Args, ctx: ToolContext): Promise<string>;
}

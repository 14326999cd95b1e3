import type { AppConfig } from './config.js';
import type { Logger } from './log.js';
import type { ModelClient } from './agent/types.js';
import type { Vault } from './vault/vault.js';

/**
 * One meeting end to end: artifacts -> agent -> summary note or failure report.
 * (Skeleton: the implementation lands with the pipeline issue.)
 */

export interface PipelineDeps {
  vault: Vault;
  config: AppConfig;
  log: Logger;
  model: ModelClient;
  /** The clickable retry link for a summary note (vault-relative path). */
  retryUrl(summaryRelPath: string): string;
  now?: () => Date;
}

export interface RunOptions {
  signal?: AbortSignal;
  /** What started the run, for the logs: `transcript`, `catch-up`, `retry`, `cli`, `api`. */
  trigger?: string;
}

export interface RunOutcome {
  runId: string;
  status: 'done' | 'failed';
  /** Absolute paths, when they could be determined. */
  meetingPath?: string;
  summaryPath?: string;
  /** One line for people when failed. */
  error?: string;
}

export async function summarizeMeeting(_deps: PipelineDeps, _meetingPath: string, _options: RunOptions = {}): Promise<RunOutcome> {
  throw new Error('summarizeMeeting is not implemented yet');
}

export async function retrySummary(_deps: PipelineDeps, _summaryPath: string, _options: RunOptions = {}): Promise<RunOutcome> {
  throw new Error('retrySummary is not implemented yet');
}

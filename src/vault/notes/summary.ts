import path from 'node:path';
import { parseNote, renderFrontmatter } from '../format/frontmatter.js';
import { formatLink } from '../format/links.js';
import type { MeetingArtifacts } from './meeting.js';
import type { Vault } from '../files/vault.js';

/**
 * The summary note and the failure report written in its place (docs/design.md §1). Both
 * carry the same links and copied keys, so past-meeting tools and retry read either alike.
 */

export interface FailureDetails {
  type: string;
  status?: number;
  message: string;
  attempts?: number;
  /** Paragraphs for people: what happened in plain words and what to do (docs/design.md §2). */
  notes?: string[];
  /** Nothing answered at the endpoint: the daemon retries the report once it answers (`retry_when`). */
  retryWhenEndpointAnswers?: boolean;
}

/** The `retry_when` value of a failure report the daemon retries by itself once the endpoint answers. */
export const RETRY_WHEN_ENDPOINT = 'endpoint answers';

function nonEmpty(value: string | undefined): value is string {
  return value !== undefined && value.trim() !== '';
}

export interface SummaryNoteOptions {
  /** The agent's title, used when the meeting note has none. */
  agentTitle?: string;
  /** `action_items`: the task lines counted in the body; absent when they cannot be counted. */
  actionItems?: number;
}

/** Summary frontmatter keys in the contract's order (`action_items` just before `status`). */
export function summaryFrontmatter(
  vault: Vault,
  artifacts: MeetingArtifacts,
  options: SummaryNoteOptions = {},
): Record<string, unknown> {
  const data: Record<string, unknown> = {};
  const title = nonEmpty(artifacts.title) ? artifacts.title : options.agentTitle;
  if (nonEmpty(title)) data.title = title;
  if (nonEmpty(artifacts.startTime)) data.start_time = artifacts.startTime;
  if (nonEmpty(artifacts.endTime)) data.end_time = artifacts.endTime;
  data.projects = [...artifacts.projects];
  data.meeting = formatLink(vault, artifacts.meetingPath);
  data.transcript = formatLink(vault, artifacts.transcriptPath);
  data.context = formatLink(vault, artifacts.contextPath);
  if (options.actionItems !== undefined) data.action_items = options.actionItems;
  data.status = 'done';
  return data;
}

function withFinalNewline(body: string): string {
  return body === '' || body.endsWith('\n') ? body : `${body}\n`;
}

export function renderSummaryNote(
  vault: Vault,
  artifacts: MeetingArtifacts,
  body: string,
  options: SummaryNoteOptions = {},
): string {
  return renderFrontmatter(summaryFrontmatter(vault, artifacts, options)) + withFinalNewline(body);
}

/** `2026-11-30T10:04:05Z`: ISO 8601 UTC, no milliseconds. */
export function formatFailedAt(date: Date): string {
  return date.toISOString().replace(/\.\d+Z$/, 'Z');
}

/** A code span that survives backticks in the text. */
function code(text: string): string {
  const longest = Math.max(0, ...(text.match(/`+/g) ?? []).map((run) => run.length));
  const fence = '`'.repeat(longest + 1);
  return longest > 0 ? `${fence} ${text} ${fence}` : `${fence}${text}${fence}`;
}

function fenced(text: string): string {
  const longest = Math.max(0, ...(text.match(/`{3,}/g) ?? []).map((run) => run.length));
  const fence = '`'.repeat(Math.max(3, longest + 1));
  return `${fence}text\n${text.replace(/\r\n/g, '\n').replace(/\n+$/, '')}\n${fence}`;
}

export interface FailureReportInput {
  meetingPath: string;
  title?: string;
  startTime?: string;
  endTime?: string;
  projects?: string[];
  transcriptPath?: string;
  contextPath?: string;
  summaryPath: string;
}

/**
 * The failure report, written at the summary path. Only the artifacts known are linked,
 * so it also serves a broken meeting where only the meeting and summary paths are known.
 */
export function renderFailureReport(
  vault: Vault,
  input: FailureReportInput,
  details: FailureDetails,
  options: { retryUrl: string; failedAt: Date },
): string {
  const data: Record<string, unknown> = {};
  if (nonEmpty(input.title)) data.title = input.title;
  if (nonEmpty(input.startTime)) data.start_time = input.startTime;
  if (nonEmpty(input.endTime)) data.end_time = input.endTime;
  if (input.projects !== undefined) data.projects = [...input.projects];
  data.meeting = formatLink(vault, input.meetingPath);
  if (input.transcriptPath !== undefined) data.transcript = formatLink(vault, input.transcriptPath);
  if (input.contextPath !== undefined) data.context = formatLink(vault, input.contextPath);
  data.status = 'failed';
  data.retry = false;
  data.failed_at = formatFailedAt(options.failedAt);
  if (details.retryWhenEndpointAnswers) data.retry_when = RETRY_WHEN_ENDPOINT;

  const heading = nonEmpty(input.title) ? input.title.trim() : path.basename(input.meetingPath).replace(/\.md$/i, '');
  const artifact = (label: string, abs: string | undefined): string =>
    abs === undefined
      ? `- ${label}: unknown`
      : `- ${label}: ${code(vault.rel(abs))} (absolute: ${code(path.resolve(vault.root, abs))})`;

  const lines = [
    `# Summary failed: ${heading}`,
    '',
    `[Retry now](${options.retryUrl})`,
    '',
    'Setting `retry: true` in this note\'s properties (ticking the "retry" checkbox in Obsidian) retries too.',
    '',
    ...(details.notes ?? []).flatMap((note) => [note, '']),
    '## Error',
    '',
    `- Type: ${details.type}`,
    `- HTTP status: ${details.status ?? 'none (no HTTP response)'}`,
    ...(details.attempts !== undefined ? [`- Attempts: ${details.attempts}`] : []),
    '- Message:',
    '',
    fenced(details.message),
    '',
    '## Files',
    '',
    artifact('Meeting note', input.meetingPath),
    artifact('Transcript', input.transcriptPath),
    artifact('Context note', input.contextPath),
    artifact('Summary note (this report)', input.summaryPath),
    '',
  ];
  return renderFrontmatter(data) + lines.join('\n');
}

export interface SummaryStatus {
  status?: string;
  retry: boolean;
  /** The `meeting` link as written. */
  meeting?: string;
}

/**
 * The state a retry looks at; undefined when there is no note. `retry: "true"` (typed as
 * text) counts as ticked. A frontmatter that does not parse is a FrontmatterError.
 */
export async function readSummaryStatus(vault: Vault, summaryPath: string): Promise<SummaryStatus | undefined> {
  const content = await vault.readIfExists(summaryPath);
  if (content === undefined) return undefined;
  const data = parseNote(content, vault.rel(summaryPath)).data;
  const out: SummaryStatus = {
    retry: data.retry === true || (typeof data.retry === 'string' && data.retry.trim().toLowerCase() === 'true'),
  };
  if (typeof data.status === 'string' && data.status.trim() !== '') out.status = data.status.trim();
  if (typeof data.meeting === 'string' && data.meeting.trim() !== '') out.meeting = data.meeting;
  return out;
}

/** Whether a note's text is a failure report (`status: failed`); an unparsable note is not. */
export function isFailureReportText(text: string): boolean {
  try {
    const status = parseNote(text).data.status;
    return typeof status === 'string' && status.trim() === 'failed';
  } catch {
    return false;
  }
}

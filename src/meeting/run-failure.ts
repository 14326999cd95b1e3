import type { Clock } from '../clock.js';
import type { Logger } from '../log.js';
import { appendToContextBody, createContextNote } from '../vault/notes/context.js';
import { isNotFound } from '../vault/files/fs.js';
import type { MeetingArtifacts } from '../vault/notes/meeting.js';
import { type FailureDetails, type FailureReportInput, isFailureReportText, renderFailureReport } from '../vault/notes/summary.js';
import { keepReplacedSummary, keptSummaryNote } from '../vault/notes/replaced-summary.js';
import type { Vault } from '../vault/files/vault.js';

/**
 * How a run's failure reaches the vault, whatever went wrong (docs/design.md §3 step 4):
 * a failure report at the summary path, else, when even that cannot be written (a full disk,
 * a read-only folder), a log line that says so and the reason, which the outcome carries to
 * the status page and to the next catch-up. Nothing here throws: this is the last word of a
 * run, and a throw from it once left a meeting `summarizing` with nothing in the vault.
 */

export interface FailureWriter {
  vault: Vault;
  log: Logger;
  clock: Clock;
  /** The clickable retry link for a summary note (vault-relative path). */
  retryUrl(summaryRelPath: string): string;
}

/** What became of a failure: undefined when the report is written, else why it is not. */
export type ReportProblem = string | undefined;

/**
 * Write the failure report at the summary path. A file there that is not a failure report
 * (a good summary being retried, a note a person put there) is copied to `.trash/` first.
 * A write that fails is tried once more (a transient EBUSY, a sync tool's lock); the second
 * failure is the answer.
 */
export async function writeFailureReport(w: FailureWriter, input: FailureReportInput, details: FailureDetails): Promise<ReportProblem> {
  const { vault } = w;
  let last: unknown;
  for (let attempt = 1; attempt <= 2; attempt++) {
    try {
      // A good summary being regenerated: the report says where the copy is (docs/design.md §1).
      const kept = await keepReplacedSummary(vault, input.summaryPath);
      const notes = [...(details.notes ?? []), ...(kept ? [keptSummaryNote(vault, kept, input.summaryPath)] : [])];
      const report = renderFailureReport(vault, input, { ...details, notes }, {
        retryUrl: w.retryUrl(vault.rel(input.summaryPath)),
        failedAt: now(w.clock),
      });
      await vault.replace(input.summaryPath, report, (existing) => !isFailureReportText(existing) && existing !== kept?.content);
      return undefined;
    } catch (err) {
      last = err;
    }
  }
  const problem = reasonOf(last);
  safeLog(w.log, 'error', { err: last, summary: vault.rel(input.summaryPath) }, `could not write the failure report ${vault.rel(input.summaryPath)}: ${problem}; the meeting is tried again at the next catch-up`);
  return problem;
}

/** The line a context note gets when the failure report could not be written. */
export function unwrittenReportNote(vault: Vault, summaryPath: string, problem: string, at: Date): string {
  return (
    `## Error (${at.toISOString()})\n\nThe run failed and its failure report could not be written to ` +
    `${vault.rel(summaryPath)}: ${problem}. The daemon tries again at the next catch-up.`
  );
}

/** The audit (and any error note) and the final state land in one atomic write of the context note. */
export async function finishContext(
  vault: Vault,
  artifacts: MeetingArtifacts,
  state: 'finished' | 'error',
  appendix: string,
): Promise<void> {
  try {
    await appendToContextBody(vault, artifacts.contextPath, appendix, { state });
  } catch (err) {
    if (!isNotFound(err)) throw err;
    // A person moved or deleted the context note during the run: the final state and the audit
    // go to a new one where the meeting says it is, rather than nowhere (the run ended in an
    // exception and the meeting would have been run again at the next start).
    const body = appendix.trim() === '' ? '' : `${appendix.replace(/\s+$/, '')}\n`;
    await createContextNote(vault, artifacts, { state, body });
  }
}

/**
 * The context note's final state (with `note` appended), tried twice; a failure to say so is
 * logged, never thrown, and answered false (the note stays `summarizing`: the next start resumes).
 */
export async function settleContext(w: FailureWriter, artifacts: MeetingArtifacts, state: 'finished' | 'error', note: string): Promise<boolean> {
  for (let attempt = 1; attempt <= 2; attempt++) {
    try {
      await finishContext(w.vault, artifacts, state, note);
      return true;
    } catch (err) {
      if (attempt === 2) {
        safeLog(w.log, 'error', { err, context: w.vault.rel(artifacts.contextPath) }, `could not set the context note ${w.vault.rel(artifacts.contextPath)} to ${state}: ${reasonOf(err)}`);
      }
    }
  }
  return false;
}

/** What the run knows when its own bookkeeping throws: enough to say so in the vault. */
export interface LastResort {
  artifacts?: MeetingArtifacts;
  /** Finds the artifacts when the run had not yet (a throw before or during their resolution). */
  resolve?: () => Promise<MeetingArtifacts>;
  /** The agent wrote the summary in this run: it is never replaced by a failure report. */
  summaryWritten: boolean;
}

/**
 * The failure of a run whose normal failure path itself threw (a logger, a clock, an audit
 * that could not render): a plain report of that error, the context note `error`.
 */
export async function recordLastResort(w: FailureWriter, known: LastResort, err: unknown): Promise<ReportProblem> {
  const details: FailureDetails = { type: typeName(err), message: reasonOf(err) };
  safeLog(w.log, 'error', { err }, `run failed in its own bookkeeping: ${details.message}`);
  const artifacts = known.artifacts ?? (await known.resolve?.().catch(() => undefined));
  if (!artifacts) return 'the meeting\'s notes could not be found';
  let problem: ReportProblem;
  if (!known.summaryWritten) problem = await writeFailureReport(w, artifacts, details);
  const note = problem !== undefined
    ? unwrittenReportNote(w.vault, artifacts.summaryPath, problem, now(w.clock))
    : `## Error (${now(w.clock).toISOString()})\n\nThe run failed: ${details.type}: ${details.message}`;
  await settleContext(w, artifacts, 'error', note);
  return problem;
}

/** A log call that cannot throw (the logger may be what failed). */
export function safeLog(log: Logger, level: 'info' | 'warn' | 'error', fields: object, message: string): void {
  try {
    log[level](fields, message);
  } catch {
    try {
      process.stderr.write(`${message}\n`);
    } catch {
      // nowhere left to say it
    }
  }
}

/** The clock's time, or the system's when the injected clock throws. */
function now(clock: Clock): Date {
  try {
    const value = clock();
    if (value instanceof Date && !Number.isNaN(value.getTime())) return value;
  } catch {
    // fall through
  }
  return new Date();
}

function typeName(err: unknown): string {
  try {
    return err instanceof Error ? err.name || 'Error' : 'Error';
  } catch {
    return 'Error';
  }
}

/** `message (CODE)` of an error, safe against errors whose fields throw. */
export function reasonOf(err: unknown): string {
  try {
    if (err instanceof Error) {
      const code = (err as { code?: unknown }).code;
      return typeof code === 'string' && !err.message.includes(code) ? `${err.message} (${code})` : err.message;
    }
    return String(err);
  } catch {
    return 'an error that cannot be described';
  }
}

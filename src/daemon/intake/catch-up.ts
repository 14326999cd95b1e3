import path from 'node:path';
import type { Settings } from '../../config.js';
import type { Logger } from '../../log.js';
import type { Vault } from '../../vault/files/vault.js';
import type { VaultFiles } from '../../vault/format/links.js';
import { HeadCache } from '../../vault/scan/head-cache.js';
import { mapLimit } from '../../vault/files/concurrency.js';
import { STATE_FOLDER } from '../../vault/files/state.js';
import { EndpointReports } from './endpoint-reports.js';
import { contextOfMeeting, meetingOfNote, meetingOfTranscript, type TranscriptIndex, buildTranscriptIndex } from '../../vault/notes/locate-meeting.js';
import type { Job } from '../runs/queue.js';
import { UnreportedRuns } from './unreported-runs.js';
import { factsFromData, type NoteFacts } from '../../vault/scan/note-head.js';
import { isRetryRequested } from './triggers.js';

/**
 * Catch-up (docs/design.md §2): find the triggers the daemon missed while it was down or a
 * sync tool changed files without events, and the runs a crash left `summarizing`.
 * Only frontmatter is read, and only for notes changed since the previous scan.
 */

export interface CatchUpOptions {
  vault: Vault;
  settings: Settings;
  log: Logger;
  /** True while the queue holds (waiting or running) a job with this key. */
  isQueued(key: string): boolean;
  /** Told every transcript and summary state seen, so the watcher compares with it. */
  remember?(absPath: string, facts: NoteFacts): void;
  /** At the start, every transcript not in the trigger state: notes begun while it ran resume (docs/design.md §3 step 9). */
  onUnfinished?(transcriptPath: string): void;
  heads?: HeadCache;
  /**
   * The vault's files, for a meeting whose context link names a note not yet created (a link
   * looked for by name in the whole vault, docs/design.md §1): the daemon's listing
   * (vault/scan/vault-listing.ts), one look per scan instead of a walk per such meeting.
   * Default a walk.
   */
  files?: VaultFiles;
}

export interface ScanResult {
  jobs: Job[];
  /** Notes looked at, and how many of them had to be read. */
  checked: number;
  read: number;
  /** Problems worth a line in the log (broken links, unparsable notes). */
  problems: string[];
}

/** What one note of a scan yields: a job, a problem to log, or both (a broken meeting is still run once). */
type Found = { job: Job; signature: string } | { problem: string; job?: Job; signature?: string };

/** The catch-up's heads between scans, in the state folder. */
export const HEADS_FILE = 'catch-up-heads.json';

/** The frontmatter keys a scan needs: states and the links between a meeting's notes. */
export const SCAN_KEYS = ['state', 'status', 'retry', 'meeting', 'transcript', 'context', 'retry_when'] as const;

/** Notes looked at concurrently: file system latency, not CPU, is what a scan waits on. */
const SCAN_CONCURRENCY = 16;

/** The trigger of a job run again because its failure report could not be written. */
export const UNREPORTED_TRIGGER = 'catch-up (failure report not written)';

/** States after which catch-up leaves a meeting alone: done, or waiting for a person's retry. */
const SETTLED = new Set(['finished', 'error']);

export class CatchUp {
  readonly heads: HeadCache;
  /**
   * What each job's notes looked like when catch-up last enqueued it: a job that ends
   * without changing them (a broken meeting) is not re-run every few minutes.
   */
  private readonly attempted = new Map<string, string>();
  /** Jobs whose failure could not be reported (docs/design.md §3 step 4): run again at the next scan. */
  private readonly unreported: UnreportedRuns;

  private readonly endpointReports: EndpointReports;

  constructor(private readonly options: CatchUpOptions) {
    // Between scans the heads wait on disk: an idle daemon does not hold 16,000 of them (§8).
    this.heads = options.heads ?? new HeadCache(options.vault, SCAN_KEYS, path.join(options.vault.root, STATE_FOLDER, HEADS_FILE));
    this.endpointReports = new EndpointReports(options.vault, this.heads);
    this.unreported = new UnreportedRuns(options.vault, options.log);
  }

  /**
   * One scan. At `startup` every `summarizing` context note is stale (no run survives a
   * restart); later, ones the queue holds are live runs.
   */
  async scan({ startup = false }: { startup?: boolean } = {}): Promise<ScanResult> {
    const { vault } = this.options;
    const { folders } = vault.layout;
    const heads = this.heads;
    await heads.restore();
    heads.beginPass();
    let complete = false;
    try {
      const jobs = new Map<string, Job>();
      const signatures = new Map<string, string>();
      const problems: string[] = [];
      let index: Promise<TranscriptIndex> | undefined;
      const transcriptIndex = () => (index ??= buildTranscriptIndex(vault, heads));

      const add = (found: Found | undefined) => {
        if (!found) return;
        if ('problem' in found) {
          problems.push(found.problem);
          if (!found.job) return;
        }
        const { job, signature } = found as { job: Job; signature: string };
        if (jobs.has(job.key) || this.options.isQueued(job.key)) return;
        if (!startup && this.attempted.get(job.key) === signature) return;
        jobs.set(job.key, job);
        signatures.set(job.key, signature);
      };

      const list = async (folder: string, kind: 'transcript' | 'context' | 'summary') => {
        const all = await vault.listMarkdown(folder);
        heads.pruneUnder(folder, new Set(all));
        return all.filter((file) => vault.kindOf(file) === kind);
      };

      const listed = { transcripts: await list(folders.Transcripts, 'transcript'), contexts: await list(folders.Context, 'context'), summaries: await list(folders.Summaries, 'summary') };
      await heads.prefetch([...listed.transcripts, ...listed.contexts, ...listed.summaries]);

      const transcripts = await mapLimit(listed.transcripts, SCAN_CONCURRENCY, (t) => this.transcriptJob(t, startup, transcriptIndex));
      transcripts.forEach(add);

      const contexts = await mapLimit(listed.contexts, SCAN_CONCURRENCY, (c) => this.interruptedJob(c));
      contexts.forEach(add);

      const summaries = await mapLimit(listed.summaries, SCAN_CONCURRENCY, (m) => this.retryJob(m));
      summaries.forEach(add);

      for (const job of await this.unreported.take()) {
        // Queued already: kept, that job may yet be skipped. Run by this scan for another reason
        // (a context note left `summarizing`): that run's to report, added again should it fail
        // unreported; kept, it was run once more after its report was written.
        if (this.options.isQueued(job.key)) continue;
        await this.unreported.forget(job.key);
        if (jobs.has(job.key)) continue;
        jobs.set(job.key, { ...job, trigger: UNREPORTED_TRIGGER });
      }

      for (const [key, signature] of signatures) this.attempted.set(key, signature);
      complete = true;
      return { jobs: [...jobs.values()], checked: heads.stats.checked, read: heads.stats.read, problems };
    } finally {
      // A scan that threw midway did not look at everything: what it missed is kept.
      heads.endPass(complete);
      await heads.spill();
    }
  }

  /** A finished transcript whose meeting is not done and not waiting for a retry. */
  private async transcriptJob(transcript: string, startup: boolean, transcriptIndex: () => Promise<TranscriptIndex>): Promise<Found | undefined> {
    const { vault, settings } = this.options;
    const heads = this.heads;
    const head = await heads.get(transcript);
    if (!head) return undefined;
    // Its state cannot be known: never summarized until fixed, which a person must hear of.
    if (!head.ok) return { problem: `transcript not summarized while its frontmatter does not parse: ${head.error}` };
    const facts = factsFromData(head.data);
    this.options.remember?.(transcript, facts);
    if (facts.state !== settings.Daemon.TriggerState) {
      if (startup) this.options.onUnfinished?.(transcript);
      return undefined;
    }
    let meeting: string;
    try {
      meeting = await meetingOfTranscript(vault, transcript, { heads, transcriptIndex });
    } catch (err) {
      return { problem: `finished transcript not summarized: ${(err as Error).message}` };
    }
    let context;
    let problem: string | undefined;
    try {
      context = await contextOfMeeting(vault, meeting, heads, this.options.files);
    } catch (err) {
      // A broken meeting note: its run reports it (failure report) once, not every scan.
      problem = (err as Error).message;
    }
    if (context?.state && SETTLED.has(context.state)) return undefined;
    if (context?.state === 'summarizing' && !startup && this.options.isQueued(meeting)) return undefined;
    const job: Job = { key: meeting, kind: 'summarize', target: meeting, trigger: 'catch-up' };
    const signature = heads.signature([transcript, meeting, context?.path]);
    return problem === undefined ? { job, signature } : { problem, job, signature };
  }

  /** A run a crash interrupted: its context note still says `summarizing`. */
  private async interruptedJob(context: string): Promise<Found | undefined> {
    const { vault } = this.options;
    const heads = this.heads;
    const head = await heads.get(context);
    if (!head?.ok || typeof head.data.state !== 'string' || head.data.state.trim() !== 'summarizing') return undefined;
    try {
      const meeting = await meetingOfNote(vault, context, heads);
      return {
        job: { key: meeting, kind: 'summarize', target: meeting, trigger: 'catch-up' },
        signature: heads.signature([context, meeting]),
      };
    } catch (err) {
      return { problem: `interrupted run not resumed: ${(err as Error).message}` };
    }
  }

  /**
   * A failure report whose retry box is ticked, or one an unreachable endpoint caused
   * (`retry_when`, docs/design.md §2): retried once per start and once each time the endpoint
   * answers again, never abandoned; its run waits while the endpoint is still down.
   */
  private async retryJob(summary: string): Promise<Found | undefined> {
    const { vault } = this.options;
    const heads = this.heads;
    const head = await heads.get(summary);
    if (!head?.ok) return undefined;
    const facts = factsFromData(head.data);
    this.options.remember?.(summary, facts);
    const forEndpoint = !isRetryRequested(facts) && (await this.endpointReports.waitsForEndpoint(summary, head.data));
    if (!isRetryRequested(facts) && !(forEndpoint && !this.endpointRetried.has(summary))) return undefined;
    if (forEndpoint) this.endpointRetried.add(summary);
    const meeting = await meetingOfNote(vault, summary, heads).catch(() => undefined);
    return {
      job: { key: meeting ?? summary, kind: 'retry', target: summary, trigger: forEndpoint ? 'endpoint' : 'catch-up' },
      signature: forEndpoint ? `${heads.signature([summary, meeting])}#${this.endpointRound}` : heads.signature([summary, meeting]),
    };
  }

  /** Failure reports of an unreachable endpoint retried since it last answered again. */
  private readonly endpointRetried = new Set<string>();
  private endpointRound = 0;

  /** The endpoint answers again after being down: its failure reports are retried at the next scan. */
  endpointAnswersAgain(): void {
    this.endpointRetried.clear();
    this.endpointRound++;
  }

  /**
   * Forget that catch-up tried a meeting, so the next scan may enqueue it again: called when
   * a run of it ends successfully, after which anything new about it is a real change.
   */
  forget(key: string): void {
    this.attempted.delete(key);
    void this.unreported.forget(key);
  }

  /** A run ended without the failure report it needed: the next scan runs it again (after a restart too). */
  retryUnreported(job: Job): Promise<void> {
    this.attempted.delete(job.key);
    return this.unreported.add(job);
  }
}

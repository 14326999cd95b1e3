import cron from 'node-cron';
import type { Settings } from '../config.js';
import type { Logger } from '../log.js';
import type { Vault } from '../vault/vault.js';
import { HeadCache } from './heads.js';
import { contextOfMeeting, meetingOfNote, meetingOfTranscript, type TranscriptIndex, buildTranscriptIndex } from './locate.js';
import type { Job } from './queue.js';
import { factsFromData, isRetryRequested, type NoteFacts } from './triggers.js';

/**
 * Catch-up (DESIGN section 2): find the triggers the daemon missed while it was down or a
 * sync tool changed files without events, and the runs a crash left `summarizing`.
 * Only frontmatter is read, and only for notes changed since the previous scan.
 */

export interface ReconcileOptions {
  vault: Vault;
  settings: Settings;
  log: Logger;
  /** True while the queue holds (waiting or running) a job with this key. */
  isQueued(key: string): boolean;
  /** Told every transcript and summary state seen, so the watcher compares with it. */
  remember?(absPath: string, facts: NoteFacts): void;
  heads?: HeadCache;
}

export interface ScanResult {
  jobs: Job[];
  /** Notes looked at, and how many of them had to be read. */
  checked: number;
  read: number;
  /** Problems worth a line in the log (broken links, unparsable notes). */
  problems: string[];
}

/** States after which catch-up leaves a meeting alone: done, or waiting for a person's retry. */
const SETTLED = new Set(['finished', 'error']);

export class Reconciler {
  readonly heads: HeadCache;
  /**
   * What each job's notes looked like when catch-up last enqueued it: a job that ends
   * without changing them (a broken meeting) is not re-run every few minutes.
   */
  private readonly attempted = new Map<string, string>();

  constructor(private readonly options: ReconcileOptions) {
    this.heads = options.heads ?? new HeadCache(options.vault);
  }

  /**
   * One scan. At `startup` every `summarizing` context note is stale (no run survives a
   * restart); later, ones the queue holds are live runs.
   */
  async scan({ startup = false }: { startup?: boolean } = {}): Promise<ScanResult> {
    const { vault, settings } = this.options;
    const { folders } = vault.layout;
    const heads = this.heads;
    heads.resetStats();
    const jobs = new Map<string, Job>();
    const signatures = new Map<string, string>();
    const problems: string[] = [];
    let index: Promise<TranscriptIndex> | undefined;
    const transcriptIndex = () => (index ??= buildTranscriptIndex(vault, heads));

    const add = (job: Job, signature: string) => {
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

    // Finished transcripts whose meeting is not done and not waiting for a retry.
    for (const transcript of await list(folders.Transcripts, 'transcript')) {
      const head = await heads.get(transcript);
      if (!head?.ok) continue;
      const facts = factsFromData(head.data);
      this.options.remember?.(transcript, facts);
      if (facts.state !== settings.Daemon.TriggerState) continue;
      try {
        const meeting = await meetingOfTranscript(vault, transcript, { heads, transcriptIndex });
        let context;
        try {
          context = await contextOfMeeting(vault, meeting, heads);
        } catch (err) {
          // A broken meeting note: the run reports it (failure report) once, not every scan.
          problems.push((err as Error).message);
        }
        if (context?.state && SETTLED.has(context.state)) continue;
        if (context?.state === 'summarizing' && !startup && this.options.isQueued(meeting)) continue;
        add(
          { key: meeting, kind: 'summarize', target: meeting, trigger: 'catch-up' },
          heads.signature([transcript, meeting, context?.path]),
        );
      } catch (err) {
        problems.push(`finished transcript not summarized: ${(err as Error).message}`);
      }
    }

    // Runs a crash interrupted.
    for (const context of await list(folders.Context, 'context')) {
      const head = await heads.get(context);
      if (!head?.ok || typeof head.data.state !== 'string' || head.data.state.trim() !== 'summarizing') continue;
      try {
        const meeting = await meetingOfNote(vault, context, heads);
        add({ key: meeting, kind: 'summarize', target: meeting, trigger: 'catch-up' }, heads.signature([context, meeting]));
      } catch (err) {
        problems.push(`interrupted run not resumed: ${(err as Error).message}`);
      }
    }

    // Failure reports whose retry box is ticked.
    for (const summary of await list(folders.Summaries, 'summary')) {
      const head = await heads.get(summary);
      if (!head?.ok) continue;
      const facts = factsFromData(head.data);
      this.options.remember?.(summary, facts);
      if (!isRetryRequested(facts)) continue;
      const meeting = await meetingOfNote(vault, summary, heads).catch(() => undefined);
      add(
        { key: meeting ?? summary, kind: 'retry', target: summary, trigger: 'catch-up' },
        heads.signature([summary, meeting]),
      );
    }

    for (const [key, signature] of signatures) this.attempted.set(key, signature);
    return { jobs: [...jobs.values()], checked: heads.stats.checked, read: heads.stats.read, problems };
  }

  /**
   * Forget that catch-up tried a meeting, so the next scan may enqueue it again: called when
   * a run of it ends successfully, after which anything new about it is a real change.
   */
  forget(key: string): void {
    this.attempted.delete(key);
  }
}

export interface Schedule {
  stop(): void;
}

/** Run `task` on `Daemon.ReconcileSchedule`; a tick while the previous one still runs is skipped. */
export function scheduleReconcile(expression: string, task: () => Promise<void>, log: Logger): Schedule {
  if (!cron.validate(expression)) {
    throw new Error(`MeetingAssistant.Daemon.ReconcileSchedule: "${expression}" is not a valid cron expression`);
  }
  let running = false;
  const job = cron.schedule(
    expression,
    async () => {
      if (running) return;
      running = true;
      try {
        await task();
      } catch (err) {
        log.error({ err }, 'catch-up scan failed');
      } finally {
        running = false;
      }
    },
    {
      name: 'meeting-assistant-reconcile',
      noOverlap: true,
      // A laptop waking from sleep misses ticks; the next one catches up anyway.
      suppressMissedWarning: true,
      logger: {
        info: (message) => log.debug({ cron: true }, message),
        warn: (message) => log.debug({ cron: true }, message),
        error: (message, err) => log.warn({ err: err ?? message }, 'reconcile schedule error'),
        debug: (message) => log.trace({ cron: true }, String(message)),
      },
    },
  );
  return {
    stop() {
      void job.stop();
      void job.destroy();
    },
  };
}

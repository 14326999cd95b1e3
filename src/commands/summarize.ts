import path from 'node:path';
import { retrySummary, summarizeMeeting, type RunOutcome } from '../pipeline.js';
import { markCliRun } from '../daemon/cli-runs.js';
import { HeadCache } from '../daemon/heads.js';
import { liveDaemon } from '../daemon/instance.js';
import { meetingOfNote } from '../daemon/locate.js';
import { createRuntime } from '../runtime.js';
import { handOff } from './handoff.js';
import { CliError, type CommandDeps, EXIT_FAILED, EXIT_OK, EXIT_USAGE, type GlobalOptions, loadCommandConfig, withDefaults } from './common.js';

/** `summarize <meeting-note>`: one run now, then exit 0 (done) or 1 (failed). */
export async function summarize(note: string, opts: GlobalOptions, deps: Partial<CommandDeps> = {}): Promise<number> {
  return runOnce(note, opts, withDefaults(deps), 'meeting');
}

/** `retry <summary-note>`: the retry operation for one summary note, then exit. */
export async function retry(note: string, opts: GlobalOptions, deps: Partial<CommandDeps> = {}): Promise<number> {
  return runOnce(note, opts, withDefaults(deps), 'summary');
}

async function runOnce(note: string, opts: GlobalOptions, deps: CommandDeps, kind: 'meeting' | 'summary'): Promise<number> {
  const { io } = deps;
  const config = await loadCommandConfig(opts, deps);
  const runtime = await createRuntime(config, { fs: deps.fs, clock: deps.clock });
  const { vault } = runtime;
  const file = path.resolve(vault.root, note);
  if (!vault.contains(file)) throw new CliError(`${note} is not inside the vault ${vault.root}`, EXIT_USAGE);
  if (!(await vault.exists(file))) throw new CliError(`no such note: ${vault.rel(file)}`, EXIT_USAGE);
  if (kind === 'summary' && vault.kindOf(file) !== 'summary') {
    throw new CliError(`${vault.rel(file)} is not in the summaries folder (${vault.rel(config.layout.folders.Summaries)})`, EXIT_USAGE);
  }
  const daemon = await liveDaemon(vault);
  if (daemon) return handOff({ daemon, token: runtime.token, kind: kind === 'meeting' ? 'summarize' : 'retry', note: vault.rel(file) }, deps);
  // A daemon started while this runs leaves the meeting to it (the queue's key: the meeting).
  const key = kind === 'meeting' ? file : await meetingOfNote(vault, file, new HeadCache(vault)).catch(() => file);
  const marker = await markCliRun(vault, key, kind === 'meeting' ? 'summarize' : 'retry', deps.clock);
  const abort = new AbortController();
  const onSignal = () => abort.abort();
  process.once('SIGINT', onSignal);
  process.once('SIGTERM', onSignal);
  let outcome: RunOutcome;
  try {
    outcome =
      kind === 'meeting'
        ? await summarizeMeeting(runtime.pipeline, file, { signal: abort.signal, trigger: 'cli' })
        : await retrySummary(runtime.pipeline, file, { signal: abort.signal, trigger: 'cli' });
  } finally {
    process.off('SIGINT', onSignal);
    process.off('SIGTERM', onSignal);
    // The command owns the run's caches: its worker threads end with it.
    runtime.caches.close();
    await marker.release();
  }
  const summary = outcome.summaryPath ? vault.rel(outcome.summaryPath) : undefined;
  if (outcome.status === 'done') {
    io.out(`summary: ${summary}`);
    return EXIT_OK;
  }
  io.err(`failed: ${outcome.error ?? 'unknown error'}`);
  if (summary) io.err(`failure report: ${summary}`);
  return EXIT_FAILED;
}

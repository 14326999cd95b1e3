import { retrySummary, summarizeMeeting, type RunOutcome } from '../meeting/pipeline.js';
import { markCliRun } from '../instance/cli-run-marker.js';
import { HeadCache } from '../vault/scan/head-cache.js';
import { liveDaemon } from '../instance/daemon-claim.js';
import { machineName } from '../instance/machine-name.js';
import { machinesNow, runsElsewhere } from '../instance/machines-now.js';
import { meetingOfNote } from '../vault/notes/locate-meeting.js';
import { createRuntime } from '../runtime.js';
import { handOff } from './handoff.js';
import { noteArgument } from './note-argument.js';
import { isExpectedError } from '../errors.js';
import { resolveMeeting } from '../vault/notes/meeting.js';
import type { Vault } from '../vault/files/vault.js';
import { CliError, type CommandDeps, EXIT_FAILED, EXIT_OK, EXIT_USAGE, type GlobalOptions, loadCommandConfig, withDefaults } from './common.js';

/** `summarize <meeting-note>`: one run now, then exit 0 (done) or 1 (failed). */
export async function summarize(note: string, opts: GlobalOptions, deps: Partial<CommandDeps> = {}): Promise<number> {
  return runOnce(note, opts, withDefaults(deps), 'meeting');
}

/** `retry <summary-note>`: the retry operation for one summary note, then exit. */
export async function retry(note: string, opts: GlobalOptions, deps: Partial<CommandDeps> = {}): Promise<number> {
  return runOnce(note, opts, withDefaults(deps), 'summary');
}

/** The existing summary note (or failure report) of a meeting, for `retry <meeting note>`. */
async function summaryOfMeeting(vault: Vault, meeting: string): Promise<string> {
  let summary: string;
  try {
    summary = (await resolveMeeting(vault, meeting, { writeBack: false })).summaryPath;
  } catch (err) {
    if (isExpectedError(err)) throw new CliError((err as Error).message, EXIT_USAGE);
    throw err;
  }
  if (!(await vault.exists(summary))) {
    throw new CliError(`${vault.rel(meeting)} has no summary note yet (${vault.rel(summary)}); to make one: meeting-assistant summarize "${vault.rel(meeting)}"`, EXIT_USAGE);
  }
  return summary;
}

async function runOnce(note: string, opts: GlobalOptions, deps: CommandDeps, kind: 'meeting' | 'summary'): Promise<number> {
  const { io } = deps;
  const config = await loadCommandConfig(opts, deps);
  const runtime = await createRuntime(config, { fs: deps.fs, clock: deps.clock });
  const { vault } = runtime;
  const named = await noteArgument(vault, note, deps.cwd, kind === 'meeting' ? ['meeting'] : ['summary', 'meeting']);
  // `retry <meeting note>`: the retry of that meeting's summary note.
  const file = kind === 'summary' && vault.kindOf(named) === 'meeting' ? await summaryOfMeeting(vault, named) : named;
  if (kind === 'summary' && vault.kindOf(file) !== 'summary') {
    throw new CliError(`${vault.rel(file)} is not in the summaries folder (${vault.rel(config.layout.folders.Summaries)})`, EXIT_USAGE);
  }
  const machine = machineName(config.settings.Daemon.MachineName);
  const daemon = await liveDaemon(vault, { env: deps.env });
  // Another machine runs the vault: a run here would write the notes it writes (docs/design.md §2).
  const elsewhere = daemon ? undefined : runsElsewhere(await machinesNow(vault, machine, deps.clock, { env: deps.env }));
  if (elsewhere) {
    throw new CliError(
      `${elsewhere}: it summarizes finished meetings itself. To run this one now, run the command on that machine; a failure report's retry can also be ticked here (retry: true), the sync tool carries it there`,
      EXIT_FAILED,
    );
  }
  if (daemon) return handOff({ daemon, token: runtime.token, kind: kind === 'meeting' ? 'summarize' : 'retry', note: vault.rel(file) }, deps);
  // A daemon started while this runs leaves the meeting to it (the queue's key: the meeting).
  const key = kind === 'meeting' ? file : await meetingOfNote(vault, file, new HeadCache(vault)).catch(() => file);
  const marker = await markCliRun(vault, key, kind === 'meeting' ? 'summarize' : 'retry', deps.clock, deps.env);
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

import { createReadStream } from 'node:fs';
import path from 'node:path';
import { Readable } from 'node:stream';
import { type DaemonInstance, liveDaemon } from '../instance/daemon-claim.js';
import { machineName } from '../instance/machine-name.js';
import { machinesNow, runsElsewhere } from '../instance/machines-now.js';
import { ImportError } from '../import/cues.js';
import { isAccepted } from '../import/formats/index.js';
import { importFile, type ImportOutcome, recoverImports } from '../import/importer.js';
import { commandTranscriber } from '../import/transcribe.js';
import { ensureHttpToken } from '../vault/files/state.js';
import { Vault } from '../vault/files/vault.js';
import { awaitOutcome, proveDaemon } from './handoff.js';
import { summarize } from './summarize.js';
import { CliError, type CommandDeps, EXIT_FAILED, EXIT_OK, EXIT_USAGE, type GlobalOptions, loadCommandConfig, withDefaults } from './common.js';

/**
 * `import <file>... [--title T] [--projects a,b] [--start ISO]` (docs/design.md §6, §9): each
 * file is imported as a meeting (copied: the original stays where it is), `meeting: <path>`
 * printed, then the summaries are made as `summarize` makes them. With a daemon running, the
 * file goes to it (`POST /api/import`) and the command waits for the run the daemon starts.
 */

export interface ImportOptions extends GlobalOptions {
  title?: string;
  projects?: string;
  start?: string;
}

function startOf(value: string | undefined): Date | undefined {
  if (value === undefined || value.trim() === '') return undefined;
  const date = new Date(value);
  if (!Number.isFinite(date.getTime())) throw new CliError(`--start must be an ISO 8601 time like 2026-12-02T10:00:00+01:00, not "${value}"`, EXIT_USAGE);
  return date;
}

export async function importFiles(files: string[], opts: ImportOptions, given: Partial<CommandDeps> = {}): Promise<number> {
  const deps = withDefaults(given);
  const config = await loadCommandConfig(opts, deps);
  const vault = new Vault(deps.fs, config.layout);
  const start = startOf(opts.start);
  const projects = opts.projects === undefined ? undefined : opts.projects.split(',').map((p) => p.trim()).filter(Boolean);
  const paths = files.map((f) => path.resolve(deps.cwd, f));
  for (const file of paths) {
    if (!isAccepted(file)) throw new CliError(`${file}: not a transcript or recording the import reads (see docs/importing.md)`, EXIT_USAGE);
  }
  const machine = machineName(config.settings.Daemon.MachineName);
  const daemon = await liveDaemon(vault, { env: deps.env });
  // Another machine runs the vault: it imports what is dropped into the inbox (docs/design.md §2).
  const elsewhere = daemon ? undefined : runsElsewhere(await machinesNow(vault, machine, deps.clock, { env: deps.env }));
  if (elsewhere) throw new CliError(`${elsewhere}: import there, or drop the files into ${vault.rel(config.layout.folders.Inbox)}, which the sync tool carries there`, EXIT_FAILED);
  const meetings: string[] = [];
  let failed = false;
  const token = daemon ? await ensureHttpToken(vault, config.settings.Http) : '';
  const asked = deps.clock().toISOString();
  if (!daemon) await recoverImports(vault, deps.clock);
  const transcribe = commandTranscriber({ command: config.settings.Import.TranscribeCommand, timeoutSeconds: config.settings.Import.TranscribeTimeoutSeconds });
  for (const file of paths) {
    let outcome: ImportOutcome;
    try {
      outcome = daemon
        ? await upload(daemon, token, file, { title: opts.title, projects: opts.projects, start: start?.toISOString() })
        : await importFile({ vault, clock: deps.clock, ...(transcribe ? { transcribe } : {}) }, { file, keep: 'copy', title: opts.title, projects, start });
    } catch (err) {
      if (!(err instanceof ImportError)) throw err;
      deps.io.err(`import failed: ${err.message}${err.hint ? `; ${err.hint}` : ''}${err.stderr ? `\n${err.stderr}` : ''}`);
      failed = true;
      continue;
    }
    deps.io.out(`meeting: ${outcome.meeting}`);
    if (outcome.kind === 'duplicate') deps.io.err(`${path.basename(file)} was imported before as ${outcome.meeting}; not imported again`);
    else {
      meetings.push(outcome.meeting);
      // A daemon that predates the report sends none.
      for (const line of Array.isArray(outcome.unread) ? outcome.unread : []) deps.io.err(`${path.basename(file)}: ${line}`);
    }
  }
  for (const meeting of meetings) {
    const code = daemon
      ? await awaitOutcome({ daemon, token, kind: 'summarize', note: meeting, meeting }, asked, deps)
      : await summarize(meeting, opts, deps);
    if (code !== EXIT_OK) failed = true;
  }
  return failed ? EXIT_FAILED : EXIT_OK;
}

/** The file as the body of `POST /api/import`, streamed from disk. */
async function upload(daemon: DaemonInstance, token: string, file: string, q: { title?: string; projects?: string; start?: string }): Promise<ImportOutcome> {
  if (!daemon.http) throw new CliError(`a daemon (pid ${daemon.pid}) runs on this vault with its HTTP API off; enable Http in its configuration, or stop it and import again`, EXIT_FAILED);
  const params = new URLSearchParams({ name: path.basename(file) });
  for (const [key, value] of Object.entries(q)) if (value !== undefined && value !== '') params.set(key, value);
  await proveDaemon(daemon.http, token);
  let res: Response;
  try {
    res = await fetch(`${daemon.http}/api/import?${params.toString()}`, {
      method: 'POST',
      headers: { authorization: `Bearer ${token}`, 'content-type': 'application/octet-stream' },
      body: Readable.toWeb(createReadStream(file)) as ReadableStream<Uint8Array>,
      duplex: 'half',
    } as RequestInit);
  } catch (err) {
    throw new CliError(`could not send ${file} to the daemon (pid ${daemon.pid}, ${daemon.http}): ${(err as Error).message}`, EXIT_FAILED);
  }
  const body = (await res.json().catch(() => ({}))) as Record<string, unknown>;
  if (res.status === 400 || res.status === 413) throw new ImportError(`${path.basename(file)}: ${String(body.error ?? `HTTP ${res.status}`)}`, '');
  if (res.status !== 201 && res.status !== 200) throw new CliError(`the daemon (pid ${daemon.pid}) did not import ${file}: ${String(body.error ?? `HTTP ${res.status}`)}`, EXIT_FAILED);
  return body as unknown as ImportOutcome;
}

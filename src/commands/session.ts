import { parseProjects, SessionError, setSessionState, startSession, stopSession } from '../daemon/sessions.js';
import { nodeFs } from '../vault/fs.js';
import { Vault } from '../vault/vault.js';
import { CliError, EXIT_FAILED, EXIT_OK, EXIT_USAGE, type GlobalOptions, type Io, loadCommandConfig, processIo } from './common.js';

/**
 * `session start|state|stop` (DESIGN section 6): what a recorder or transcriber calls. The
 * notes are written directly; a running daemon sees them through its watcher.
 */

/** `session start`'s options (the command line is in src/cli.ts). */
export interface SessionStartOptions extends GlobalOptions {
  title: string;
  projects?: string;
  agenda?: string;
  scheduledEnd?: string;
}

async function openVault(opts: GlobalOptions): Promise<Vault> {
  const config = await loadCommandConfig(opts);
  return new Vault(nodeFs, config.layout);
}

function toCliError(err: unknown): never {
  if (err instanceof SessionError) throw new CliError(err.message, err.kind === 'usage' ? EXIT_USAGE : EXIT_FAILED);
  throw err;
}

export async function sessionStart(opts: SessionStartOptions, io: Io = processIo): Promise<number> {
  const vault = await openVault(opts);
  const notes = await startSession(vault, {
    title: opts.title,
    projects: parseProjects(opts.projects),
    ...(opts.agenda !== undefined && { agenda: opts.agenda }),
    ...(opts.scheduledEnd !== undefined && { scheduledEnd: opts.scheduledEnd }),
  }).catch(toCliError);
  io.out(`meeting: ${notes.meeting}`);
  io.out(`transcript: ${notes.transcript}`);
  io.out(`context: ${notes.context}`);
  return EXIT_OK;
}

export async function sessionState(note: string, state: string, opts: GlobalOptions, io: Io = processIo): Promise<number> {
  const vault = await openVault(opts);
  const change = await setSessionState(vault, note, state).catch(toCliError);
  io.out(`${change.context}: state ${change.state}`);
  return EXIT_OK;
}

export async function sessionStop(note: string, opts: GlobalOptions, io: Io = processIo): Promise<number> {
  const vault = await openVault(opts);
  const result = await stopSession(vault, note).catch(toCliError);
  io.out(`${result.meeting}: end_time ${result.end_time}`);
  if (result.context) io.out(`${result.context}: end_time ${result.end_time}`);
  return EXIT_OK;
}

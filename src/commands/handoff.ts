import { setTimeout as delay } from 'node:timers/promises';
import { localDateTime } from '../clock.js';
import type { DaemonInstance } from '../instance/daemon-claim.js';
import { daemonProof, NotOurDaemonError } from '../instance/daemon-proof.js';
import { CliError, type CommandDeps, EXIT_FAILED, EXIT_OK, EXIT_USAGE, type Io } from './common.js';

/**
 * `summarize` / `retry` while a daemon runs on the vault (docs/design.md §2): the work goes to
 * that daemon through its HTTP API (`POST /api/summarize` or `POST /api/retry`), so a
 * meeting never runs twice at once; the command then polls `GET /api/status` until the run it
 * asked for has finished, and exits as if it had run the meeting itself.
 */

export interface HandOff {
  daemon: DaemonInstance;
  token: string;
  kind: 'summarize' | 'retry';
  /** Vault-relative note: the meeting note (summarize) or the summary note (retry). */
  note: string;
  /** How often to ask for the outcome. */
  pollMs?: number;
  /** Give up when the daemon has neither listed the run nor reported its outcome for this long. */
  lostMs?: number;
  /** Give up waiting after this long in all (the run goes on in the daemon). */
  waitMs?: number;
}

/** The daemon neither lists the run nor has its outcome: it was lost (30 s, ~120 polls). */
const LOST_MS = 30_000;
/** Longer than any run with its retries; beyond it, the command stops waiting, not the run. */
const WAIT_MS = 3 * 60 * 60 * 1000;

interface QueuedRun {
  key?: string;
  kind?: string;
  target?: string;
}

interface RecentRun extends QueuedRun {
  status?: string;
  aborted?: boolean;
  message?: string;
  summaryPath?: string;
  startedAt?: string;
}

async function call(url: string, token: string, init: { method: string; body?: unknown }): Promise<{ status: number; body: Record<string, unknown> }> {
  const res = await fetch(url, {
    method: init.method,
    headers: { authorization: `Bearer ${token}`, ...(init.body !== undefined && { 'content-type': 'application/json' }) },
    ...(init.body !== undefined && { body: JSON.stringify(init.body) }),
  });
  const text = await res.text();
  let body: Record<string, unknown> = {};
  try {
    body = JSON.parse(text) as Record<string, unknown>;
  } catch {
    body = { error: text };
  }
  return { status: res.status, body };
}

/**
 * The token goes to the recorded address only once what answers there proves it holds it
 * (instance/daemon-proof.ts): a killed daemon's port may be another program's now.
 */
export async function proveDaemon(baseUrl: string, token: string): Promise<void> {
  const proof = await daemonProof(baseUrl, token);
  if (proof === 'refused') throw new CliError(new NotOurDaemonError(baseUrl).message, EXIT_FAILED);
}

export async function handOff(work: HandOff, deps: Pick<CommandDeps, 'io' | 'clock'>): Promise<number> {
  const { daemon, token } = work;
  const { io } = deps;
  if (!daemon.http) {
    throw new CliError(
      `a daemon (pid ${daemon.pid}) runs on this vault with its HTTP API off, so this ${work.kind} cannot be handed to it; ` +
        'enable Http in its configuration, or stop it and run the command again',
      EXIT_FAILED,
    );
  }
  await proveDaemon(daemon.http, token);
  const asked = deps.clock().toISOString();
  // `from`: the run is listed as started from the command line, not by some API client.
  const body = work.kind === 'summarize' ? { meeting: work.note } : { note: work.note, from: 'cli' };
  let accepted;
  try {
    accepted = await call(`${daemon.http}/api/${work.kind === 'summarize' ? 'summarize' : 'retry'}`, token, { method: 'POST', body });
  } catch (err) {
    throw new CliError(`a daemon (pid ${daemon.pid}) runs on this vault but its HTTP API ${daemon.http} does not answer: ${(err as Error).message}`, EXIT_FAILED);
  }
  if (accepted.status !== 202) {
    const message = typeof accepted.body.error === 'string' ? accepted.body.error : `HTTP ${accepted.status}`;
    throw new CliError(`the daemon (pid ${daemon.pid}) refused the ${work.kind}: ${message}`, accepted.status === 400 ? EXIT_USAGE : EXIT_FAILED);
  }
  io.err(`a daemon (pid ${daemon.pid}, ${daemon.http}) runs on this vault: ${work.note} handed to it (${String(accepted.body.result)}); waiting for the outcome`);
  const meeting = typeof accepted.body.meeting === 'string' ? accepted.body.meeting : undefined;
  return awaitOutcome({ ...work, ...(meeting !== undefined ? { meeting } : {}) }, asked, deps);
}

/**
 * Polls the daemon's status until the run of `work.meeting` (else of `work.kind` on
 * `work.note`) that started after `asked` has finished, and reports it as the command's own
 * outcome. `import` uses it for the run the daemon starts by itself once the notes are there.
 */
export async function awaitOutcome(work: HandOff & { meeting?: string }, asked: string, deps: Pick<CommandDeps, 'io' | 'clock'>): Promise<number> {
  const { daemon, token, meeting } = work;
  const { io } = deps;
  // A request merged into a job already waiting for the meeting (a retry wins over a
  // summarize) is carried by the next run of that meeting, whatever its kind and target.
  const ours = (r: QueuedRun) => (meeting !== undefined ? r.key === meeting : r.kind === work.kind && r.target === work.note);
  const started = Date.now();
  let lastListed = started;
  let toldWaiting = false;
  for (;;) {
    let status;
    try {
      status = await call(`${daemon.http}/api/status`, token, { method: 'GET' });
    } catch (err) {
      throw new CliError(`the daemon (pid ${daemon.pid}) stopped answering before the run finished (${(err as Error).message}); its catch-up resumes the meeting at next start`, EXIT_FAILED);
    }
    const queue = (status.body.queue ?? {}) as { recent?: RecentRun[]; pending?: QueuedRun[]; running?: QueuedRun[] };
    const downSince = (status.body.endpoint as { downSince?: unknown } | undefined)?.downSince;
    if (typeof downSince === 'string' && !toldWaiting) {
      // docs/design.md §2: the run waits for the endpoint instead of failing; say so, not nothing.
      toldWaiting = true;
      io.err(`the model endpoint does not answer (since ${localTime(downSince)}): the daemon waits for it and runs ${meeting ?? work.note} once it answers; Ctrl-C leaves it to the daemon`);
    }
    // The run this command asked for started after it asked (a run already under way is followed by it).
    const run = (queue.recent ?? []).find((r) => ours(r) && (r.startedAt ?? '') >= asked);
    if (run) return report(run, io);
    const now = Date.now();
    if ([...(queue.pending ?? []), ...(queue.running ?? [])].some(ours)) lastListed = now;
    else if (now - lastListed > (work.lostMs ?? LOST_MS)) {
      throw new CliError(
        `the daemon (pid ${daemon.pid}) no longer lists the run of ${meeting ?? work.note} and reports no outcome for it; ` +
          'see `meeting-assistant status` and the daemon\'s log',
        EXIT_FAILED,
      );
    }
    if (now - started > (work.waitMs ?? WAIT_MS)) {
      throw new CliError(
        `no outcome from the daemon (pid ${daemon.pid}) after ${Math.round((now - started) / 60_000)} minutes; the run goes on there: ` +
          'see `meeting-assistant status` or the summary note',
        EXIT_FAILED,
      );
    }
    await delay(work.pollMs ?? 250);
  }
}

function localTime(iso: string): string {
  const d = new Date(iso);
  return localDateTime(d, { seconds: true }) ?? iso;
}

/** The run's real outcome, as the command would have said it had it run the meeting itself. */
function report(run: RecentRun, io: Io): number {
  if (run.status === 'done') {
    io.out(`summary: ${run.summaryPath ?? ''}`);
    return EXIT_OK;
  }
  if (run.aborted) {
    io.err('not finished: the daemon stopped during the run; it resumes the meeting at its next start');
    return EXIT_FAILED;
  }
  io.err(`${run.status === 'skipped' ? 'not run' : 'failed'}: ${run.message ?? 'unknown error'}`);
  if (run.summaryPath) io.err(`failure report: ${run.summaryPath}`);
  return EXIT_FAILED;
}

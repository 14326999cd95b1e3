import type { DaemonStatus } from '../daemon/daemon.js';
import { importLines } from '../daemon/http/import-status.js';
import { listMeetingStates, type MeetingState } from '../vault/notes/meeting-overview.js';
import { localDateTime } from '../clock.js';
import { liveDaemon } from '../instance/daemon-claim.js';
import { daemonProof, NotOurDaemonError } from '../instance/daemon-proof.js';
import { machineName } from '../instance/machine-name.js';
import { type MachinesNow, machinesNow } from '../instance/machines-now.js';
import { describeClaim } from '../instance/vault-claim.js';
import { triggerLabel } from '../daemon/http/trigger-labels.js';
import { liveNotesLine } from '../daemon/runs/live-notes-lane.js';
import { localBaseUrl, readHttpToken } from '../vault/files/state.js';
import { Vault } from '../vault/files/vault.js';
import type { AppConfig } from '../config.js';
import { type CommandDeps, EXIT_OK, type GlobalOptions, loadCommandConfig, withDefaults } from './common.js';

/**
 * `status`: every meeting with its state, newest first; then, when the daemon answers on
 * its HTTP API, its queue, running runs and recent results.
 */
export async function status(opts: GlobalOptions, given: Partial<CommandDeps> = {}): Promise<number> {
  const deps = withDefaults(given);
  const { io } = deps;
  const config = await loadCommandConfig(opts, deps);
  const vault = new Vault(deps.fs, config.layout);
  const meetings = await listMeetingStates(vault);
  io.out(`vault: ${vault.root}`);
  if (meetings.length === 0) io.out(`no meeting notes in ${vault.rel(config.layout.folders.Meetings) || '.'}`);
  for (const line of meetingTable(meetings)) io.out(line);
  io.out('');
  const machine = machineName(config.settings.Daemon.MachineName);
  const daemon = await queryDaemon(config, vault, deps.env);
  if (daemon.kind === 'down') {
    const machines = await machinesNow(vault, machine, deps.clock, { env: deps.env });
    for (const line of machineLines(machine, machines, daemon.reason)) io.out(line);
    return EXIT_OK;
  }
  if (daemon.kind === 'error') {
    io.out(`daemon: ${daemon.reason}`);
    return EXIT_OK;
  }
  const s = daemon.status;
  io.out(`daemon: running, pid ${s.pid}, since ${local(s.startedAt)}, ${s.http ?? 'no HTTP'}${s.stopping ? ' (stopping)' : ''}`);
  if (s.machine && s.machine.others.length > 0) io.out(`machine: ${describeClaim(s.machine)}`);
  const q = s.queue;
  io.out(`queue: ${q.running.length} running, ${q.pending.length} waiting (at most ${q.concurrency} at once)`);
  for (const r of q.running) io.out(`  running  ${r.kind.padEnd(9)} ${r.target}  since ${local(r.startedAt)} (${triggerLabel(r.trigger)})${r.followUp ? ', again after it' : ''}`);
  for (const p of q.pending) io.out(`  waiting  ${p.kind.padEnd(9)} ${p.target}  since ${local(p.queuedAt)} (${triggerLabel(p.trigger)})`);
  for (const n of s.liveNotes ?? []) io.out(`  noting   ${n.meeting}  ${liveNotesLine(n)}`);
  if (q.recent.length > 0) io.out('recent:');
  for (const r of q.recent.slice(0, 10)) {
    io.out(`  ${local(r.finishedAt)}  ${r.status.padEnd(7)}  ${r.kind.padEnd(9)} ${r.target}${r.message ? `: ${r.message}` : ''}`);
  }
  for (const line of importLines(s.imports ?? [], deps.clock())) io.out(line);
  if (s.lastScan) io.out(`last catch-up scan: ${local(s.lastScan.at)}, ${s.lastScan.checked} notes checked, ${s.lastScan.read} read`);
  return EXIT_OK;
}

/**
 * No daemon runs the vault on this machine: whether one waits here as a standby, and which
 * machine runs the vault (docs/design.md §2, two machines).
 */
function machineLines(machine: string, m: MachinesNow, reason: string): string[] {
  const elsewhere = m.activeElsewhere;
  const active = elsewhere ? `machine ${elsewhere.machine} is active on this vault (last heartbeat ${Math.round(elsewhere.silentMs / 1000)} s ago)` : undefined;
  if (m.here) {
    return [`daemon: ${m.here.role} on this machine (${machine}), pid ${m.here.pid}, since ${local(m.here.startedAt)}${active ? `: ${active}; it takes over when that one stops` : ''}`];
  }
  return [active ? `daemon: not running on this machine (${machine}); ${active}` : `daemon: not running (${reason})`];
}

/** A time as the person reads it here (local, to the second); text that is no time as written. */
const local = (iso: string) => localDateTime(iso, { seconds: true }) ?? iso;

/**
 * One line a meeting, under a header: when (local time), the context state, whether it has
 * its summary (a summary, a failure report, none yet), the meeting note.
 */
function meetingTable(meetings: MeetingState[]): string[] {
  if (meetings.length === 0) return [];
  const rows = meetings.map((m) => ({
    when: (m.startTime && localDateTime(m.startTime)) ?? m.startTime ?? '(no start_time)',
    state: m.state,
    summary: m.summary?.kind ?? '',
    meeting: `${m.meeting}${m.problem ? `  (${m.problem})` : ''}`,
  }));
  const header = { when: 'start', state: 'state', summary: 'summary', meeting: 'meeting' };
  const width = (key: 'when' | 'state' | 'summary') => Math.max(...[header, ...rows].map((r) => r[key].length));
  const [w, s, m] = [width('when'), width('state'), width('summary')];
  return [header, ...rows].map((r) => `${r.when.padEnd(w)}  ${r.state.padEnd(s)}  ${r.summary.padEnd(m)}  ${r.meeting}`);
}

type DaemonAnswer =
  | { kind: 'up'; status: DaemonStatus }
  | { kind: 'down'; reason: string }
  | { kind: 'error'; reason: string };

/**
 * Ask the vault's daemon, found by its record in this user's runtime folder (pid, address:
 * instance/runtime-folder.ts, never a file in the vault) rather than by the configured port,
 * which may have changed since it started; the token is the configured one or the one it
 * generated (never created here).
 */
async function queryDaemon(config: AppConfig, vault: Vault, env: NodeJS.ProcessEnv): Promise<DaemonAnswer> {
  const http = config.settings.Http;
  const instance = await liveDaemon(vault, { env });
  if (!instance) return { kind: 'down', reason: 'no daemon runs on this vault' };
  const running = `running, pid ${instance.pid}`;
  // No address recorded: its HTTP is off, or it is still starting (the address comes once it listens).
  if (!instance.http && !http.Enabled) return { kind: 'error', reason: `${running}, HTTP off, so its queue cannot be asked` };
  const token = await readHttpToken(vault, http);
  const url = `${instance.http ?? localBaseUrl(http)}/api/status`;
  if (!token) return { kind: 'error', reason: `${running}, but there is no HTTP token to ask ${url} with` };
  // The token goes only to a daemon that proves it holds it (instance/daemon-proof.ts).
  const base = instance.http ?? localBaseUrl(http);
  if ((await daemonProof(base, token)) === 'refused') return { kind: 'error', reason: new NotOurDaemonError(base).message };
  try {
    const res = await fetch(url, { headers: { authorization: `Bearer ${token}` }, signal: AbortSignal.timeout(2000) });
    if (res.status === 401) return { kind: 'error', reason: `${url} refused the token (is another vault's daemon on this port?)` };
    if (!res.ok) return { kind: 'error', reason: `${url} answered ${res.status}` };
    const body: unknown = await res.json().catch(() => undefined);
    if (!isDaemonStatus(body)) return { kind: 'error', reason: `${url} answered something that is not a daemon's status (another program on that port?)` };
    return { kind: 'up', status: body };
  } catch {
    return { kind: 'error', reason: `${running}, but ${url} does not answer (HTTP off, or still starting)` };
  }
}

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);
const isList = (v: unknown, item: (x: Record<string, unknown>) => boolean) => Array.isArray(v) && v.every((x) => isObject(x) && item(x));
const strings = (x: Record<string, unknown>, ...keys: string[]) => keys.every((k) => typeof x[k] === 'string');

/** What the lines above read of the answer is there, of the right kinds: an answer of another shape is no status (docs/design.md §7). */
function isDaemonStatus(v: unknown): v is DaemonStatus {
  if (!isObject(v) || typeof v.pid !== 'number' || typeof v.startedAt !== 'string' || !isObject(v.queue)) return false;
  const q = v.queue;
  return (
    typeof q.concurrency === 'number' &&
    isList(q.running, (r) => strings(r, 'kind', 'target', 'startedAt')) &&
    isList(q.pending, (p) => strings(p, 'kind', 'target', 'queuedAt')) &&
    isList(q.recent, (r) => strings(r, 'kind', 'target', 'status', 'finishedAt'))
  );
}

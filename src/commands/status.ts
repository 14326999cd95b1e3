import { terminalSafe } from '../vault/format/terminal-text.js';
import type { DaemonStatus } from '../daemon/daemon.js';
import { importLines } from '../daemon/http/import-status.js';
import { listMeetingStates, type MeetingState } from '../vault/notes/meeting-overview.js';
import { localDateTime } from '../clock.js';
import { liveDaemon } from '../instance/daemon-claim.js';
import { cliRunOf } from '../instance/cli-run-marker.js';
import { daemonProof, NotOurDaemonError } from '../instance/daemon-proof.js';
import { machineName } from '../instance/machine-name.js';
import { type MachinesNow, machinesNow } from '../instance/machines-now.js';
import { describeClaim } from '../instance/vault-claim.js';
import { whyLooksShared } from '../instance/shared-vault.js';
import { triggerLabel } from '../daemon/http/trigger-labels.js';
import type { EndpointHealth } from '../daemon/http/endpoint-health.js';
import type { LiveRun } from '../daemon/runs/run-board.js';
import { liveNotesLine } from '../daemon/runs/live-notes-lane.js';
import { localBaseUrl, readHttpToken } from '../vault/files/state.js';
import { Vault } from '../vault/files/vault.js';
import type { AppConfig } from '../config.js';
import { type CommandDeps, EXIT_OK, type GlobalOptions, loadCommandConfig, withDefaults } from './common.js';

/**
 * `status`: every meeting with its state, newest first; then, when the daemon answers on
 * its HTTP API, what its status page says: the endpoint (up, or down since when), its queue,
 * what each running run does or waits for, and recent results. Times are local, the zone
 * said once, and how long ago.
 */
export async function status(opts: GlobalOptions, given: Partial<CommandDeps> = {}): Promise<number> {
  const deps = withDefaults(given);
  // Note names and titles are what a synced file says: no escape sequence reaches the terminal (vault/format/terminal-text.ts).
  const io = { out: (line: string) => deps.io.out(terminalSafe(line)), err: (line: string) => deps.io.err(terminalSafe(line)) };
  const now = deps.clock();
  const config = await loadCommandConfig(opts, deps);
  const vault = new Vault(deps.fs, config.layout);
  const machine = machineName(config.settings.Daemon.MachineName);
  // The daemon first: whether a meeting `summarizing` is being summarized depends on it.
  const [meetings, daemon] = await Promise.all([listMeetingStates(vault), queryDaemon(config, vault, deps.env)]);
  const machines = daemon.kind === 'down' ? await machinesNow(vault, machine, deps.clock, { env: deps.env }) : undefined;
  const stopped = daemon.kind === 'down' && !machines?.activeElsewhere;
  // With no daemon, a meeting still `summarizing` is being run only by a `summarize` or `retry`
  // command (its marker names a live process); otherwise its run ended with the daemon.
  const interrupted = new Set<string>();
  for (const m of stopped ? meetings.filter((m) => m.state === 'summarizing') : []) {
    if (!(await cliRunOf(vault, vault.abs(m.meeting), undefined, deps.env))) interrupted.add(m.meeting);
  }
  io.out(`vault: ${vault.root}`);
  io.out(`config: ${config.file ?? 'none found, the defaults (another: --config F)'}`);
  io.out(zoneLine(now));
  if (meetings.length === 0) io.out(`no meeting notes in ${vault.rel(config.layout.folders.Meetings) || '.'}`);
  for (const line of meetingTable(meetings, interrupted)) io.out(line);
  io.out('');
  if (daemon.kind === 'down') {
    // A candidate with no other machine's record to wait for: a first start on a vault that looks shared.
    const first = machines?.here?.role === 'candidate' && machines.others.length === 0;
    const looksShared = first ? await whyLooksShared(deps.fs, vault.root, { machineName: config.settings.Daemon.MachineName }) : undefined;
    for (const line of machineLines(machine, machines!, daemon.reason, now, looksShared)) io.out(line);
    return EXIT_OK;
  }
  if (daemon.kind === 'error') {
    io.out(`daemon: ${daemon.reason}`);
    return EXIT_OK;
  }
  const s = daemon.status;
  io.out(`daemon: running, pid ${s.pid}, since ${when(s.startedAt, now)}, ${s.http ?? 'no HTTP'}${s.stopping ? ' (stopping)' : ''}`);
  if (s.machine && s.machine.others.length > 0) io.out(`machine: ${describeClaim(s.machine)}`);
  const health = s.endpointHealth ?? (s.endpoint?.downSince ? { state: 'down' as const, since: s.endpoint.downSince } : undefined);
  io.out(endpointLine(`${config.settings.Endpoint.BaseUrl} (${config.settings.Endpoint.Model})`, health, now));
  const q = s.queue;
  io.out(`queue: ${q.running.length} running, ${q.pending.length} waiting (at most ${q.concurrency} at once)`);
  for (const r of q.running) {
    const doing = runDoing(s.runs?.find((run) => run.meeting === r.key), health, now);
    io.out(`  running  ${r.kind.padEnd(9)} ${r.target}  since ${when(r.startedAt, now)} (${triggerLabel(r.trigger)})${r.followUp ? ', again after it' : ''}${doing ? `: ${doing}` : ''}`);
  }
  for (const p of q.pending) io.out(`  waiting  ${p.kind.padEnd(9)} ${p.target}  since ${when(p.queuedAt, now)} (${triggerLabel(p.trigger)}): ${q.running.length >= q.concurrency ? 'for a free slot' : 'to start'}`);
  for (const n of s.liveNotes ?? []) io.out(`  noting   ${n.meeting}  ${liveNotesLine(n)}`);
  if (q.recent.length > 0) io.out('recent:');
  for (const r of q.recent.slice(0, 10)) {
    io.out(`  ${local(r.finishedAt)}  ${r.status.padEnd(7)}  ${r.kind.padEnd(9)} ${r.target}${r.message ? `: ${r.message}` : ''}`);
  }
  for (const line of importLines(s.imports ?? [], now)) io.out(line);
  if (s.lastScan) io.out(`last catch-up scan: ${when(s.lastScan.at, now)}, ${s.lastScan.checked} notes checked, ${s.lastScan.read} read`);
  return EXIT_OK;
}

/**
 * No daemon runs the vault on this machine: whether one waits here as a standby, and which
 * machine runs the vault (docs/design.md §2, two machines).
 */
function machineLines(machine: string, m: MachinesNow, reason: string, now: Date, looksShared?: string): string[] {
  const elsewhere = m.activeElsewhere;
  const active = elsewhere ? `machine ${elsewhere.machine} is active on this vault (last heartbeat ${Math.round(elsewhere.silentMs / 1000)} s ago)` : undefined;
  if (m.here) {
    const waits = looksShared ? `: no machine has run this vault yet, but it looks shared (${looksShared}); it waits 2 heartbeats for another machine's claim` : '';
    return [`daemon: ${m.here.role} on this machine (${machine}), pid ${m.here.pid}, since ${when(m.here.startedAt, now)}${active ? `: ${active}; it takes over when that one stops` : waits}`];
  }
  return [active ? `daemon: not running on this machine (${machine}); ${active}` : `daemon: not running (${reason})`];
}

/** A time as the person reads it here (local, to the second); text that is no time as written. */
const local = (iso: string) => localDateTime(iso, { seconds: true }) ?? iso;

/**
 * One line a meeting, under a header: when (local time), the context state, whether it has
 * its summary (a summary, a failure report, none yet), the meeting note. With no daemon on
 * the vault, `summarizing` is no run going on: the daemon stopped during it, and its next
 * start resumes it (catch-up, docs/design.md §2).
 */
function meetingTable(meetings: MeetingState[], stoppedRuns: ReadonlySet<string>): string[] {
  if (meetings.length === 0) return [];
  const interrupted = (m: MeetingState) => stoppedRuns.has(m.meeting);
  const rows = meetings.map((m) => ({
    when: (m.startTime && localDateTime(m.startTime)) ?? m.startTime ?? '(no start_time)',
    state: interrupted(m) ? 'was summarizing' : m.state,
    summary: m.summary?.kind ?? '',
    meeting: `${m.meeting}${m.problem ? `  (${m.problem})` : ''}`,
  }));
  const header = { when: 'start (local)', state: 'state', summary: 'summary', meeting: 'meeting' };
  const width = (key: 'when' | 'state' | 'summary') => Math.max(...[header, ...rows].map((r) => r[key].length));
  const [w, s, m] = [width('when'), width('state'), width('summary')];
  const lines = [header, ...rows].map((r) => `${r.when.padEnd(w)}  ${r.state.padEnd(s)}  ${r.summary.padEnd(m)}  ${r.meeting}`);
  if (meetings.some(interrupted)) lines.push('was summarizing: the daemon stopped during its run; it resumes at the daemon\'s next start');
  return lines;
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

// What `status` says as the status page does (docs/design.md §6, §7): the zone, how long ago,
// the endpoint, what a running run does or waits for.

/** The zone every time of `status` is in, said once: `local time, Europe/Berlin (UTC+01:00)`. */
function zoneLine(now: Date): string {
  const zone = Intl.DateTimeFormat().resolvedOptions().timeZone;
  const minutes = -now.getTimezoneOffset();
  const sign = minutes < 0 ? '-' : '+';
  const abs = Math.abs(minutes);
  const offset = `UTC${sign}${String(Math.floor(abs / 60)).padStart(2, '0')}:${String(abs % 60).padStart(2, '0')}`;
  return `times: local time${zone ? `, ${zone}` : ''} (${offset})`;
}

/** How long ago, as a person says it: `40 s ago`, `12 min ago`, `3 h ago`, `2 days ago`. */
function ago(iso: string, now: Date): string {
  const ms = now.getTime() - new Date(iso).getTime();
  if (Number.isNaN(ms)) return '';
  if (ms < 0) return 'in the future';
  const s = Math.round(ms / 1000);
  if (s < 90) return `${s} s ago`;
  if (s < 90 * 60) return `${Math.round(s / 60)} min ago`;
  if (s < 48 * 3600) return `${Math.round(s / 3600)} h ago`;
  return `${Math.round(s / 86400)} days ago`;
}

/** A moment: local time to the second, and how long ago. Text that is no time as written. */
function when(iso: string, now: Date): string {
  const local = localDateTime(iso, { seconds: true });
  return local ? `${local} (${ago(iso, now)})` : iso;
}

/** `endpoint: <url> (model): up, last answered …` / `down since … : <error>; 2 runs waiting for it`. */
function endpointLine(where: string, health: EndpointHealth | undefined, now: Date): string {
  if (!health || health.state === 'unknown') return `endpoint: ${where}: not asked yet by a run since the daemon started`;
  if (health.state === 'up') return `endpoint: ${where}: up${health.since ? `, last answered ${when(health.since, now)}` : ''}`;
  const waiting = health.waiting ? `; ${health.waiting.runs} run${health.waiting.runs === 1 ? '' : 's'} waiting for it` : '';
  return `endpoint: ${where}: DOWN${health.since ? ` since ${when(health.since, now)}` : ''}${health.detail ? `: ${health.detail}` : ''}${waiting}`;
}

/** What a running run does or waits for, as the page's progress cell says it. */
function runDoing(run: LiveRun | undefined, health: EndpointHealth | undefined, now: Date): string {
  if (!run) return '';
  if (run.waitingForEndpoint) {
    const since = health?.state === 'down' && health.since ? `, not answering since ${when(health.since, now)}` : '';
    return `waiting for the model endpoint${since}`;
  }
  if (run.turn) {
    const tokens = run.context ? `, ${run.context.tokens.toLocaleString('en-US')} of ${run.context.window.toLocaleString('en-US')} tokens` : '';
    return `turn ${run.turn.turn} of ${run.turn.maxTurns}${tokens}`;
  }
  if (run.transcriptPart) return `reading the transcript, part ${run.transcriptPart.part} of ${run.transcriptPart.parts}`;
  return 'starting';
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

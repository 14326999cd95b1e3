/**
 * Which machine runs a vault that a sync tool shares between machines (docs/design.md §2, two
 * machines): the rules, apart from the files and timers (vault-claim.ts), so that they can be
 * tried against every race with a clock of the test's own.
 *
 * Each machine's daemon writes its own record, `.meeting-assistant/machines/<machine>.json`,
 * and no other file is written by two machines, so the sync tool never has two versions of one
 * file to choose between. A record says the machine's role and when it last beat:
 *
 * - `active`: it runs the vault (catch-up, imports, summaries);
 * - `candidate`: it means to, and waits `SETTLE_BEATS` heartbeats for another machine's claim
 *   to arrive through the sync tool before it does;
 * - `standby`: it watches, and becomes a candidate once no active machine has beaten for
 *   `STALE_BEATS` heartbeats;
 * - `stopped`: its daemon stopped cleanly.
 *
 * Ties are broken by the machines' names, the same answer on every machine: of two active
 * machines (both claimed the vault before either saw the other), the one whose name sorts
 * first stays; of two candidates, likewise. An active machine never yields to a candidate.
 */

export type MachineRole = 'active' | 'candidate' | 'standby' | 'stopped';

export interface MachineRecord {
  machine: string;
  role: MachineRole;
  /** When it last beat, by its own clock (ISO). */
  beatAt: string;
  /** Its heartbeat interval: a record says itself when it is to be taken as stale. */
  heartbeatMs: number;
  pid: number;
  startedAt: string;
  /** Since when it is active (ISO). */
  activeSince?: string;
}

/** A machine silent for this many of its heartbeats is gone: its claim may be taken over. */
export const STALE_BEATS = 6;
/** A candidate waits this many heartbeats for the sync tool to bring another machine's claim. */
export const SETTLE_BEATS = 2;
/**
 * A machine not heard from for this long no longer counts as sharing the vault for the lapse
 * rule (LAPSE_BEATS): an active daemon whose disk refused its beats need not step down for a
 * host renamed long ago. A start is another matter (`startingRole`).
 */
export const FORGET_AFTER_MS = 7 * 24 * 60 * 60 * 1000;

/**
 * An active machine that has not written its record for this many of its heartbeats steps
 * down (its disk refuses writes, or it slept): the others take it for gone after STALE_BEATS
 * and are active SETTLE_BEATS later, so it must have stopped its work before then, sync delay
 * and a run's shutdown grace included.
 */
export const LAPSE_BEATS = STALE_BEATS - SETTLE_BEATS;

/** A record's heartbeat outside these bounds is no heartbeat (config allows > 0 up to an hour; tests beat every 20 ms). */
export const MIN_HEARTBEAT_MS = 10;
export const MAX_HEARTBEAT_MS = 60 * 60 * 1000;
/**
 * A beat this far ahead of this machine's clock is not believed: two clocks kept by NTP agree
 * within seconds, and a beat from the future would look fresh for as long as it stays ahead.
 */
export const AHEAD_MARGIN_MS = 10 * 60 * 1000;

/**
 * Why a record that parses cannot be judged (docs/design.md §2; issue #43 point 3): a
 * heartbeat of `1e308` ms would keep its machine fresh for ever, a beat in the future for as
 * long as it is ahead. Such a record is ignored, as if absent.
 */
export function implausible(record: MachineRecord, now: number): string | undefined {
  const { heartbeatMs, beatAt } = record;
  if (heartbeatMs < MIN_HEARTBEAT_MS || heartbeatMs > MAX_HEARTBEAT_MS) return `its heartbeat of ${heartbeatMs} ms is not between ${MIN_HEARTBEAT_MS} ms and an hour`;
  const ahead = Date.parse(beatAt) - now;
  if (ahead > AHEAD_MARGIN_MS) return `its last beat (${beatAt}) is ${Math.round(ahead / 60_000)} minutes ahead of this machine's clock`;
  return undefined;
}

/** Whether other machines share the vault: one of them was heard from within FORGET_AFTER_MS. */
export function sharedWith(others: readonly MachineRecord[], now: number): boolean {
  return others.some((r) => now - Date.parse(r.beatAt) < FORGET_AFTER_MS);
}

const ROLES: ReadonlySet<string> = new Set(['active', 'candidate', 'standby', 'stopped']);

/** A record in a machine file's text; undefined when it is not one (half synced, edited). */
export function parseMachineRecord(text: string | undefined): MachineRecord | undefined {
  if (text === undefined) return undefined;
  let v: Record<string, unknown>;
  try {
    v = JSON.parse(text) as Record<string, unknown>;
  } catch {
    return undefined;
  }
  if (typeof v.machine !== 'string' || typeof v.role !== 'string' || !ROLES.has(v.role)) return undefined;
  if (typeof v.beatAt !== 'string' || !Number.isFinite(Date.parse(v.beatAt))) return undefined;
  if (typeof v.heartbeatMs !== 'number' || !(v.heartbeatMs > 0)) return undefined;
  return {
    machine: v.machine,
    role: v.role as MachineRole,
    beatAt: v.beatAt,
    heartbeatMs: v.heartbeatMs,
    pid: typeof v.pid === 'number' ? v.pid : 0,
    startedAt: typeof v.startedAt === 'string' ? v.startedAt : '',
    ...(typeof v.activeSince === 'string' && { activeSince: v.activeSince }),
  };
}

/**
 * The other machines' heartbeats as this machine sees them. Two machines' clocks need not agree,
 * so a heartbeat is judged by when this machine saw the record change, by its own clock; only
 * a record seen for the first time is taken at its own word (its `beatAt`, never later than
 * now), so that a daemon starting while the other machine has been off for days need not
 * watch it for minutes first. A machine whose clock runs behind then looks stale at first
 * sight; its next beat, a change, proves it alive while this one still waits as a candidate.
 */
export class HeartbeatWatch {
  readonly #seen = new Map<string, { beat: string; since: number }>();

  /** Takes in the records read now (every other machine's), and forgets machines gone. */
  observe(records: readonly MachineRecord[], now: number): void {
    const names = new Set(records.map((r) => r.machine));
    for (const name of this.#seen.keys()) if (!names.has(name)) this.#seen.delete(name);
    for (const r of records) {
      const beat = `${r.role} ${r.beatAt} ${r.pid} ${r.startedAt}`;
      const known = this.#seen.get(r.machine);
      if (known?.beat === beat) continue;
      const since = known ? now : Math.min(now, Date.parse(r.beatAt));
      this.#seen.set(r.machine, { beat, since });
    }
  }

  /** Milliseconds since the machine's record last changed, as this machine saw it. */
  silentFor(record: MachineRecord, now: number): number {
    const seen = this.#seen.get(record.machine);
    return seen ? now - seen.since : Infinity;
  }

  /** Whether the machine beat within its last STALE_BEATS heartbeats. */
  isFresh(record: MachineRecord, now: number): boolean {
    return this.silentFor(record, now) < STALE_BEATS * record.heartbeatMs;
  }
}

export interface RoleState {
  role: MachineRole;
  /** While a candidate: since when (this machine's clock, ms). */
  candidateSince?: number;
}

export interface RoleDecision extends RoleState {
  /** The machine that made it so, when another one did (for the log and the status). */
  because?: MachineRecord;
}

function lowest(records: readonly MachineRecord[]): MachineRecord | undefined {
  return [...records].sort((a, b) => (a.machine < b.machine ? -1 : a.machine > b.machine ? 1 : 0))[0];
}

/**
 * The next role of machine `me`, given the other machines' records that are fresh now
 * (HeartbeatWatch.isFresh) and the settle time of a candidate.
 */
export function nextRole(me: string, state: RoleState, fresh: readonly MachineRecord[], now: number, settleMs: number): RoleDecision {
  const active = fresh.filter((r) => r.role === 'active');
  const before = (records: MachineRecord[]) => lowest(records.filter((r) => r.machine < me));
  if (state.role === 'active') {
    const first = before(active);
    return first ? { role: 'standby', because: first } : { role: 'active' };
  }
  if (active.length > 0) return { role: 'standby', because: lowest(active)! };
  const rival = before(fresh.filter((r) => r.role === 'candidate'));
  if (rival) return { role: 'standby', because: rival };
  if (state.role === 'candidate' && state.candidateSince !== undefined) {
    return now - state.candidateSince >= settleMs ? { role: 'active' } : { role: 'candidate', candidateSince: state.candidateSince };
  }
  return { role: 'candidate', candidateSince: now };
}

/**
 * The role a daemon starts in (docs/design.md §2; issue #45 point 1). Where no other machine
 * has ever left a record it is active at once, as a single machine always was, unless this is
 * its first start there (no record of its own either) and the vault looks shared
 * (`looksShared`: shared-vault.ts): two machines started together on a brand-new vault would
 * both be active until their records cross, so that first start waits as a candidate. So is
 * a daemon whose own last record was active and fresh (a restart: the others still see it
 * active). Otherwise, whatever the age of the others' records, it starts as `nextRole` says:
 * a standby while another machine is active and fresh, else a candidate that waits
 * SETTLE_BEATS heartbeats for the sync tool to catch up. A record's age proves nothing on a
 * copy the sync tool has not caught up with (a laptop back after a week shows the desktop's
 * week-old record while the desktop is active now), so an old record is no licence to start
 * at once; only the wait is.
 */
export function startingRole(
  me: string,
  own: MachineRecord | undefined,
  others: readonly MachineRecord[],
  fresh: readonly MachineRecord[],
  now: number,
  settleMs: number,
  looksShared = false,
): RoleDecision {
  const freshActive = fresh.some((r) => r.role === 'active');
  if (others.length === 0 && (own !== undefined || !looksShared)) return { role: 'active' };
  const ownFresh = own?.role === 'active' && now - Date.parse(own.beatAt) < STALE_BEATS * own.heartbeatMs;
  if (!freshActive && ownFresh) return { role: 'active' };
  return nextRole(me, { role: 'standby' }, fresh, now, settleMs);
}

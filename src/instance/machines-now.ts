import type { Clock } from '../clock.js';
import type { Vault } from '../vault/files/vault.js';
import { localHolder } from './daemon-claim.js';
import { type HolderProbe, systemProbe } from './liveness.js';
import { type MachineRecord, STALE_BEATS } from './machine-roles.js';
import { readMachineRecords } from './vault-claim.js';

/**
 * The machines of a shared vault as a one-shot command sees them (docs/design.md §2, two
 * machines): `status`, `summarize`, `retry` and `import` on a machine whose daemon is a standby,
 * or that has none, say which machine runs the vault instead of running a meeting that machine
 * runs too. A command reads once and cannot watch a heartbeat change, so a record counts as
 * fresh by its own time: beaten within its last STALE_BEATS heartbeats by this machine's clock.
 */

export interface MachinesNow {
  /** This machine's daemon when it runs: its role (`active`, `candidate`, `standby`) and pid. */
  here?: { role: string; pid: number; startedAt: string };
  /** Another machine that is active, with a fresh heartbeat: how long ago it beat. */
  activeElsewhere?: { machine: string; silentMs: number };
  others: MachineRecord[];
}

export async function machinesNow(vault: Vault, machine: string, clock: Clock, o: { env?: NodeJS.ProcessEnv; probe?: HolderProbe } = {}): Promise<MachinesNow> {
  const [holder, others] = await Promise.all([localHolder(vault, { probe: o.probe ?? systemProbe, ...(o.env && { env: o.env }) }), readMachineRecords(vault, machine, { now: clock().getTime() })]);
  const now = clock().getTime();
  const silent = (r: MachineRecord) => Math.max(0, now - Date.parse(r.beatAt));
  const active = others.find((r) => r.role === 'active' && silent(r) < STALE_BEATS * r.heartbeatMs);
  return {
    ...(holder && { here: { role: typeof holder.role === 'string' ? holder.role : 'active', pid: holder.instance.pid, startedAt: holder.instance.startedAt } }),
    ...(active && { activeElsewhere: { machine: active.machine, silentMs: silent(active) } }),
    others,
  };
}

/**
 * Why a command should not run a meeting here, when another machine runs the vault and this
 * one's daemon is not active; undefined when it may. A standby here refuses whatever the other
 * record's time says: the standby watched that record change, which a command reading once
 * cannot (the other clock may run behind, the sync tool may be slow).
 */
export function runsElsewhere(m: MachinesNow): string | undefined {
  if (m.here?.role === 'active') return undefined;
  if (!m.activeElsewhere) {
    if (m.here?.role !== 'standby') return undefined;
    const active = m.others.find((r) => r.role === 'active');
    return `${active ? `machine ${active.machine}` : 'another machine'} runs this vault; the daemon here (pid ${m.here.pid}) is its standby`;
  }
  const { machine, silentMs } = m.activeElsewhere;
  const standby = m.here ? `; the daemon here (pid ${m.here.pid}) is its standby` : '';
  return `machine ${machine} runs this vault (its daemon's last heartbeat ${Math.round(silentMs / 1000)} s ago)${standby}`;
}

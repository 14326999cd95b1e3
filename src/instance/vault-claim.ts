import path from 'node:path';
import { setTimeout as delay } from 'node:timers/promises';
import type { Clock } from '../clock.js';
import type { Logger } from '../log.js';
import { isNotFound } from '../vault/files/fs.js';
import type { Vault } from '../vault/files/vault.js';
import { claimVault, instanceFile, type InstanceLock, machinesFolder } from './daemon-claim.js';
import type { FolderWatch } from './folder-watch.js';
import { type HolderProbe, systemProbe } from './liveness.js';
import { readSmallText, smallTextOrUndefined } from './small-file.js';
import {
  HeartbeatWatch,
  LAPSE_BEATS,
  implausible,
  type MachineRecord,
  type MachineRole,
  nextRole,
  parseMachineRecord,
  type RoleDecision,
  type RoleState,
  SETTLE_BEATS,
  sharedWith,
  STALE_BEATS,
  startingRole,
} from './machine-roles.js';

/**
 * The claim on a vault that may be shared between machines by a sync tool (docs/design.md §2,
 * two machines; the rules are machine-roles.ts): this machine's record, rewritten at every
 * heartbeat, and the other machines' records, read at every heartbeat. A daemon that is not
 * active writes nothing but its own record.
 */

export interface VaultClaimOptions {
  machine: string;
  heartbeatMs: number;
  clock: Clock;
  log: Logger;
  probe?: HolderProbe;
  /** Where the runtime folder is (runtime-folder.ts); the process's environment by default. */
  env?: NodeJS.ProcessEnv;
  /** Hears the machines' folder change (folder-watch.ts); without it, only heartbeats read it. */
  watch?: FolderWatch;
  /**
   * Why the vault looks shared (shared-vault.ts), if it does: asked only at a first start with no
   * record at all, which then waits as a candidate (machine-roles.ts `startingRole`); any other
   * start is decided by the records, and pays nor waits for the look (a slow or hung mount).
   */
  looksShared?: () => Promise<string | undefined>;
}

/** Another machine as the status shows it. */
export interface MachineView {
  machine: string;
  role: MachineRole;
  beatAt: string;
  /** Whether it beat within its last STALE_BEATS heartbeats, as this machine saw it. */
  fresh: boolean;
}

export interface ClaimStatus {
  machine: string;
  role: MachineRole;
  /** The machine that is active: this one, another (fresh), or none known. */
  activeMachine?: string;
  others: MachineView[];
}

/** `<name>.json` of a machine; not a temporary file, nor a sync tool's conflict copy (`.sync-conflict-`, ` (conflicted copy)`, ` 2`). */
const RECORD_NAME = /^([a-z0-9_-][a-z0-9._-]*)\.json$/;

/** Told of a record file that is ignored: too large, not a plain file, or implausible (machine-roles.ts). */
export type IgnoredRecord = (file: string, why: string | undefined) => void;

/**
 * The other machines' records in the vault now, judged at `now`: a file over MAX_RECORD_BYTES
 * is not read (small-file.ts), a record with implausible numbers is left out; `ignored` hears
 * of each such file, and of each file that reads well (why: undefined).
 */
export async function readMachineRecords(vault: Vault, except?: string, o: { now?: number; ignored?: IgnoredRecord } = {}): Promise<MachineRecord[]> {
  const folder = machinesFolder(vault);
  let names: string[];
  try {
    names = (await vault.fs.readdir(folder, { withFileTypes: true })).filter((e) => e.isFile()).map((e) => e.name);
  } catch (err) {
    if (isNotFound(err)) return [];
    throw err;
  }
  const records: MachineRecord[] = [];
  for (const name of names.sort()) {
    const m = RECORD_NAME.exec(name);
    if (!m || name.includes('.sync-conflict-') || m[1] === except) continue;
    const file = path.join(folder, name);
    const read = await readSmallText(vault.fs, file).catch(() => undefined);
    if (read && 'problem' in read) {
      o.ignored?.(file, read.problem);
      continue;
    }
    const record = parseMachineRecord(read?.text);
    if (!record || record.machine !== m[1]) continue;
    const why = implausible(record, o.now ?? Date.now());
    o.ignored?.(file, why);
    if (!why) records.push(record);
  }
  return records;
}

/** Logs each ignored record file once (until it reads well again): a heartbeat must not repeat it. */
function sayIgnored(log: Logger, said: Set<string>): IgnoredRecord {
  return (file, why) => {
    if (why === undefined) {
      said.delete(file);
      return;
    }
    if (said.has(file)) return;
    said.add(file);
    log.warn({ file }, `${file} is ignored: ${why}; the machine it names counts as absent until its record is a sane one`);
  };
}

const seconds = (ms: number) => `${Math.round(ms / 100) / 10} s`;

export class VaultClaim {
  readonly machine: string;
  readonly #o: VaultClaimOptions;
  readonly #vault: Vault;
  readonly #lock: InstanceLock;
  readonly #watch: HeartbeatWatch;
  #state: RoleState;
  #activeSince: string | undefined;
  #others: MachineRecord[];
  #timer: NodeJS.Timeout | undefined;
  #lost: string | undefined;
  #onLost: ((why: string) => void) | undefined;
  /** When this machine's record was last written (its clock, ms). */
  #wroteAt: number;
  #failing = false;
  #beating: Promise<RoleDecision> | undefined;
  #beatingWrites = false;
  #released = false;
  #sameName = false;
  #unwatch: (() => void) | undefined;
  #looksShared: string | undefined;
  /** Ends the wait between two heartbeats of untilActive (a record that arrived made this machine active). */
  #wake: (() => void) | undefined;

  /** The record files whose ignoring was logged (once each, until they read well again). */
  readonly #said: Set<string>;

  private constructor(vault: Vault, o: VaultClaimOptions, lock: InstanceLock, watch: HeartbeatWatch, start: RoleDecision, others: MachineRecord[], said: Set<string>) {
    this.#said = said;
    this.machine = o.machine;
    this.#o = o;
    this.#vault = vault;
    this.#lock = lock;
    this.#watch = watch;
    this.#state = start;
    this.#others = others;
    if (start.role === 'active') this.#activeSince = o.clock().toISOString();
    this.#wroteAt = o.clock().getTime();
  }

  /**
   * Claims the vault on this machine (DaemonRunningError while another daemon runs on it here)
   * in the role the other machines' records leave it (machine-roles.ts `startingRole`).
   */
  static async claim(vault: Vault, o: VaultClaimOptions): Promise<VaultClaim> {
    const said = new Set<string>();
    const read = async (now = o.clock().getTime()) => {
      const parsed = parseMachineRecord(await smallTextOrUndefined(vault.fs, instanceFile(vault, o.machine)));
      return { now, own: parsed && !implausible(parsed, now) ? parsed : undefined, others: await readMachineRecords(vault, o.machine, { now, ignored: sayIgnored(o.log, said) }) };
    };
    const first = await read();
    const looksShared = first.own === undefined && first.others.length === 0 ? await o.looksShared?.() : undefined;
    // Read again after a look (it may take a while): a candidate's wait starts once its record is written.
    const { now, own, others } = looksShared === undefined ? first : await read();
    const watch = new HeartbeatWatch();
    watch.observe(others, now);
    const fresh = others.filter((r) => watch.isFresh(r, now));
    const start = startingRole(o.machine, own, others, fresh, now, SETTLE_BEATS * o.heartbeatMs, looksShared !== undefined);
    const beatAt = o.clock().toISOString();
    const fields = { machine: o.machine, role: start.role, beatAt, heartbeatMs: o.heartbeatMs, ...(start.role === 'active' && { activeSince: beatAt }) };
    const lock = await claimVault(vault, { clock: o.clock, probe: o.probe ?? systemProbe, machine: o.machine, fields, ...(o.env && { env: o.env }) });
    const claim = new VaultClaim(vault, o, lock, watch, start, others, said);
    claim.#looksShared = looksShared;
    claim.#announce(undefined, start);
    claim.#watchOthers();
    return claim;
  }

  get role(): MachineRole {
    return this.#state.role;
  }

  /** One heartbeat: read the others, take the role the rules give, write this machine's record. */
  beat(): Promise<RoleDecision> {
    return this.#beatOnce(true);
  }

  /**
   * `write`: false for a beat because another machine's record changed, which writes this
   * machine's record only when its role changed: two machines each answering the other's
   * record with one of their own would beat each other at the sync tool's pace for ever.
   */
  #beatOnce(write: boolean): Promise<RoleDecision> {
    if (this.#beating) {
      // A heartbeat never rides on a judgement that may not write: with the other machine's
      // beats arriving in step with this one's, this machine would never write its own.
      if (!write || this.#beatingWrites) return this.#beating;
      return this.#beating.catch(() => undefined).then(() => this.#beatOnce(true));
    }
    this.#beatingWrites = write;
    this.#beating = this.#beat(write)
      .then(
        (d) => {
          this.#failing = false;
          return d;
        },
        (err: unknown) => {
          // Said once, not at every heartbeat that fails.
          if (!this.#failing) this.#o.log.warn({ err }, 'could not read or write the claims of the vault; trying again at every heartbeat');
          this.#failing = true;
          throw err;
        },
      )
      .finally(() => (this.#beating = undefined));
    return this.#beating;
  }

  async #beat(write: boolean): Promise<RoleDecision> {
    const { clock, heartbeatMs, machine } = this.#o;
    const vault = this.#vault;
    const now = clock().getTime();
    const others = await readMachineRecords(vault, machine, { now, ignored: sayIgnored(this.#o.log, this.#said) });
    this.#watch.observe(others, now);
    this.#others = others;
    const fresh = others.filter((r) => this.#watch.isFresh(r, now));
    const was = this.#state;
    // Not heard from for long (a sleep, a disk that refused the beats): another machine may have
    // taken over, its record not here yet. Decided again as a daemon that starts would.
    const lapsed = this.#lapsed(now);
    if (lapsed) this.#sayLapsed(now);
    let next = nextRole(machine, lapsed ? { role: 'standby' } : was, fresh, now, SETTLE_BEATS * heartbeatMs);
    // A claim the others could not have read (its record unwritten since) does not make it active.
    if (next.role === 'active' && was.role === 'candidate' && (this.#failing || this.#wroteAt < (was.candidateSince ?? Infinity))) {
      next = { role: 'candidate', candidateSince: now };
    }
    if (this.#released) return next;
    this.#state = next;
    if (next.role === 'active' && was.role !== 'active') this.#activeSince = clock().toISOString();
    if (next.role !== 'active') this.#activeSince = undefined;
    if (next.role !== was.role) this.#announce(was.role, next);
    if (!write && next.role === was.role) return next;
    if (!(await this.#lock.update(this.#record()))) await this.#recordNotOurs();
    this.#wroteAt = now;
    return next;
  }

  /** Active on a shared vault, and its record unwritten for LAPSE_BEATS heartbeats. */
  #lapsed(now: number): boolean {
    return this.#state.role === 'active' && now - this.#wroteAt >= LAPSE_BEATS * this.#o.heartbeatMs && sharedWith(this.#others, now);
  }

  #sayLapsed(now: number): void {
    const silent = seconds(now - this.#wroteAt);
    this.#o.log.warn(
      { machine: this.machine, silentMs: now - this.#wroteAt },
      `this machine's heartbeat was not written for ${silent} (asleep, or its disk refused it): another machine may have taken the vault over; this daemon stops its work and claims the vault again`,
    );
  }

  /**
   * This machine's record holds another claim, or is gone. Gone, spoilt or older: written again. Another claim:
   * a second machine with this name writes it (two hosts called the same), which no rule here
   * can sort out, since each takes the other's beats for its own; said once, loudly.
   */
  async #recordNotOurs(): Promise<void> {
    const file = instanceFile(this.#vault, this.machine);
    if (await this.#lock.restore()) {
      this.#o.log.warn({ file }, `${file} was removed; written again`);
      return;
    }
    // Not a record (empty, half written), or an older one of this machine (a sync tool's copy
    // of an earlier run): another host of this name would write beats newer than this one's.
    const there = parseMachineRecord(await smallTextOrUndefined(this.#vault.fs, file));
    if (!there || Date.parse(there.beatAt) < this.#wroteAt) {
      await this.#lock.replace();
      this.#o.log.warn({ file }, `${file} held ${there ? 'an older record of this machine' : 'no record'}; written again`);
      return;
    }
    if (this.#sameName) return;
    this.#sameName = true;
    this.#o.log.error(
      { file, machine: this.machine },
      `another machine writes ${file}: two machines are called ${this.machine}; give each its own MeetingAssistant.Daemon.MachineName, or each may take the other for itself`,
    );
  }

  #record(): Record<string, unknown> {
    return {
      machine: this.machine,
      role: this.#state.role,
      beatAt: this.#o.clock().toISOString(),
      heartbeatMs: this.#o.heartbeatMs,
      ...(this.#activeSince !== undefined && { activeSince: this.#activeSince }),
    };
  }

  #announce(was: MachineRole | undefined, next: RoleDecision): void {
    const { log, heartbeatMs, machine } = this.#o;
    const by = next.because;
    const fields = { machine, role: next.role, ...(by && { because: by.machine }) };
    if (next.role === 'active') {
      if (was !== undefined || this.#others.length > 0) log.info(fields, `active on this vault: machine ${machine}`);
    } else if (next.role === 'candidate') {
      // A first start on a vault no machine has left a record in: said why it waits at all.
      const first = was === undefined && this.#others.length === 0 && this.#looksShared !== undefined;
      const why = first ? `; no machine has run this vault yet, but it looks shared (${this.#looksShared}): another machine starting now would claim it too, and its claim arrives through the sync tool` : '';
      log.info({ ...fields, ...(first && { looksShared: this.#looksShared }) }, `no other machine is active on this vault: machine ${machine} claims it, active in ${seconds(SETTLE_BEATS * heartbeatMs)} unless another machine's claim arrives meanwhile${why}`);
    } else if (next.role === 'standby' && by) {
      const how =
        was === 'active'
          ? 'claimed the vault at the same time and goes first (its name sorts first); this daemon stops its work and'
          : by.role === 'candidate'
            ? 'claims the vault too and goes first (its name sorts first);'
            : 'is active on this vault;';
      log.info(fields, `standby: machine ${by.machine} ${how} this daemon takes over once it has been silent for ${seconds(STALE_BEATS * by.heartbeatMs)}`);
    }
  }

  /**
   * Beats until this machine is active (true), or until `signal` aborts (false). From then on
   * it beats every `heartbeatMs` by itself, from the moment it is active rather than once the
   * daemon has started its work, which may take longer than the others wait for a heartbeat.
   */
  async untilActive(signal?: AbortSignal): Promise<boolean> {
    while (this.#state.role !== 'active') {
      const woken = new Promise<void>((resolve) => (this.#wake = resolve));
      try {
        await Promise.race([delay(this.#o.heartbeatMs, undefined, signal ? { signal } : {}), woken]);
      } catch {
        return false;
      } finally {
        this.#wake = undefined;
      }
      if (this.role !== 'active') await this.beat().catch(() => undefined);
    }
    this.#keepBeating();
    return true;
  }

  /**
   * Another machine's record changed (the sync tool brought it): judged now, not at the next
   * heartbeat (docs/design.md §2; issue #45 point 1). This machine's own writes, temporary
   * files and conflict copies are not news.
   */
  #watchOthers(): void {
    const { watch } = this.#o;
    if (!watch) return;
    const news = (name: string | undefined) => {
      if (name === undefined) return true;
      const m = RECORD_NAME.exec(name);
      return m !== null && m[1] !== this.machine && !name.includes('.sync-conflict-');
    };
    try {
      const w = watch(machinesFolder(this.#vault), (name) => {
        if (this.#released || !news(name)) return;
        void this.#beatOnce(false).then(
          (d) => (this.#timer ? this.#stillActive(d) : d.role === 'active' && this.#wake?.()),
          () => undefined,
        );
      });
      this.#unwatch = () => w.close();
    } catch (err) {
      this.#o.log.debug({ err }, 'cannot watch the machines folder; the heartbeat reads it');
    }
  }

  #lose(why: string): void {
    clearInterval(this.#timer);
    if (this.#released || this.#lost) return;
    this.#lost = why;
    this.#onLost?.(why);
  }

  #stillActive(d: RoleDecision): void {
    if (d.role !== 'active') this.#lose(d.because ? `machine ${d.because.machine} is active on this vault` : 'its heartbeat lapsed: another machine may have taken the vault over');
  }

  #keepBeating(): void {
    if (this.#timer || this.#released) return;
    this.#timer = setInterval(() => {
      void this.beat().then(
        (d) => this.#stillActive(d),
        () => {
          const now = this.#o.clock().getTime();
          if (this.#state.role === 'active' && !this.#lapsed(now)) return;
          if (this.#state.role === 'active') this.#sayLapsed(now);
          this.#state = { role: 'standby' };
          this.#lose('its heartbeat could not be written');
        },
      );
    }, this.#o.heartbeatMs);
    this.#timer.unref();
  }

  /**
   * `onLost` is called once this machine is no longer active: another machine's claim goes
   * first (both claimed the vault before either saw the other), or its heartbeat lapsed
   * (LAPSE_BEATS); at once when that has happened already.
   */
  onLost(onLost: (why: string) => void): void {
    this.#onLost = onLost;
    if (this.#lost) onLost(this.#lost);
  }

  setHttp(url: string | undefined): Promise<void> {
    return this.#lock.setHttp(url);
  }

  status(): ClaimStatus {
    const now = this.#o.clock().getTime();
    const others = this.#others.map((r) => ({ machine: r.machine, role: r.role, beatAt: r.beatAt, fresh: this.#watch.isFresh(r, now) }));
    const active = this.#state.role === 'active' ? this.machine : others.find((r) => r.role === 'active' && r.fresh)?.machine;
    return { machine: this.machine, role: this.#state.role, ...(active !== undefined && { activeMachine: active }), others };
  }

  /**
   * Gives the claim up. The record stays, saying `stopped`: it tells this machine's next start
   * that the vault is its own (active at once), and a machine the vault reaches later that a
   * daemon ran it, so that one waits for the sync tool before it takes it (machine-roles.ts
   * `startingRole`).
   */
  async release(): Promise<void> {
    clearInterval(this.#timer);
    this.#unwatch?.();
    await this.#beating?.catch(() => undefined);
    this.#released = true;
    this.#state = { role: 'stopped' };
    this.#activeSince = undefined;
    await this.#lock.release(this.#record());
  }
}

/** One line for `status` and the status page: `alpha, active; also beta (standby)`. */
export function describeClaim(s: ClaimStatus): string {
  const others = s.others.map((o) => `${o.machine} (${o.role}${o.fresh || o.role === 'stopped' ? '' : ', silent'})`);
  const active = s.role !== 'active' && s.activeMachine !== undefined ? `, ${s.activeMachine} is active` : '';
  return `${s.machine}, ${s.role}${active}${others.length > 0 ? `; other machines on this vault: ${others.join(', ')}` : ''}`;
}

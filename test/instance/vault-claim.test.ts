import path from 'node:path';
import { describe, expect, it, onTestFinished } from 'vitest';
import { instanceFile, machinesFolder } from '../../src/instance/daemon-claim.js';
import { daemonRecordPath } from '../../src/instance/runtime-folder.js';
import { FORGET_AFTER_MS, HeartbeatWatch, type MachineRecord, nextRole, SETTLE_BEATS, STALE_BEATS } from '../../src/instance/machine-roles.js';
import { machineName } from '../../src/instance/machine-name.js';
import { readMachineRecords, VaultClaim } from '../../src/instance/vault-claim.js';
import { readText, readTextIfExists, walkFiles } from '../../src/vault/files/fs.js';
import type { Vault } from '../../src/vault/files/vault.js';
import { capturedLogger } from '../helpers/captured-log.js';
import { memoryVault } from '../helpers/memfs.js';

/** Polls `check` until it holds (a bound, not a timing: the claim's beat is a few awaits away). */
async function waitUntil(check: () => Promise<boolean>, timeoutMs = 5000): Promise<void> {
  const until = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > until) throw new Error('the condition did not hold in time');
    await new Promise((resolve) => setTimeout(resolve, 5));
  }
}

/**
 * The claim on a vault two machines share through a sync tool (docs/design.md §2): two vaults on
 * memfs stand for the two machines' copies, `sync` for the sync tool, and each machine has a
 * clock of its own that the test moves.
 */

const HEARTBEAT = 1000;
const STALE = STALE_BEATS * HEARTBEAT;
const SETTLE = SETTLE_BEATS * HEARTBEAT;
const T0 = Date.parse('2026-12-01T10:00:00Z');
const DEAD_PID = 2 ** 22 + 12345; // above Linux's pid_max: no such process

/** What a killed daemon leaves: its records (in the vault, and on the machine) as they were, naming a process that is gone. */
async function crash(m: Machine): Promise<void> {
  for (const file of [instanceFile(m.vault, m.name), await daemonRecordPath(m.vault, process.env)]) {
    const record = JSON.parse(await readText(m.vault.fs, file)) as Record<string, unknown>;
    await m.vault.fs.writeFile(file, JSON.stringify({ ...record, pid: DEAD_PID }));
  }
}

class Machine {
  now = T0;
  readonly log = capturedLogger('info');
  constructor(
    readonly name: string,
    readonly vault: Vault = memoryVault(),
  ) {}
  clock = () => new Date(this.now);
  claim(): Promise<VaultClaim> {
    return VaultClaim.claim(this.vault, { machine: this.name, heartbeatMs: HEARTBEAT, clock: this.clock, log: this.log.log });
  }
  messages(): string[] {
    return this.log.lines.map((l) => String(l.msg));
  }
}

/** The sync tool: every machine record one vault has and the other lacks or has older is copied over, whole. */
async function sync(a: Vault, b: Vault): Promise<void> {
  for (const [from, to] of [
    [a, b],
    [b, a],
  ] as const) {
    const folder = machinesFolder(from);
    let names: string[] = [];
    try {
      names = (await from.fs.readdir(folder, { withFileTypes: true })).map((e) => e.name);
    } catch {
      continue;
    }
    await to.fs.mkdir(machinesFolder(to), { recursive: true });
    for (const name of names) {
      if (name.startsWith('.')) continue;
      const text = await readText(from.fs, path.join(folder, name));
      const target = path.join(machinesFolder(to), name);
      const there = await readTextIfExists(to.fs, target);
      const when = (t: string | undefined) => (t ? Date.parse((JSON.parse(t) as { beatAt: string }).beatAt) : -Infinity);
      if (there !== text && when(text) >= when(there)) await to.fs.writeFile(target, text);
    }
  }
}

/** Both machines' clocks forward by `ms`, one heartbeat at a time, beating the claims given, syncing after each. */
async function run(ms: number, machines: Machine[], beating: { machine: Machine; claim: VaultClaim }[], vaults: [Vault, Vault]): Promise<void> {
  for (let t = 0; t < ms; t += HEARTBEAT) {
    for (const m of machines) m.now += HEARTBEAT;
    for (const b of beating) await b.claim.beat();
    await sync(...vaults);
  }
}

function pair(): { alpha: Machine; beta: Machine; vaults: [Vault, Vault] } {
  const alpha = new Machine('alpha');
  const beta = new Machine('beta');
  return { alpha, beta, vaults: [alpha.vault, beta.vault] };
}

const both = (alpha: Machine, a: VaultClaim, beta: Machine, b: VaultClaim) => [
  { machine: alpha, claim: a },
  { machine: beta, claim: b },
];

describe('machineName', () => {
  it('is the configured name, else the host name, reduced to what every file system and sync tool keeps', () => {
    expect(machineName('', () => 'Desk-Top.local')).toBe('desk-top');
    expect(machineName('  Laptop of Ann ', () => 'x')).toBe('laptop-of-ann');
    expect(machineName('', () => '../..')).toBe('this-machine');
    expect(machineName('a/b\\c:d', () => 'x')).toBe('a-b-c-d');
  });

  it("is the same on every network: macOS's host name takes the domain DHCP gives (.local at home, .fritz.box, .corp.example.com)", () => {
    const names = ['Anns-MacBook.local', 'anns-macbook.fritz.box', 'Anns-MacBook.corp.example.com', 'anns-macbook'].map((h) => machineName('', () => h));
    expect(new Set(names)).toEqual(new Set(['anns-macbook']));
    // A configured name is kept whole.
    expect(machineName('desk.top', () => 'x')).toBe('desk.top');
  });
});

describe('a vault no other machine shares', () => {
  it('is claimed at once, as before there were two machines; the record stays at the stop, saying stopped, and the next start is at once again', async () => {
    const alpha = new Machine('alpha');
    const claim = await alpha.claim();
    expect(claim.role).toBe('active');
    expect(claim.status()).toEqual({ machine: 'alpha', role: 'active', activeMachine: 'alpha', others: [] });
    await claim.beat();
    expect(claim.role).toBe('active');
    await claim.release();
    expect((await readMachineRecords(alpha.vault)).map((r) => [r.machine, r.role])).toEqual([['alpha', 'stopped']]);
    alpha.now += 30 * 24 * 3600_000;
    const again = await alpha.claim();
    expect(again.role).toBe('active');
    await again.release();
  });
});

describe('a vault another machine used, long ago or not (issue #45 point 1)', () => {
  it('is claimed as a candidate, which waits for the sync tool to catch up: a week-old record may be a copy not yet caught up with a machine active now', async () => {
    for (const age of [FORGET_AFTER_MS + HEARTBEAT, FORGET_AFTER_MS - HEARTBEAT, 30 * 24 * 3600_000]) {
      for (const role of ['stopped', 'active'] as const) {
        const ghost = { machine: 'old-laptop', role, beatAt: new Date(T0 - age).toISOString(), heartbeatMs: HEARTBEAT, pid: DEAD_PID, startedAt: '' };
        const alpha = new Machine('alpha', memoryVault({ '.meeting-assistant/machines/old-laptop.json': JSON.stringify(ghost) }));
        const claim = await alpha.claim();
        expect(claim.role, `${role}, ${age} ms old`).toBe('candidate');
        await claim.release();
      }
    }
  });

  it('a laptop back after a week: the desktop, active now, is heard as soon as the sync tool brings its record, and the laptop never becomes active', async () => {
    const { alpha, beta, vaults } = pair();
    // alpha (the desktop) is active; beta's copy still shows alpha's record of a week ago.
    const a = await alpha.claim();
    const weekOld = { machine: 'alpha', role: 'active', beatAt: new Date(T0 - 8 * 24 * 3600_000).toISOString(), heartbeatMs: HEARTBEAT, pid: DEAD_PID, startedAt: '' };
    await beta.vault.fs.mkdir(machinesFolder(beta.vault), { recursive: true });
    await beta.vault.fs.writeFile(instanceFile(beta.vault, 'alpha'), JSON.stringify(weekOld));
    const b = await beta.claim();
    expect(b.role).toBe('candidate');
    // The sync tool catches up within the settle time (a beat reads before the sync copies).
    await run(SETTLE, [alpha, beta], both(alpha, a, beta, b), vaults);
    expect([a.role, b.role]).toEqual(['active', 'standby']);
    await run(SETTLE * 3, [alpha, beta], both(alpha, a, beta, b), vaults);
    expect([a.role, b.role]).toEqual(['active', 'standby']);
  });

  it("another machine's record heard through the folder's watch is judged at once, not at the next heartbeat; the machine's own writes are not news", async () => {
    const alpha = new Machine('alpha', memoryVault({ '.meeting-assistant/machines/beta.json': JSON.stringify({ machine: 'beta', role: 'stopped', beatAt: new Date(T0 - 60_000).toISOString(), heartbeatMs: HEARTBEAT, pid: 1, startedAt: '' }) }));
    let changed: ((name: string | undefined) => void) | undefined;
    const claim = await VaultClaim.claim(alpha.vault, { machine: 'alpha', heartbeatMs: 60_000, clock: alpha.clock, log: alpha.log.log, watch: (_folder, onChange) => ((changed = onChange), { close: () => undefined }) });
    onTestFinished(() => claim.release());
    expect(claim.role).toBe('candidate');
    const file = instanceFile(alpha.vault, 'beta');
    const written = async () => (await alpha.vault.fs.stat(instanceFile(alpha.vault, 'alpha'))).mtimeMs;
    const before = await readText(alpha.vault.fs, instanceFile(alpha.vault, 'alpha'));
    // Its own record and a temporary file: nothing read, nothing written.
    changed!('alpha.json');
    changed!('.beta.json.12-ab.ma-tmp');
    await Promise.resolve();
    expect(await readText(alpha.vault.fs, instanceFile(alpha.vault, 'alpha'))).toBe(before);
    // beta's record arrives, active: alpha is its standby at once, its record saying so.
    await alpha.vault.fs.writeFile(file, JSON.stringify({ machine: 'beta', role: 'active', beatAt: new Date(T0).toISOString(), heartbeatMs: HEARTBEAT, pid: 1, startedAt: '' }));
    changed!('beta.json');
    await waitUntil(async () => claim.role === 'standby' && (await readText(alpha.vault.fs, instanceFile(alpha.vault, 'alpha'))).includes('"standby"'));
    expect(await written()).toBeGreaterThan(0);
  });
});

describe('a judgement on news and a heartbeat at once', () => {
  it("the heartbeat still writes this machine's record, though the judgement it meets writes nothing", async () => {
    const alpha = new Machine('alpha', memoryVault({ '.meeting-assistant/machines/beta.json': JSON.stringify({ machine: 'beta', role: 'stopped', beatAt: new Date(T0 - 60_000).toISOString(), heartbeatMs: HEARTBEAT, pid: 1, startedAt: '' }) }));
    let changed: ((name: string | undefined) => void) | undefined;
    const claim = await VaultClaim.claim(alpha.vault, { machine: 'alpha', heartbeatMs: HEARTBEAT, clock: alpha.clock, log: alpha.log.log, watch: (_folder, onChange) => ((changed = onChange), { close: () => undefined }) });
    onTestFinished(() => claim.release());
    alpha.now += HEARTBEAT;
    changed!('beta.json');
    await claim.beat();
    const mine = JSON.parse(await readText(alpha.vault.fs, instanceFile(alpha.vault, 'alpha'))) as { beatAt: string };
    expect(mine.beatAt).toBe(new Date(alpha.now).toISOString());
  });
});

describe('two machines, one synced vault', () => {
  it('the second daemon is a standby while the first beats, and takes over only after STALE_BEATS silent heartbeats and the settle time', async () => {
    const { alpha, beta, vaults } = pair();
    const a = await alpha.claim();
    await sync(...vaults);
    const b = await beta.claim();
    expect(b.role).toBe('standby');
    expect(beta.messages().join('\n')).toContain('standby: machine alpha is active on this vault; this daemon takes over once it has been silent for 6 s');
    expect(b.status()).toMatchObject({ machine: 'beta', role: 'standby', activeMachine: 'alpha' });

    // A long time of both beating: beta stays a standby.
    await run(20 * HEARTBEAT, [alpha, beta], both(alpha, a, beta, b), vaults);
    expect([a.role, b.role]).toEqual(['active', 'standby']);
    expect(a.status().others).toEqual([expect.objectContaining({ machine: 'beta', role: 'standby', fresh: true })]);

    // alpha is killed: its record stays, saying active, and stops changing. beta sees its last
    // beat a heartbeat after it was written (its read comes before the sync), so its silence
    // counts from then.
    await run(STALE, [alpha, beta], [{ machine: beta, claim: b }], vaults);
    expect(b.role).toBe('standby');
    await run(HEARTBEAT, [alpha, beta], [{ machine: beta, claim: b }], vaults);
    expect(b.role).toBe('candidate');
    await run(SETTLE - HEARTBEAT, [alpha, beta], [{ machine: beta, claim: b }], vaults);
    expect(b.role).toBe('candidate');
    await run(HEARTBEAT, [alpha, beta], [{ machine: beta, claim: b }], vaults);
    expect(b.role).toBe('active');
    expect(b.status()).toMatchObject({ role: 'active', activeMachine: 'beta' });

    // alpha comes back: beta is active and fresh, so alpha is its standby.
    await crash(alpha);
    const again = await alpha.claim();
    expect(again.role).toBe('standby');
    expect(again.status().activeMachine).toBe('beta');
  });

  it('a standby writes nothing but its own record', async () => {
    const { alpha, beta, vaults } = pair();
    const a = await alpha.claim();
    await sync(...vaults);
    const b = await beta.claim();
    await run(4 * HEARTBEAT, [alpha, beta], both(alpha, a, beta, b), vaults);
    const files: string[] = [];
    await walkFiles(beta.vault.fs, beta.vault.root, {}, (f) => void files.push(f.rel));
    expect(files.sort()).toEqual(['.meeting-assistant/machines/alpha.json', '.meeting-assistant/machines/beta.json']);
  });

  it('a machine whose clock runs far behind is not taken over: its next beat proves it alive while the other waits as a candidate', async () => {
    const { alpha, beta, vaults } = pair();
    alpha.now = T0 - 10 * 60_000;
    const a = await alpha.claim();
    await sync(...vaults);
    const b = await beta.claim();
    // At first sight alpha's record is ten minutes old: beta claims, but waits the settle time.
    expect(b.role).toBe('candidate');
    await run(4 * SETTLE, [alpha, beta], both(alpha, a, beta, b), vaults);
    expect([a.role, b.role]).toEqual(['active', 'standby']);
  });

  it('two daemons that start at once on a shared vault end with one active: the name that sorts first', async () => {
    const { alpha, beta, vaults } = pair();
    // Both ran on the vault before and stopped: each knows the vault is shared.
    for (const m of [alpha, beta]) {
      const stopped = { machine: m.name, role: 'stopped', beatAt: new Date(T0 - 86_400_000).toISOString(), heartbeatMs: HEARTBEAT, pid: DEAD_PID, startedAt: '' };
      await m.vault.fs.mkdir(machinesFolder(m.vault), { recursive: true });
      await m.vault.fs.writeFile(instanceFile(m.vault, m.name), JSON.stringify(stopped));
    }
    await sync(...vaults);
    const [a, b] = [await alpha.claim(), await beta.claim()];
    expect([a.role, b.role]).toEqual(['candidate', 'candidate']);
    await run(2 * SETTLE, [alpha, beta], both(alpha, a, beta, b), vaults);
    expect([a.role, b.role]).toEqual(['active', 'standby']);
  });

  it('two daemons that both became active before either saw the other: the one whose name sorts later steps down', async () => {
    const { alpha, beta, vaults } = pair();
    const [a, b] = [await alpha.claim(), await beta.claim()];
    expect([a.role, b.role]).toEqual(['active', 'active']);
    await sync(...vaults);
    await a.beat();
    const decision = await b.beat();
    expect(decision).toMatchObject({ role: 'standby', because: { machine: 'alpha' } });
    expect(a.role).toBe('active');
    expect(beta.messages().join('\n')).toContain('standby: machine alpha claimed the vault at the same time and goes first');
    await b.release();
  });

  it('an active daemon beats by itself, and hears at its next heartbeat that another active machine goes first', async () => {
    const { alpha, beta } = pair();
    const [a, b] = [await alpha.claim(), await beta.claim()];
    onTestFinished(() => Promise.all([a.release(), b.release()]).then(() => undefined));
    await sync(alpha.vault, beta.vault);
    expect(await b.untilActive()).toBe(true);
    const lost = await new Promise<string>((resolve) => b.onLost(resolve));
    expect(lost).toBe('machine alpha is active on this vault');
    expect(b.role).toBe('standby');
    // Once lost, a handler given later hears it at once.
    expect(await new Promise<string>((resolve) => b.onLost(resolve))).toBe('machine alpha is active on this vault');
  });

  it('a daemon restarted while its own record is fresh is active at once; one that stopped on a shared vault leaves a record that says so', async () => {
    const { alpha, beta, vaults } = pair();
    const a = await alpha.claim();
    await sync(...vaults);
    const b = await beta.claim();
    await sync(...vaults);
    await a.beat();
    // alpha's daemon crashes (no release) and its service restarts it a heartbeat later.
    await crash(alpha);
    alpha.now += HEARTBEAT;
    expect((await alpha.claim()).role).toBe('active');

    await b.release();
    const left = (await readMachineRecords(beta.vault)).find((r) => r.machine === 'beta');
    expect(left?.role).toBe('stopped');
  });
});

describe("this machine's record changed by something else", () => {
  it('is written again when it is removed, and a second machine of the same name is named once', async () => {
    const alpha = new Machine('alpha');
    const claim = await alpha.claim();
    const file = instanceFile(alpha.vault, 'alpha');
    await alpha.vault.fs.unlink(file);
    await claim.beat();
    expect((await readMachineRecords(alpha.vault)).map((r) => [r.machine, r.role])).toEqual([['alpha', 'active']]);
    expect(alpha.messages()).toContain(`${file} was removed; written again`);

    // Another host called alpha: its record, with its own claim, where this one's was.
    await alpha.vault.fs.writeFile(file, JSON.stringify({ machine: 'alpha', role: 'active', beatAt: new Date(T0).toISOString(), heartbeatMs: HEARTBEAT, pid: 77, claim: 'theirs', startedAt: '' }));
    await claim.beat();
    await claim.beat();
    const errors = alpha.log.lines.filter((l) => l.level === 'error').map((l) => l.msg);
    expect(errors).toEqual([`another machine writes ${file}: two machines are called alpha; give each its own MeetingAssistant.Daemon.MachineName, or each may take the other for itself`]);
  });
});

describe('the records as read', () => {
  it('skips temporary files, sync conflict copies and records that do not parse or name another machine', async () => {
    const vault = memoryVault({
      '.meeting-assistant/machines/alpha.json': JSON.stringify({ machine: 'alpha', role: 'active', beatAt: '2026-12-01T10:00:00Z', heartbeatMs: 1000, pid: 1, startedAt: 'x' }),
      '.meeting-assistant/machines/alpha.sync-conflict-20261201-100000-ABCDEFG.json': JSON.stringify({ machine: 'alpha', role: 'active', beatAt: '2026-12-01T10:00:00Z', heartbeatMs: 1000 }),
      '.meeting-assistant/machines/.alpha.json.12-ab.ma-tmp': '{',
      '.meeting-assistant/machines/gamma.json': '{ half',
      '.meeting-assistant/machines/delta.json': JSON.stringify({ machine: 'alpha', role: 'active', beatAt: '2026-12-01T10:00:00Z', heartbeatMs: 1000 }),
      '.meeting-assistant/machines/beta (conflicted copy).json': JSON.stringify({ machine: 'beta', role: 'active', beatAt: '2026-12-01T10:00:00Z', heartbeatMs: 1000 }),
    });
    expect((await readMachineRecords(vault)).map((r) => r.machine)).toEqual(['alpha']);
  });
});

describe('the role rules', () => {
  const record = (machine: string, role: MachineRecord['role']): MachineRecord => ({ machine, role, beatAt: new Date(T0).toISOString(), heartbeatMs: HEARTBEAT, pid: 1, startedAt: '' });

  it('an active machine never yields to a candidate, and yields to another active one only when that name sorts first', () => {
    expect(nextRole('beta', { role: 'active' }, [record('alpha', 'candidate')], T0, SETTLE).role).toBe('active');
    expect(nextRole('alpha', { role: 'active' }, [record('beta', 'active')], T0, SETTLE).role).toBe('active');
    expect(nextRole('beta', { role: 'active' }, [record('alpha', 'active')], T0, SETTLE)).toMatchObject({ role: 'standby', because: { machine: 'alpha' } });
  });

  it('a candidate yields to an active machine and to a candidate that sorts first; else it is active once settled', () => {
    const candidate = { role: 'candidate' as const, candidateSince: T0 };
    expect(nextRole('alpha', candidate, [record('beta', 'active')], T0, SETTLE).role).toBe('standby');
    expect(nextRole('beta', candidate, [record('alpha', 'candidate')], T0 + SETTLE, SETTLE).role).toBe('standby');
    expect(nextRole('alpha', candidate, [record('beta', 'candidate')], T0 + SETTLE - 1, SETTLE).role).toBe('candidate');
    expect(nextRole('alpha', candidate, [record('beta', 'candidate'), record('gamma', 'standby')], T0 + SETTLE, SETTLE).role).toBe('active');
  });

  it('a heartbeat is judged by when this machine saw it change, whatever the other clock says', () => {
    const watch = new HeartbeatWatch();
    const ahead = { ...record('alpha', 'active'), beatAt: new Date(T0 + 3_600_000).toISOString() };
    watch.observe([ahead], T0);
    expect(watch.isFresh(ahead, T0 + STALE - 1)).toBe(true);
    // Its clock an hour ahead, its record the same ever since: stale, though it names a time to come.
    expect(watch.isFresh(ahead, T0 + STALE)).toBe(false);
    const next = { ...ahead, beatAt: new Date(T0 + 3_600_000 + HEARTBEAT).toISOString() };
    watch.observe([next], T0 + STALE);
    expect(watch.isFresh(next, T0 + STALE)).toBe(true);
  });
});

describe("this machine's record spoilt by the sync tool", () => {
  it('is written again at the next beat when it is left empty or half written, or holds an older record of this machine', async () => {
    const { alpha, beta, vaults } = pair();
    const a = await alpha.claim();
    await sync(...vaults);
    const b = await beta.claim();
    const file = instanceFile(alpha.vault, 'alpha');
    const older = JSON.stringify({ machine: 'alpha', role: 'active', beatAt: new Date(T0 - 3_600_000).toISOString(), heartbeatMs: HEARTBEAT, pid: DEAD_PID, claim: 'an-earlier-run', startedAt: '' });
    for (const spoilt of ['', '{"machine": "alpha", "ro', older]) {
      await alpha.vault.fs.writeFile(file, spoilt);
      alpha.now += HEARTBEAT;
      beta.now += HEARTBEAT;
      await a.beat();
      const mine = (await readMachineRecords(alpha.vault)).find((r) => r.machine === 'alpha');
      expect(mine).toMatchObject({ role: 'active', beatAt: new Date(alpha.now).toISOString() });
      await b.beat();
      await sync(...vaults);
    }
    // beta never took alpha for gone.
    await run(2 * STALE, [alpha, beta], both(alpha, a, beta, b), vaults);
    expect([a.role, b.role]).toEqual(['active', 'standby']);
    expect(alpha.log.lines.filter((l) => l.level === 'error')).toEqual([]);
  });
});

describe('an active machine that cannot have beaten', () => {
  /** The vault's disk refuses writes from now on (full, or mounted read-only). */
  function refuseWrites(vault: Vault): void {
    (vault.fs as unknown as Record<string, unknown>).rename = () => Promise.reject(Object.assign(new Error('ENOSPC: no space left on device'), { code: 'ENOSPC' }));
  }

  it('steps down once its heartbeat has not been written for long enough that another machine may take over', async () => {
    const { alpha, beta, vaults } = pair();
    const a = await alpha.claim();
    await sync(...vaults);
    const b = await beta.claim();
    await run(3 * HEARTBEAT, [alpha, beta], both(alpha, a, beta, b), vaults);
    refuseWrites(alpha.vault);
    // beta hears nothing from alpha and takes the vault over after STALE + SETTLE heartbeats (and
    // one more, as its read comes before the sync): alpha must have stopped being active by then.
    for (let t = 0; t < STALE + 2 * SETTLE; t += HEARTBEAT) {
      alpha.now += HEARTBEAT;
      beta.now += HEARTBEAT;
      await a.beat().catch(() => undefined);
      await b.beat();
      await sync(...vaults);
      if (b.role === 'active') break;
    }
    expect(b.role).toBe('active');
    expect(a.role).not.toBe('active');
  });

  it('beating by itself, it tells the daemon to stop its work once its beats have failed for LAPSE_BEATS heartbeats', async () => {
    const vault = memoryVault();
    await vault.fs.mkdir(machinesFolder(vault), { recursive: true });
    const standby = { machine: 'beta', role: 'standby', beatAt: new Date().toISOString(), heartbeatMs: 20, pid: DEAD_PID, startedAt: '' };
    await vault.fs.writeFile(instanceFile(vault, 'beta'), JSON.stringify(standby));
    const log = capturedLogger('info');
    const a = await VaultClaim.claim(vault, { machine: 'alpha', heartbeatMs: 20, clock: () => new Date(), log: log.log });
    onTestFinished(() => a.release());
    expect(await a.untilActive()).toBe(true);
    refuseWrites(vault);
    const why = await new Promise<string>((resolve) => a.onLost(resolve));
    expect(why).toBe('its heartbeat could not be written');
    expect(a.role).not.toBe('active');
    // The failing beats said once, not at every heartbeat.
    expect(log.lines.filter((l) => String(l.msg).startsWith('could not read or write the claims'))).toHaveLength(1);
  });

  it('alone on its vault, it stays active while its disk refuses writes, as before there were two machines', async () => {
    const alpha = new Machine('alpha');
    const a = await alpha.claim();
    refuseWrites(alpha.vault);
    for (let i = 0; i < 3 * STALE_BEATS; i++) {
      alpha.now += HEARTBEAT;
      await a.beat().catch(() => undefined);
    }
    expect(a.role).toBe('active');
  });

  it('steps down when it wakes from a sleep in which the other machine took over, even before the sync tool brings that', async () => {
    const { alpha, beta, vaults } = pair();
    const a = await alpha.claim();
    await sync(...vaults);
    const b = await beta.claim();
    await run(3 * HEARTBEAT, [alpha, beta], both(alpha, a, beta, b), vaults);
    // alpha (the name that sorts first) sleeps; beta takes over meanwhile.
    await run(STALE + 2 * SETTLE, [beta], [{ machine: beta, claim: b }], vaults);
    expect(b.role).toBe('active');
    // alpha wakes an hour later by its clock; its sync tool has not caught up yet.
    alpha.now += 60 * 60_000;
    await a.beat();
    expect(a.role).not.toBe('active');
    // Once in sync, beta, which took the vault over, keeps it.
    await run(4 * SETTLE, [alpha, beta], both(alpha, a, beta, b), vaults);
    expect([a.role, b.role]).toEqual(['standby', 'active']);
  });
});

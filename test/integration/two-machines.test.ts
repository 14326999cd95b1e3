import { existsSync } from 'node:fs';
import path from 'node:path';
import { describe, it } from 'vitest';
import { listFiles, runCli, waitFor } from '../helpers/daemon-process.js';
import { daemonSetup, daemonTestFile, dataOf, meetingOfRequest, meetingNote, summarizingModel, testScope, transcriptNote } from '../helpers/daemon-helpers.js';
import { toolCallsSoFar, toolNamesOf } from '../helpers/scripted-server.js';
import { startSyncLoop } from '../helpers/sync-loop.js';
import { contextAndSummaryLinks } from '../helpers/notes.js';

/**
 * Two machines, one vault (docs/design.md §2): two copies of a vault kept in step by a sync loop
 * that behaves as Syncthing does (sync-loop.ts), a real daemon on each with a machine name of
 * its own, one scripted endpoint. Each meeting is summarized once, by the active machine; the
 * standby writes nothing but its own record; no conflict copy appears; the standby takes over
 * once the active daemon is killed; `status` says which machine is active.
 *
 * Each test has vaults, a scripted endpoint and daemons of its own; they run one after the
 * other: the takeover and the claim on a new vault race a daemon's start against a 3 s
 * window, which daemons starting beside them would lose under load.
 */

// Each test ends its own daemons and server (testScope); the vaults go after the file.
daemonTestFile('all');

// A heartbeat of 500 ms: a standby takes over after 6 silent beats (3 s) and 2 more as a candidate;
// short for the test, long enough that a loaded machine delaying a beat is not taken for a machine gone.
const HEARTBEAT_SECONDS = 0.5;
const SYNC_DELAY_MS = 150;

const machineEnv = (name: string) => ({ MeetingAssistant__Daemon__MachineName: name });
const record = (vault: string, machine: string) => path.join(vault, '.meeting-assistant', 'machines', `${machine}.json`);

describe('two machines, one synced vault', () => {
  it('each meeting is summarized once, by the active machine, with no conflict copy; the standby takes over when the active daemon is killed', { timeout: 240_000 }, async ({ expect, onTestFinished }) => {
    const file = await testScope(onTestFinished);
    file.server.setFallback(summarizingModel());
    const [alpha, beta] = [await daemonSetup(file.server), await daemonSetup(file.server)];
    for (const s of [alpha, beta]) s.configure({ Daemon: { HeartbeatSeconds: HEARTBEAT_SECONDS } });
    const first = '2026-12-01 0900 Planning';
    alpha.write(`Meetings/${first}.md`, meetingNote(first));
    alpha.write(`Meetings/Transcripts/${first}.md`, transcriptNote(first, 'finished'));
    const sync = startSyncLoop({ a: alpha.vault, b: beta.vault }, { delayMs: SYNC_DELAY_MS });
    onTestFinished(() => sync.stop());

    // alpha is alone on the vault: active at once, as a single machine always was.
    const a = await file.start({ configPath: alpha.configPath, env: machineEnv('alpha') });
    await waitFor(() => existsSync(record(beta.vault, 'alpha')), "alpha's record on beta's copy");
    const b = await file.start({ configPath: beta.configPath, env: machineEnv('beta'), waitReady: false });
    await b.waitForLog((l) => l.msg?.startsWith('standby: machine alpha is active on this vault') === true, 30_000, "beta's standby line");

    const done = (s: typeof alpha, name: string) => dataOf(s, `Meetings/Summaries/${name}.md`)?.status === 'done';
    await waitFor(() => done(alpha, first) && done(beta, first), 'the first summary, on both copies', 60_000);

    // A meeting recorded on beta's machine: it travels to alpha, which summarizes it.
    const second = '2026-12-01 1100 Review';
    beta.write(`Meetings/${second}.md`, meetingNote(second));
    beta.write(`Meetings/Transcripts/${second}.md`, transcriptNote(second, 'finished'));
    await waitFor(() => done(beta, second) && dataOf(beta, `Meetings/Context/${second}.md`)?.state === 'finished', 'the second summary, back on beta', 60_000);

    // A meeting that reaches both copies at once (recorded on a phone that syncs to both): both
    // daemons would see it finished before either saw the other's run.
    const third = '2026-12-01 1200 Call';
    for (const s of [alpha, beta]) {
      // Linked to its context and summary notes already, so the daemon has no reason to write it.
      s.write(`Meetings/${third}.md`, meetingNote(third, contextAndSummaryLinks(third)));
      s.write(`Meetings/Transcripts/${third}.md`, transcriptNote(third, 'finished'));
    }
    await waitFor(() => done(alpha, third) && done(beta, third) && dataOf(beta, `Meetings/Context/${third}.md`)?.state === 'finished', 'the summary of the meeting on both copies', 60_000);

    // The standby wrote nothing but its own record (the meeting's notes were the test's, the person's).
    // (An atomic write's temporary file counts as a write of the file it becomes.)
    const written = (side: 'a' | 'b') => [...new Set(sync.changedOn(side).map((f) => f.replace(/\/\.([^/]+)\.\d+-[0-9a-f]+\.ma-tmp$/, '/$1')))].sort();
    // (What reached both copies at once is no one's change.)
    expect(written('b')).toEqual(['.meeting-assistant/machines/beta.json', `Meetings/${second}.md`, `Meetings/Transcripts/${second}.md`]);
    expect(b.logs.some((l) => l.msg?.startsWith('ready:'))).toBe(false);

    // status, on either machine, says which machine is active. (The three commands only read:
    // they run at once.)
    const [statusB, statusA, summarizeB] = await Promise.all([
      runCli(['status', '--config', beta.configPath], { env: machineEnv('beta'), timeoutMs: 60_000 }),
      runCli(['status', '--config', alpha.configPath], { env: machineEnv('alpha'), timeoutMs: 60_000 }),
      runCli(['summarize', `Meetings/${second}.md`, '--config', beta.configPath], { env: machineEnv('beta'), timeoutMs: 60_000 }),
    ]);
    expect(statusB.stdout).toMatch(/daemon: standby on this machine \(beta\), pid \d+, since .*: machine alpha is active on this vault \(last heartbeat \d+ s ago\)/);
    expect(statusA.stdout).toContain('machine: alpha, active; other machines on this vault: beta (standby)');
    // A summarize on the standby's machine would run the meeting alpha runs: refused, naming alpha.
    expect(summarizeB.code).toBe(1);
    expect(summarizeB.stderr).toContain('machine alpha runs this vault');

    // alpha's machine goes away; beta takes over and summarizes what comes next.
    await a.kill();
    await b.waitForLog((l) => l.msg === 'active on this vault: machine beta', 30_000, "beta's takeover");
    await b.waitForLog((l) => l.msg?.startsWith('ready:') === true, 30_000, 'beta ready');
    const fourth = '2026-12-01 1400 Retro';
    beta.write(`Meetings/${fourth}.md`, meetingNote(fourth));
    beta.write(`Meetings/Transcripts/${fourth}.md`, transcriptNote(fourth, 'finished'));
    // status while beta runs it: what it says of the machines does not wait for the run.
    const statusAfter = await runCli(['status', '--config', beta.configPath], { env: machineEnv('beta'), timeoutMs: 60_000 });
    await waitFor(() => done(beta, fourth), 'the fourth summary, by beta', 60_000);
    expect(statusAfter.stdout).toContain('machine: beta, active; other machines on this vault: alpha (active, silent)');

    // alpha's machine comes back: beta is active, so alpha is its standby; a stop ends its wait at once.
    const again = await file.start({ configPath: alpha.configPath, env: machineEnv('alpha'), waitReady: false });
    await again.waitForLog((l) => l.msg?.startsWith('standby: machine beta is active on this vault') === true, 30_000, "alpha's standby line");
    const stopped = await again.stop('SIGTERM', 15_000);
    expect(stopped.code).toBe(0);
    expect(again.logs.some((l) => l.msg?.startsWith('ready:'))).toBe(false);

    // Each meeting summarized exactly once: one conversation each, one "summary written" each.
    const runsOf = (name: string) =>
      file.server.modelRequests().filter((r) => meetingOfRequest(r) === `Meetings/${name}.md` && toolNamesOf(r).includes('write_summary') && toolCallsSoFar(r).length === 0).length;
    const meetings = [first, second, third, fourth];
    expect(meetings.map(runsOf)).toEqual([1, 1, 1, 1]);
    const summaries = [...a.logs, ...b.logs].filter((l) => l.msg?.startsWith('summary written: Meetings/Summaries/')).map((l) => l.meeting);
    expect(summaries.sort()).toEqual(meetings.map((n) => `Meetings/${n}.md`).sort());
    // No conflict copy anywhere, on either copy.
    expect(sync.conflicts).toEqual([]);
    for (const s of [alpha, beta]) expect(listFiles(s.vault).filter((f) => f.includes('.sync-conflict-'))).toEqual([]);
    expect((await b.stop('SIGTERM', 15_000)).code).toBe(0);
  });

  it("two daemons that start at once on a vault neither has run: once the sync tool brings the other's record, the later name stops its work and waits as the standby", { timeout: 120_000 }, async ({ expect, onTestFinished }) => {
    const file = await testScope(onTestFinished);
    const [alpha, beta] = [await daemonSetup(file.server), await daemonSetup(file.server)];
    for (const s of [alpha, beta]) s.configure({ Daemon: { HeartbeatSeconds: HEARTBEAT_SECONDS } });
    // Both are up before the sync tool carries anything: neither has seen the other.
    const [a, b] = await Promise.all([
      file.start({ configPath: alpha.configPath, env: machineEnv('alpha') }),
      file.start({ configPath: beta.configPath, env: machineEnv('beta') }),
    ]);
    const sync = startSyncLoop({ a: alpha.vault, b: beta.vault }, { delayMs: SYNC_DELAY_MS });
    onTestFinished(() => sync.stop());
    await b.waitForLog((l) => l.msg?.startsWith('standby: machine alpha claimed the vault at the same time and goes first') === true, 30_000, "beta's step-down");
    await b.waitForLog((l) => l.msg === 'stopped', 30_000, "beta's clean stop of its work");
    // Its process goes on, as alpha's standby.
    await b.waitForLog((l) => l.msg?.startsWith('standby: machine alpha is active on this vault') === true, 30_000, 'beta a standby again');
    expect(b.child.exitCode).toBeNull();
    expect(a.logs.some((l) => l.msg?.startsWith('standby:'))).toBe(false);
    expect((await b.stop('SIGTERM', 15_000)).code).toBe(0);
  });
});

import { execFileSync } from 'node:child_process';
import { existsSync, readFileSync, symlinkSync, unlinkSync, writeFileSync } from 'node:fs';
import { pathToFileURL } from 'node:url';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { COLD_RUN_WAIT_MS, exitWithin, startDaemonProcess, waitFor } from '../helpers/daemon-process.js';
import { lastToolResults, projectStepCalls, type ScriptedServer, type Step, toolCallsSoFar, toolNamesOf } from '../helpers/scripted-server.js';
import { type DaemonSetup, daemonSetup, daemonTestFile, dataOf, editProperty, failingModel, meetingNote, meetingOfRequest, SUMMARY_BODY, summarizingModel, testScope, transcriptNote } from '../helpers/daemon-helpers.js';
import { machineName } from '../../src/instance/machine-name.js';

/**
 * Issue #24 under the real daemon (docs/design.md §4): sync tools' conflict copies are no
 * triggers, a FIFO in a project does not hang the run or the stop, a transcript linked to
 * /dev/zero does not eat memory.
 *
 * Each test has a vault, a daemon and a scripted server of its own (its model, its count of
 * requests), so the tests run at once: most of a test's time is waiting (a process's start, a
 * run's turns, the stop's forced end), which the others fill. Each test's daemons and server
 * end with it (testScope; the stop test's with the file); the vaults go once the file is
 * done. Sharing the machine with each other, their waits for a run are bounded as for a cold
 * run's start (COLD_RUN_WAIT_MS).
 */

const file = daemonTestFile('all');
const hasMkfifo = (() => {
  try {
    execFileSync('mkfifo', ['--version'], { stdio: 'ignore' });
    return process.platform !== 'win32';
  } catch {
    return false;
  }
})();

const requestsFor = (server: ScriptedServer, name: string) => server.requests.filter((r) => meetingOfRequest(r) === `Meetings/${name}.md`).length;

/** A meeting the daemon summarizes after the step under test: once it is done, the events before it were handled. */
async function sentinel(s: DaemonSetup, name: string): Promise<void> {
  s.write(`Meetings/${name}.md`, meetingNote(name));
  s.write(`Meetings/Transcripts/${name}.md`, transcriptNote(name, 'finished'));
  await waitFor(() => dataOf(s, `Meetings/Summaries/${name}.md`)?.status === 'done', `the summary of ${name}`, COLD_RUN_WAIT_MS);
}

describe.concurrent("sync tools' files are not notes", () => {
  it('a conflict copy of a failure report with retry: true retries nothing and is not written; the real report still retries', async ({ onTestFinished }) => {
    const scope = await testScope(onTestFinished, failingModel);
    const server = scope.server;
    const s = await daemonSetup(server);
    const name = 'Conflict Retry';
    s.write(`Meetings/${name}.md`, meetingNote(name));
    s.write(`Meetings/Transcripts/${name}.md`, transcriptNote(name, 'transcribing'));
    const d = await scope.start({ configPath: s.configPath });
    editProperty(s, `Meetings/Transcripts/${name}.md`, 'state', 'transcribing', 'finished');
    const rel = `Meetings/Summaries/${name}.md`;
    await waitFor(() => dataOf(s, rel)?.status === 'failed', 'the failure report', COLD_RUN_WAIT_MS);
    server.setFallback(summarizingModel());
    const copies = [`Meetings/Summaries/${name}.sync-conflict-20261130-101500-ABCDEFG.md`, `Meetings/Summaries/${name} (Conflicted copy 2026-11-30 101500).md`];
    const copyText = s.read(rel).replace(/^retry: false$/m, 'retry: true');
    for (const copy of copies) s.write(copy, copyText);
    const before = requestsFor(server, name);
    await sentinel(s, 'After Copies');
    expect(requestsFor(server, name)).toBe(before);
    for (const copy of copies) expect(s.read(copy)).toBe(copyText);
    expect(dataOf(s, rel)?.status).toBe('failed');
    // The watcher never even reported them.
    expect(d.logs.some((l) => l.msg === 'file event' && /sync-conflict|Conflicted copy/.test(String(l.path)))).toBe(false);
    // The catch-up scan of a restart does not take them for retries either.
    await d.stop();
    const again = await scope.start({ configPath: s.configPath });
    await again.waitForLog((l) => typeof l.msg === 'string' && l.msg.startsWith('catch-up scan:'), 20_000, 'the start-up scan');
    await sentinel(s, 'After Restart');
    expect(requestsFor(server, name)).toBe(before);
    for (const copy of copies) expect(s.read(copy)).toBe(copyText);
    // The real note's own retry works.
    editProperty(s, rel, 'retry', 'false', 'true');
    await waitFor(() => dataOf(s, rel)?.status === 'done', 'the retried summary', COLD_RUN_WAIT_MS);
    for (const copy of copies) expect(s.read(copy)).toBe(copyText);
  });

  it('a conflict copy of a transcript saying finished starts no run; the real transcript does, when it is finished', async ({ onTestFinished }) => {
    const scope = await testScope(onTestFinished, summarizingModel());
    const server = scope.server;
    const s = await daemonSetup(server);
    const name = 'Conflict Transcript';
    s.write(`Meetings/${name}.md`, meetingNote(name));
    s.write(`Meetings/Transcripts/${name}.md`, transcriptNote(name, 'transcribing', '[00:00:05] Alice: first half.\n'));
    const d = await scope.start({ configPath: s.configPath });
    s.write(`Meetings/Transcripts/${name}.sync-conflict-20261130-101500-ABCDEFG.md`, transcriptNote(name, 'finished', '[00:00:05] Alice: first half.\n'));
    s.write(`Meetings/Transcripts/${name} (Ann's conflicted copy 2026-11-30).md`, transcriptNote(name, 'finished', '[00:00:05] Alice: first half.\n'));
    await sentinel(s, 'After Transcript Copies');
    expect(requestsFor(server, name)).toBe(0);
    expect(s.readIfExists(`Meetings/Summaries/${name}.md`)).toBeUndefined();
    s.write(`Meetings/Transcripts/${name}.md`, transcriptNote(name, 'finished', '[00:00:05] Alice: first half.\n[00:30:00] Bob: second half.\n'));
    await waitFor(() => dataOf(s, `Meetings/Summaries/${name}.md`)?.status === 'done', 'the summary of the real transcript', COLD_RUN_WAIT_MS);
    expect(d.logs.some((l) => l.msg === `summarize queued: Meetings/${name}.md`)).toBe(true);
  });
});

describe.concurrent('files that are not files', () => {
  it.skipIf(!hasMkfifo)('a FIFO named pipe.md in a project is an Error for the model; the run ends and SIGTERM stops the daemon at once (needs mkfifo)', async ({ onTestFinished }) => {
    const scope = await testScope(onTestFinished);
    const server = scope.server;
    const s = await daemonSetup(server);
    execFileSync('mkfifo', [path.join(s.vault, 'Projects/Alpha/pipe.md')]);
    let results: ReturnType<typeof lastToolResults> = [];
    server.setFallback({
      handler: (req): Step => {
        // The project tools are used after the summary (in one conversation, or its own phase).
        const calls = projectStepCalls(req);
        if (!calls) return { reply: { toolCalls: [{ name: 'write_summary', arguments: { content: SUMMARY_BODY } }] } };
        if (calls.length === 0) {
          return {
            reply: {
              toolCalls: [
                { name: 'list_projectfiles', arguments: { project: 'Alpha' } },
                { name: 'read_projectfile', arguments: { project: 'Alpha', path: 'pipe.md' } },
                { name: 'write_projectfile', arguments: { project: 'Alpha', path: 'pipe.md', content: 'x' } },
                { name: 'search', arguments: { keywords: ['Alpha'] } },
              ],
            },
          };
        }
        if (calls.length === 4) results = lastToolResults(req);
        return { reply: { content: 'Done.' } };
      },
    });
    const name = 'Fifo Meeting';
    s.write(`Meetings/${name}.md`, meetingNote(name));
    s.write(`Meetings/Transcripts/${name}.md`, transcriptNote(name, 'finished'));
    const d = await scope.start({ configPath: s.configPath });
    await waitFor(() => dataOf(s, `Meetings/Summaries/${name}.md`)?.status === 'done', 'the summary despite the FIFO', COLD_RUN_WAIT_MS);
    await waitFor(() => dataOf(s, `Meetings/Context/${name}.md`)?.state === 'finished', 'the project phase to end', COLD_RUN_WAIT_MS);
    const texts = results.map((r) => r.output);
    expect(texts[0]).not.toContain('pipe.md');
    expect(texts[1]).toMatch(/^Error: Projects\/Alpha\/pipe.md is a FIFO \(named pipe\), not a regular file/);
    expect(texts[2]).toMatch(/^Error: Projects\/Alpha\/pipe.md is a FIFO/);
    expect(texts[3]).not.toMatch(/^Error/);
    const exit = await d.stop('SIGTERM', 15_000);
    expect(exit.code).toBe(0);
  });

  it('a transcript linked to /dev/zero is refused by the catch-up and by read_transcript, memory stays bounded, other meetings run', async ({ onTestFinished }) => {
    const scope = await testScope(onTestFinished, summarizingModel());
    const server = scope.server;
    const s = await daemonSetup(server);
    s.write('Meetings/Zero.md', meetingNote('Zero'));
    s.write('Meetings/Transcripts/Zero.md', 'placeholder');
    const zero = path.join(s.vault, 'Meetings/Transcripts/Zero.md');
    unlinkSync(zero);
    symlinkSync('/dev/zero', zero);
    let result = '';
    const d = await scope.start({ configPath: s.configPath });
    await d.waitForLog((l) => typeof l.msg === 'string' && l.msg.startsWith('catch-up scan:'), 20_000, 'the start-up scan');
    // The agent of another meeting whose transcript becomes the link during its run.
    server.setFallback({
      handler: (req): Step => {
        const calls = toolCallsSoFar(req);
        // A project phase after the summary (a run in phases, issue 21) has nothing to do here.
        if (!toolNamesOf(req).includes('write_summary')) return { reply: { content: 'Done.' } };
        if (calls.length === 0) {
          const t = path.join(s.vault, 'Meetings/Transcripts/Swapped.md');
          unlinkSync(t);
          symlinkSync('/dev/zero', t);
          return { reply: { toolCalls: [{ name: 'read_transcript', arguments: {} }] } };
        }
        if (calls.length === 1) {
          result = lastToolResults(req)[0]?.output ?? '';
          return { reply: { toolCalls: [{ name: 'write_summary', arguments: { content: SUMMARY_BODY } }] } };
        }
        return { reply: { content: 'Done.' } };
      },
    });
    s.write('Meetings/Swapped.md', meetingNote('Swapped'));
    s.write('Meetings/Transcripts/Swapped.md', transcriptNote('Swapped', 'finished'));
    await waitFor(() => dataOf(s, 'Meetings/Summaries/Swapped.md')?.status === 'done', 'the summary of Swapped', COLD_RUN_WAIT_MS);
    expect(result).toMatch(/^Error: Meetings\/Transcripts\/Swapped.md (is a device, not a regular file|lies outside the vault)/);
    const rss = Number(/VmHWM:\s+(\d+) kB/.exec(readFileSync(`/proc/${d.child.pid}/status`, 'utf8'))?.[1] ?? 0) * 1024;
    expect(rss).toBeLessThan(1024 * 1024 * 1024);
    expect((await d.stop('SIGTERM', 15_000)).code).toBe(0);
  });
});

describe.concurrent('a stop that always stops', () => {
  it.skipIf(!hasMkfifo)('SIGTERM ends the process once the grace period and the margin are over, even with every libuv thread stuck in a read (needs mkfifo)', async () => {
    const s = await daemonSetup(file.server, { Daemon: { ShutdownGraceSeconds: 1 } });
    // At the signal, four reads of FIFOs nobody writes take libuv's four threads: every file
    // operation of the stop itself then waits for ever (what a FIFO in a project used to do).
    const fifos = [0, 1, 2, 3].map((i) => path.join(s.dir, `stuck-${i}`));
    for (const fifo of fifos) execFileSync('mkfifo', [fifo]);
    const preload = path.join(s.dir, 'stuck-reads.mjs');
    writeFileSync(
      preload,
      `import { open } from 'node:fs';\nprocess.prependListener('SIGTERM', () => { for (const f of ${JSON.stringify(fifos)}) open(f, 'r', () => {}); });\n`,
    );
    const d = await startDaemonProcess({ configPath: s.configPath, env: { NODE_OPTIONS: `--import=${pathToFileURL(preload).href}`, UV_THREADPOOL_SIZE: '4' } });
    d.child.kill('SIGTERM');
    const exit = await exitWithin(d, 20_000, 'the exit the stop forces');
    // By SIGTERM's default action, not SIGKILL: systemd counts that a clean stop, not a failure.
    expect(exit).toMatchObject({ signal: 'SIGTERM' });
    // Its own deadline ended it (grace 1 s + margin 7 s), as it says: no figure for when.
    expect(d.stderr()).toContain('the stop did not finish within Daemon.ShutdownGraceSeconds (1 s) and 7 s more; ending the process');
    // The claim it could not remove is stale: the next start takes the vault over.
    expect(existsSync(path.join(s.vault, '.meeting-assistant/machines', `${machineName('')}.json`))).toBe(true);
    const next = await startDaemonProcess({ configPath: s.configPath });
    expect((await next.stop('SIGTERM', 15_000)).code).toBe(0);
    // A clean stop leaves the machine's record saying `stopped` (docs/design.md §2, two machines).
    const record = JSON.parse(readFileSync(path.join(s.vault, '.meeting-assistant/machines', `${machineName('')}.json`), 'utf8')) as { role?: string };
    expect(record.role).toBe('stopped');
  });
});

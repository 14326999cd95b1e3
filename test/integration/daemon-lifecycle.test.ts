import { spawn } from 'node:child_process';
import net from 'node:net';
import { readdirSync, realpathSync } from 'node:fs';
import { cliRunsFolder, runtimeFolder } from '../../src/instance/runtime-folder.js';
import { describe, it } from 'vitest';
import { parseNote } from '../../src/vault/format/frontmatter.js';
import { BIN, COLD_RUN_WAIT_MS, type DaemonProcess, freePort, listFiles, makeTempSetup, runCli, waitFor } from '../helpers/daemon-process.js';
import { runs } from '../helpers/host-tools.js';
import { errorBody } from '../helpers/scripted-server.js';
import { type DaemonSetup, daemonSetup, daemonTestFile, dataOf, editProperty, meetingNote, summarizingModel, type TestScope, testScope, transcriptNote } from '../helpers/daemon-helpers.js';

/**
 * Start, crash, restart, stop: the daemon's life as a service sees it, and as a person sees it
 * on `npm start` with no model server running (readable lines at a terminal, JSON piped, one
 * line right after "ready" saying the endpoint is not there and what to do).
 *
 * The tests run at once, each with a vault, a scripted endpoint and daemons of its own
 * (testScope): most of each is a process's start or a wait for a timer, which overlap.
 */

const HAS_SCRIPT = process.platform === 'linux' && runs('script', ['--version']);

// Each test ends its own daemons and server (testScope); the vaults go after the file.
daemonTestFile('all');

/** A meeting whose transcript is flipped to finished while the model is made to answer only when told. */
async function runInFlight(file: TestScope, name: string, grace: number) {
  let release!: () => void;
  const released = new Promise<void>((r) => (release = r));
  file.server.setFallback({ handler: async () => (await released, summarizingModel()) });
  const s = await daemonSetup(file.server, { Daemon: { ShutdownGraceSeconds: grace } });
  s.write(`Meetings/${name}.md`, meetingNote(name));
  s.write(`Meetings/Transcripts/${name}.md`, transcriptNote(name, 'transcribing'));
  const daemon = await file.start({ configPath: s.configPath });
  const seen = file.server.modelRequests().length;
  editProperty(s, `Meetings/Transcripts/${name}.md`, 'state', 'transcribing', 'finished');
  await waitFor(() => file.server.modelRequests().length > seen, 'the first model request', COLD_RUN_WAIT_MS);
  return { s, d: daemon, release };
}

// First: the longest test (three one-shot commands that each watch their write for 2 s,
// vault/files/late-writes.ts), so that it starts at once, not when a slot frees.
describe.concurrent('CLI: session and status', () => {
  it('session start/state/stop write the notes; status lists meetings and the running daemon queue', async ({ expect, onTestFinished }) => {
    const file = await testScope(onTestFinished);
    file.server.setFallback(summarizingModel());
    const s = await daemonSetup(file.server);
    const cfg = ['--config', s.configPath];
    const started = await runCli(['session', 'start', '--title', 'Plan: Q1?', '--projects', 'Alpha,Beta', '--agenda', 'Roadmap', '--scheduled-end', '2026-11-30T11:00:00+01:00', ...cfg]);
    expect(started.code).toBe(0);
    const lines = started.stdout.trim().split('\n');
    expect(lines).toHaveLength(3);
    const [meeting, transcript, context] = lines.map((l) => l.replace(/^\w+: /, ''));
    expect(lines[0]).toMatch(/^meeting: Meetings\/\d{4}-\d{2}-\d{2} \d{4} Plan- Q1-\.md$/);
    expect(lines[1]).toMatch(/^transcript: Meetings\/Transcripts\//);
    expect(lines[2]).toMatch(/^context: Meetings\/Context\//);
    expect(dataOf(s, context!)).toMatchObject({ state: 'collecting metadata', agenda: 'Roadmap', scheduled_end: '2026-11-30T11:00:00+01:00' });
    expect(dataOf(s, transcript!)).toMatchObject({ state: 'transcribing' });
    expect(dataOf(s, meeting!)).toMatchObject({ title: 'Plan: Q1?', projects: ['Alpha', 'Beta'], attendees: [] });

    expect((await runCli(['session', 'state', meeting!, 'transcribing', ...cfg])).code).toBe(0);
    expect(dataOf(s, context!)?.state).toBe('transcribing');
    const bad = await runCli(['session', 'state', meeting!, 'almost done', ...cfg]);
    expect(bad.code).toBe(2);
    expect(bad.stderr).toMatch(/collecting metadata/);
    expect((await runCli(['session', 'stop', meeting!, ...cfg])).code).toBe(0);
    expect(dataOf(s, meeting!)?.end_time).toEqual(expect.any(String));
    expect(dataOf(s, context!)?.end_time).toBe(dataOf(s, meeting!)?.end_time);

    const down = await runCli(['status', ...cfg]);
    expect(down.code).toBe(0);
    const row = down.stdout.split('\n').find((line) => line.endsWith(meeting!));
    expect(row).toMatch(/ transcribing +no summary +Meetings\//);
    expect(down.stdout).toMatch(/daemon: not running/);

    await file.start({ configPath: s.configPath });
    const up = await runCli(['status', ...cfg]);
    expect(up.code).toBe(0);
    expect(up.stdout).toMatch(/daemon: running, pid \d+/);
    expect(up.stdout).toMatch(/queue: 0 running, 0 waiting/);
  });
});

describe.concurrent('daemon process: crash and restart', () => {
  it('killed with SIGKILL in the middle of a run, it finishes that meeting after a restart, and no note is half-written', async ({ expect, onTestFinished }) => {
    const file = await testScope(onTestFinished, { hang: true });
    const s = await daemonSetup(file.server);
    let daemon: DaemonProcess;
    s.write('Meetings/Crash.md', meetingNote('Crash'));
    s.write('Meetings/Transcripts/Crash.md', transcriptNote('Crash', 'transcribing'));
    daemon = await file.start({ configPath: s.configPath });
    const seen = file.server.modelRequests().length;
    editProperty(s, 'Meetings/Transcripts/Crash.md', 'state', 'transcribing', 'finished');
    await waitFor(() => file.server.modelRequests().length > seen, 'the run to reach the model', COLD_RUN_WAIT_MS);
    expect(dataOf(s, 'Meetings/Context/Crash.md')?.state).toBe('summarizing');

    const exit = await daemon.kill();
    expect(exit.signal).toBe('SIGKILL');

    // Every note on disk is whole: no temporary files, every Markdown note parses.
    const files = listFiles(s.vault);
    expect(files.filter((f) => f.endsWith('.ma-tmp'))).toEqual([]);
    for (const f of files.filter((f) => f.endsWith('.md'))) expect(() => parseNote(s.read(f)), f).not.toThrow();

    file.server.setFallback(summarizingModel());
    daemon = await file.start({ configPath: s.configPath });
    await waitFor(() => dataOf(s, 'Meetings/Summaries/Crash.md')?.status === 'done', 'the summary after restart', COLD_RUN_WAIT_MS);
    await waitFor(() => dataOf(s, 'Meetings/Context/Crash.md')?.state === 'finished', 'context state finished', COLD_RUN_WAIT_MS);
    expect(daemon.logs.some((l) => l.msg === 'summarize queued: Meetings/Crash.md' && l.trigger === 'catch-up')).toBe(true);
    expect(daemon.logs.filter((l) => l.msg?.startsWith('summarize queued'))).toHaveLength(1);
  });
});

describe.concurrent('daemon process: a meeting run from the command line', () => {
  it('a daemon started while `summarize` runs a meeting leaves that meeting to it (not run twice at once); the marker goes with the command', async ({ expect, onTestFinished }) => {
    const file = await testScope(onTestFinished);
    let daemon: DaemonProcess;
    let release!: () => void;
    const released = new Promise<void>((r) => (release = r));
    file.server.setFallback({ handler: async () => (await released, summarizingModel()) });
    const s = await daemonSetup(file.server);
    s.write('Meetings/Shared.md', meetingNote('Shared'));
    s.write('Meetings/Transcripts/Shared.md', transcriptNote('Shared', 'finished'));
    // The server is the file's: count from here.
    const before = file.server.modelRequests().length;
    const cli = runCli(['summarize', 'Meetings/Shared.md', '--config', s.configPath]);
    await waitFor(() => file.server.modelRequests().length > before, 'the command line run to reach the model', COLD_RUN_WAIT_MS);
    // In this user's runtime folder, outside the vault (src/instance/cli-run-marker.ts).
    const markers = cliRunsFolder(runtimeFolder(process.env), realpathSync(s.vault));
    expect(readdirSync(markers)).toHaveLength(1);

    daemon = await file.start({ configPath: s.configPath });
    const skipped = /^not run now: `meeting-assistant summarize` \(pid \d+\) is running this meeting$/;
    await daemon.waitForLog((l) => skipped.test(String(l.msg)), 15_000, 'the job left to the command line');
    release();
    const result = await cli;
    expect(result.code, result.stderr).toBe(0);
    expect(result.stdout).toContain('summary: Meetings/Summaries/Shared.md');
    expect(dataOf(s, 'Meetings/Summaries/Shared.md')?.status).toBe('done');
    // One run asked the model: its write_summary, then its last answer.
    expect(file.server.modelRequests().length - before).toBe(2);
    expect(daemon.logs.some((l) => String(l.msg).startsWith('summary written'))).toBe(false);
    expect(readdirSync(markers)).toEqual([]);
  });
});

describe.concurrent('daemon process: shutdown', () => {
  it('SIGTERM exits 0 within the grace period, after the running run finished', async ({ expect, onTestFinished }) => {
    const file = await testScope(onTestFinished);
    const { s, d, release } = await runInFlight(file, 'Graceful', 20);
    const exitPromise = d.stop('SIGTERM');
    await d.waitForLog((l) => l.msg === 'stopping (SIGTERM)', 10_000, 'the stopping line');
    release();
    const exit = await exitPromise;
    expect(exit).toEqual({ code: 0, signal: null });
    expect(dataOf(s, 'Meetings/Summaries/Graceful.md')?.status).toBe('done');
    expect(d.logs.find((l) => l.msg === 'stopped')).toMatchObject({ finished: 1, aborted: 0 });
  });

  it('SIGTERM with a run that outlasts the grace period aborts it and still exits 0; the next start resumes it', async ({ expect, onTestFinished }) => {
    const file = await testScope(onTestFinished);
    const { s, d, release } = await runInFlight(file, 'Outlasting', 0.5);
    const exit = await d.stop('SIGTERM');
    expect(exit).toEqual({ code: 0, signal: null });
    expect(d.logs.find((l) => l.msg === 'stopped')).toMatchObject({ finished: 0, aborted: 1 });
    release();
    file.server.setFallback(summarizingModel());
    await file.start({ configPath: s.configPath });
    await waitFor(() => dataOf(s, 'Meetings/Summaries/Outlasting.md')?.status === 'done', 'the resumed summary', COLD_RUN_WAIT_MS);
  });

  it('Ctrl-C while a run only waits for a Retry-After: exit 0 at once (not after the grace period); the next start runs the meeting', async ({ expect, onTestFinished }) => {
    const file = await testScope(onTestFinished);
    let daemon: DaemonProcess;
    // The endpoint is busy and asks for a minute; the daemon would wait that long between tries.
    file.server.setFallback({ status: 503, body: errorBody('Server starting, try later'), headers: { 'retry-after': '60' } });
    const s = await daemonSetup(file.server, { Reconnect: { Attempts: 3, DelaySeconds: 1 }, Daemon: { ShutdownGraceSeconds: 120 } });
    s.write('Meetings/Patient.md', meetingNote('Patient'));
    s.write('Meetings/Transcripts/Patient.md', transcriptNote('Patient', 'finished'));
    daemon = await file.start({ configPath: s.configPath });
    await daemon.waitForLog((l) => /retrying in 60000 ms/.test(String(l.msg)), COLD_RUN_WAIT_MS, 'the wait for the Retry-After');

    // The daemon must exit by itself before the stop's deadline (30 s; past it the helper kills
    // it, and the exit is no longer 0), far below the grace period (120 s) and the Retry-After
    // (60 s) it would end at if it waited for either. No figure for how quick: under load a
    // prompt stop can take seconds. That it does not wait out the late-write watch of the
    // notes the run wrote a moment before is test/daemon/shutdown.test.ts's.
    const exit = await daemon.stop('SIGINT', 30_000);
    expect(exit).toEqual({ code: 0, signal: null });
    expect(daemon.logs.find((l) => l.msg === 'stopped')).toMatchObject({ finished: 0, aborted: 1 });
    expect(daemon.logs.some((l) => l.msg === 'run stopped unfinished: Meetings/Patient.md resumes at next start')).toBe(true);
    // Not a failure: no report, the meeting stays `summarizing` and is saved to resume.
    expect(dataOf(s, 'Meetings/Summaries/Patient.md')).toBeUndefined();
    expect(dataOf(s, 'Meetings/Context/Patient.md')?.state).toBe('summarizing');

    file.server.setFallback(summarizingModel());
    daemon = await file.start({ configPath: s.configPath });
    await waitFor(() => dataOf(s, 'Meetings/Summaries/Patient.md')?.status === 'done', 'the resumed summary', COLD_RUN_WAIT_MS);
    expect(daemon.logs.some((l) => l.msg === 'summarize queued: Meetings/Patient.md' && String(l.trigger).endsWith('resumed'))).toBe(true);
  }, 120_000);

  it('a second signal exits at once (143 for SIGTERM)', async ({ expect, onTestFinished }) => {
    const file = await testScope(onTestFinished);
    const { d, release } = await runInFlight(file, 'Impatient', 60);
    d.child.kill('SIGTERM');
    await d.waitForLog((l) => l.msg === 'stopping (SIGTERM)', 10_000, 'the stopping line');
    d.child.kill('SIGTERM');
    const exit = await d.exited;
    release();
    expect(exit.code).toBe(143);
  });

  it('one Ctrl-C delivered twice at once (the terminal and npm forwarding it) is one stop: exit 0, not 130', async ({ expect, onTestFinished }) => {
    const file = await testScope(onTestFinished, summarizingModel());
    const setup = await daemonSetup(file.server);
    let daemon: DaemonProcess;
    daemon = await file.start({ configPath: setup.configPath });
    daemon.child.kill('SIGINT');
    daemon.child.kill('SIGINT');
    const exit = await daemon.exited;
    expect(exit).toEqual({ code: 0, signal: null });
    expect(daemon.logs.some((l) => String(l.msg).includes('again: exiting at once'))).toBe(false);
  });

  it('a port in use is a clear startup error: exit 1 naming the port and Http.Port', async ({ expect, onTestFinished }) => {
    const file = await testScope(onTestFinished);
    let daemon: DaemonProcess;
    const setup = await daemonSetup(file.server);
    const blocker = net.createServer();
    await new Promise<void>((r) => blocker.listen(setup.port, '127.0.0.1', () => r()));
    try {
      daemon = await file.start({ configPath: setup.configPath, waitReady: false });
      const exit = await daemon.exited;
      expect(exit.code).toBe(1);
      expect(daemon.stderr()).toContain(`127.0.0.1:${setup.port}`);
      expect(daemon.stderr()).toMatch(/already in use/);
      expect(daemon.stderr()).toContain('MeetingAssistant.Http.Port');
    } finally {
      await new Promise((r) => blocker.close(r));
    }
  });

  it('a bad config is exit 2', async ({ expect, onTestFinished }) => {
    const file = await testScope(onTestFinished);
    const setup = await daemonSetup(file.server, { Daemon: { MaxConcurrentSummaries: 0 } });
    const result = await runCli(['run', '--config', setup.configPath]);
    expect(result.code).toBe(2);
    expect(result.stderr).toContain('MeetingAssistant.Daemon.MaxConcurrentSummaries');
  });
});

/** A vault whose endpoint is a port nothing listens on, as on a machine without Ollama. */
async function noEndpointSetup(): Promise<DaemonSetup> {
  const port = await freePort();
  const temp = makeTempSetup({
    Endpoint: { BaseUrl: `http://127.0.0.1:${await freePort()}/v1`, Model: 'qwen3:8b' },
    Daemon: { ReconcileSchedule: '0 0 1 1 *' },
    Http: { Port: port },
  });
  return Object.assign(temp, { port });
}

/** The text without its colours. */
const plain = (text: string) => text.replace(new RegExp(String.raw`\u001b\[[0-9;]*m`, 'g'), '');

// docs/design.md §2: an endpoint that does not answer makes runs wait, not fail.
const NOT_READY = /the model endpoint is not ready, runs wait until it answers: GET http:\/\/127\.0\.0\.1:\d+\/v1\/models failed/;

describe.concurrent('daemon process: no endpoint, at a terminal and piped', () => {
  it('piped: JSON lines; one warning right after "ready" naming the fix', async ({ expect, onTestFinished }) => {
    const file = await testScope(onTestFinished);
    const setup = await noEndpointSetup();
    const daemon = await file.start({ configPath: setup.configPath });
    const warning = await daemon.waitForLog((l) => NOT_READY.test(String(l.msg)), 15_000, 'the endpoint warning');
    expect(warning.level).toBe('warn');
    expect(String(warning.msg)).toContain('MeetingAssistant.Endpoint.BaseUrl');
    expect(daemon.logs.filter((l) => l.raw)).toEqual([]);
    const ready = daemon.logs.findIndex((l) => String(l.msg).startsWith('ready'));
    expect(ready).toBeGreaterThanOrEqual(0);
    expect(daemon.logs.indexOf(warning)).toBeGreaterThan(ready);
    expect(daemon.logs.filter((l) => NOT_READY.test(String(l.msg)))).toHaveLength(1);
  });

  it.skipIf(!HAS_SCRIPT)('at a terminal (a pty from `script`, needs script): readable lines, and Ctrl-C exits 0 at once', async ({ expect }) => {
    const setup = await noEndpointSetup();
    // `exec`: script runs the command through $SHELL -c, and dash (Debian's /bin/sh) stays as
    // the parent unless told to exec; Ctrl-C then kills that shell and script reports 130,
    // whatever the daemon did. SHELL is fixed so the test means the same on every machine.
    const command = ['exec', ...[process.execPath, BIN, 'run', '--config', setup.configPath].map((a) => `'${a}'`)].join(' ');
    const child = spawn('script', ['-qfec', command, '/dev/null'], {
      stdio: ['pipe', 'pipe', 'pipe'],
      env: { ...process.env, TERM: 'xterm', SHELL: '/bin/sh' },
    });
    let out = '';
    child.stdout.on('data', (d: Buffer) => (out += d.toString()));
    // At 'close', not 'exit': script's last output (the "stopped" line) may come after its exit.
    const exited = new Promise<number | null>((resolve) => child.on('close', (code) => resolve(code)));
    try {
      await waitFor(() => NOT_READY.test(out), 'the endpoint warning on the terminal', 15_000);
      const lines = plain(out).split(/\r?\n/).filter((l) => l.trim() !== '');
      expect(lines.every((l) => /^\[\d\d:\d\d:\d\d\] (INFO|WARN): /.test(l)), out).toBe(true);
      expect(lines[0]).toMatch(/INFO: ready: vault /);
      expect(lines.find((l) => NOT_READY.test(l))).toMatch(/^\[\d\d:\d\d:\d\d\] WARN: /);

      child.stdin.write('\u0003');
      // The deadline only bounds the wait (no run is going on, so no grace period to wait out).
      const code = await Promise.race([exited, new Promise<'timeout'>((r) => setTimeout(() => r('timeout'), 20_000))]);
      expect(code).toBe(0);
      expect(plain(out)).toMatch(/INFO: stopping \(SIGINT\)\r?\n.*INFO: stopped/);
    } finally {
      child.kill('SIGKILL');
    }
  });
});

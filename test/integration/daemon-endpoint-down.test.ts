import { afterAll, describe, expect, it } from 'vitest';
import { COLD_RUN_WAIT_MS, freePort, runCli, startDaemonProcess, waitFor } from '../helpers/daemon-process.js';
import { type ScriptedServer, startScriptedServer } from '../helpers/scripted-server.js';
import { daemonSetup, daemonTestFile, dataOf, editProperty, meetingNote, summarizingModel, transcriptNote } from '../helpers/daemon-helpers.js';

/**
 * docs/design.md §2, "The endpoint down": a model server that starts after the daemon costs a
 * delay, never a failure. The real daemon, a port where nothing listens yet, then the scripted
 * server started on it.
 *
 * Each test has a vault, a port, a daemon and a late server of its own, so the tests run at
 * once: most of a test's time is waiting (a process's start, the probes' pauses, a run's
 * turns), which the others fill. Every daemon is killed, every server closed and every vault
 * removed once the file is done.
 */

const file = daemonTestFile('all');
const lateServers: ScriptedServer[] = [];
afterAll(async () => {
  await Promise.all(lateServers.splice(0).map((server) => server.close()));
});

/** Probes every 100 ms (doubling to 800 ms) instead of 5 s: the test need not wait. */
const FAST = { MEETING_ASSISTANT_ENDPOINT_WAIT_MS: '100' };

async function downSetup() {
  const port = await freePort();
  const setup = await daemonSetup(file.server, {
    Endpoint: { BaseUrl: `http://127.0.0.1:${port}/v1`, Model: 'test-model', TimeoutSeconds: 10 },
  });
  return { setup, port };
}

async function startLate(port: number): Promise<ScriptedServer> {
  const late = await startScriptedServer({ port, fallback: summarizingModel() });
  lateServers.push(late);
  return late;
}

describe.concurrent('daemon process: the model server starts after the daemon', () => {
  it('a meeting finished while nothing answers waits, then is summarized once the server starts: no failure report', async () => {
    const { setup, port } = await downSetup();
    setup.write('Meetings/Late.md', meetingNote('Late'));
    setup.write('Meetings/Transcripts/Late.md', transcriptNote('Late', 'transcribing'));
    const daemon = await startDaemonProcess({ configPath: setup.configPath, env: FAST });
    editProperty(setup, 'Meetings/Transcripts/Late.md', 'state', 'transcribing', 'finished');

    const down = await daemon.waitForLog((l) => typeof l.msg === 'string' && l.msg.startsWith('the model endpoint does not answer'), COLD_RUN_WAIT_MS, 'the wait');
    expect(down.msg).toMatch(/since \d{4}-\d\d-\d\d \d\d:\d\d:\d\d/);
    expect(typeof down.since).toBe('string');
    // It keeps asking, less and less often, and the run does not fail meanwhile (Reconnect.Attempts is 0).
    await daemon.waitForLog((l) => typeof l.msg === 'string' && l.msg.startsWith('still waiting for the model endpoint'), 15_000, 'a second probe');
    expect(dataOf(setup, 'Meetings/Summaries/Late.md')).toBeUndefined();

    const late = await startLate(port);
    await waitFor(() => dataOf(setup, 'Meetings/Summaries/Late.md')?.status === 'done', 'the summary', COLD_RUN_WAIT_MS);
    await waitFor(() => dataOf(setup, 'Meetings/Context/Late.md')?.state === 'finished', 'context state finished', COLD_RUN_WAIT_MS);
    expect(daemon.logs.some((l) => l.msg?.startsWith('the model endpoint answers again'))).toBe(true);
    expect(daemon.logs.some((l) => l.msg?.startsWith('meeting failed'))).toBe(false);
    // The probes asked GET /models; the summary came from the late server.
    expect(late.requests.some((r) => r.kind === 'models')).toBe(true);
    expect(late.modelRequests().length).toBe(2);
});

  it('SIGTERM while a run waits stops at once; the next start with the server up summarizes it', async () => {
    const { setup, port } = await downSetup();
    setup.configure({ Daemon: { ShutdownGraceSeconds: 30 } });
    setup.write('Meetings/Stop.md', meetingNote('Stop'));
    setup.write('Meetings/Transcripts/Stop.md', transcriptNote('Stop', 'finished'));
    const first = await startDaemonProcess({ configPath: setup.configPath, env: FAST });
    await first.waitForLog((l) => typeof l.msg === 'string' && l.msg.startsWith('the model endpoint does not answer'), COLD_RUN_WAIT_MS, 'the wait');
    // Not the 30 s grace period: a waiting run is not working. Past the stop's deadline (well
    // short of the grace period) the helper kills the daemon, and the exit is not 0.
    const exit = await first.stop('SIGTERM', 20_000);
    expect(exit.code).toBe(0);
    expect(dataOf(setup, 'Meetings/Context/Stop.md')?.state).toBe('summarizing');
    expect(dataOf(setup, 'Meetings/Summaries/Stop.md')).toBeUndefined();

    await startLate(port);
    await startDaemonProcess({ configPath: setup.configPath, env: FAST });
    await waitFor(() => dataOf(setup, 'Meetings/Summaries/Stop.md')?.status === 'done', 'the summary after the restart', COLD_RUN_WAIT_MS);
});

  it('`status` says what the page says: the endpoint down since when, the run waiting for it; with the daemon stopped, the meeting was summarizing and resumes at next start', async () => {
    const { setup, port } = await downSetup();
    setup.write('Meetings/Said.md', meetingNote('Said'));
    setup.write('Meetings/Transcripts/Said.md', transcriptNote('Said', 'finished'));
    const daemon = await startDaemonProcess({ configPath: setup.configPath, env: FAST });
    await daemon.waitForLog((l) => typeof l.msg === 'string' && l.msg.startsWith('the model endpoint does not answer'), COLD_RUN_WAIT_MS, 'the wait');

    const up = await runCli(['status', '--config', setup.configPath]);
    expect(up.code, up.stderr).toBe(0);
    const lines = up.stdout.split('\n');
    expect(lines).toContain(`config: ${setup.configPath}`);
    expect(lines.find((l) => l.startsWith('times: '))).toMatch(/^times: local time.* \(UTC[+-]\d\d:\d\d\)$/);
    const endpoint = lines.find((l) => l.startsWith('endpoint: '));
    expect(endpoint).toContain(`http://127.0.0.1:${port}/v1 (test-model): DOWN since `);
    expect(endpoint).toMatch(/DOWN since \d{4}-\d\d-\d\d \d\d:\d\d:\d\d \(\d+ s ago\).*; 1 run waiting for it$/);
    const running = lines.find((l) => l.startsWith('  running '));
    expect(running).toContain('Meetings/Said.md');
    expect(running).toMatch(/: waiting for the model endpoint, not answering since .* \(\d+ s ago\)$/);
    expect(lines.find((l) => l.startsWith('daemon: running'))).toMatch(/since \d{4}-\d\d-\d\d \d\d:\d\d:\d\d \(\d+ s ago\)/);

    expect((await daemon.stop('SIGTERM', 20_000)).code).toBe(0);
    expect(dataOf(setup, 'Meetings/Context/Said.md')?.state).toBe('summarizing');
    const down = await runCli(['status', '--config', setup.configPath]);
    expect(down.code, down.stderr).toBe(0);
    const said = down.stdout.split('\n').find((l) => l.endsWith('Meetings/Said.md'));
    expect(said).toMatch(/\swas summarizing\s/);
    expect(down.stdout).toContain("was summarizing: the daemon stopped during its run; it resumes at the daemon's next start");
    expect(down.stdout).toContain('daemon: not running');
  });

  it('a failure report an unreachable endpoint caused is retried at start once the endpoint answers', async () => {
    const { setup, port } = await downSetup();
    setup.write('Meetings/Old.md', meetingNote('Old', 'context: "[[Meetings/Context/Old]]"\nsummary: "[[Meetings/Summaries/Old]]"\n'));
    setup.write('Meetings/Transcripts/Old.md', transcriptNote('Old', 'finished'));
    setup.write('Meetings/Context/Old.md', '---\ntitle: Old\nmeeting: "[[Meetings/Old]]"\nstate: error\n---\n');
    // What a command-line run with the server down leaves (no daemon to wait).
    setup.write(
      'Meetings/Summaries/Old.md',
      '---\nmeeting: "[[Meetings/Old]]"\nstatus: failed\nretry: false\nfailed_at: 2026-11-30T10:00:00Z\nretry_when: endpoint answers\n---\n# Summary failed: Old\n',
    );
    await startLate(port);
    const daemon = await startDaemonProcess({ configPath: setup.configPath, env: FAST });
    await waitFor(() => dataOf(setup, 'Meetings/Summaries/Old.md')?.status === 'done', 'the retried summary', COLD_RUN_WAIT_MS);
    expect(daemon.logs.some((l) => l.msg === 'retry queued: Meetings/Summaries/Old.md' && l.trigger === 'endpoint')).toBe(true);
});

  it('`retry` handed to a daemon that waits for the endpoint says so, then prints the real outcome once it answers', async () => {
    const { setup, port } = await downSetup();
    setup.write('Meetings/Cli.md', meetingNote('Cli', 'context: "[[Meetings/Context/Cli]]"\nsummary: "[[Meetings/Summaries/Cli]]"\n'));
    setup.write('Meetings/Transcripts/Cli.md', transcriptNote('Cli', 'finished'));
    setup.write('Meetings/Context/Cli.md', '---\ntitle: Cli\nmeeting: "[[Meetings/Cli]]"\nstate: error\n---\n');
    setup.write('Meetings/Summaries/Cli.md', '---\nmeeting: "[[Meetings/Cli]]"\nstatus: failed\nretry: false\n---\n# Summary failed: Cli\n');
    const daemon = await startDaemonProcess({ configPath: setup.configPath, env: FAST });
    const retried = runCli(['retry', 'Meetings/Summaries/Cli.md', '--config', setup.configPath]);
    // Long enough for the command's polls (every 250 ms) to see the wait: three more probes.
    await waitFor(() => daemon.logs.filter((l) => String(l.msg).startsWith('still waiting for the model endpoint')).length >= 3, 'three more probes');
    await startLate(port);
    const out = await retried;
    expect(out.stderr).toMatch(/the model endpoint does not answer \(since \d{4}-\d\d-\d\d \d\d:\d\d:\d\d\): the daemon waits for it/);
    expect({ code: out.code, stdout: out.stdout }).toEqual({ code: 0, stdout: 'summary: Meetings/Summaries/Cli.md\n' });
  });
});

import { describe, expect, it } from 'vitest';
import { exitWithin, startDaemonProcess, waitFor } from '../helpers/daemon-process.js';
import { daemonSetup, daemonTestFile, dataOf, editProperty, meetingNote, summarizingModel, transcriptNote } from '../helpers/daemon-helpers.js';

/** #22 point 6: Ctrl-C while a request is in flight says what it waits for; a second Ctrl-C stops at once. */

const file = daemonTestFile();

describe('daemon process: Ctrl-C with a request in flight', () => {
  it('says it waits for the run and how not to; a second Ctrl-C exits at once and the next start resumes the meeting', async () => {
    let release!: () => void;
    const released = new Promise<void>((r) => (release = r));
    file.server.setFallback({ handler: async () => (await released, summarizingModel()) });
    const setup = await daemonSetup(file.server, { Daemon: { ShutdownGraceSeconds: 30 } });
    setup.write('Meetings/Busy.md', meetingNote('Busy'));
    setup.write('Meetings/Transcripts/Busy.md', transcriptNote('Busy', 'transcribing'));
    const daemon = await startDaemonProcess({ configPath: setup.configPath });
    const seen = file.server.modelRequests().length;
    editProperty(setup, 'Meetings/Transcripts/Busy.md', 'state', 'transcribing', 'finished');
    await waitFor(() => file.server.modelRequests().length > seen, 'the request in flight');

    daemon.child.kill('SIGINT');
    const line = await daemon.waitForLog((l) => String(l.msg).startsWith('waiting for '), 10_000, 'the waiting line');
    expect(line.msg).toBe('waiting for 1 run to finish (up to 30 s); Ctrl-C again to stop now');
    // One Ctrl-C reaches the daemon twice within a second under npm; a person's second one comes later.
    const first = Date.parse(String(line.time));
    await waitFor(() => Date.now() - first > 1200, 'the echo window of the first Ctrl-C to pass', 5_000, 50);
    daemon.child.kill('SIGINT');
    // 130 is the second Ctrl-C's exit; one that waited would end at the grace period with 0.
    // The deadline only bounds the wait, short of the grace period's 30 s.
    const exit = await exitWithin(daemon, 20_000, 'the exit at the second Ctrl-C');
    expect(exit.code).toBe(130);
    expect(daemon.logs.some((l) => String(l.msg).startsWith('SIGINT again: exiting at once; an unfinished run resumes at the next start'))).toBe(true);
    expect(dataOf(setup, 'Meetings/Context/Busy.md')?.state).toBe('summarizing');

    release();
    file.server.setFallback(summarizingModel());
    await startDaemonProcess({ configPath: setup.configPath });
    await waitFor(() => dataOf(setup, 'Meetings/Summaries/Busy.md')?.status === 'done', 'the resumed summary');
});
});

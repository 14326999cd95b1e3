import { rmSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { startDaemonProcess, waitFor } from '../helpers/daemon-process.js';
import { daemonSetup, daemonTestFile, dataOf, editProperty, meetingNote, meetingOfRequest, summarizingModel, transcriptNote } from '../helpers/daemon-helpers.js';

/**
 * The daemon as a real process on a real temporary vault, driven by file edits as a
 * transcriber or a person would make them, against the scripted OpenAI-compatible server.
 */

const file = daemonTestFile();

const fileEventFor = (rel: string) => (l: { msg?: string; path?: unknown }) => l.msg === 'file event' && l.path === rel;

describe('daemon process: transcript triggers', () => {
  it('a transcript flipped to finished produces a summary and state finished; saving it again does not summarize again', async () => {
    file.server.setFallback(summarizingModel());
    const setup = await daemonSetup(file.server);
    setup.write('Meetings/Sync.md', meetingNote('Sync'));
    setup.write('Meetings/Transcripts/Sync.md', transcriptNote('Sync', 'transcribing'));
    const daemon = await startDaemonProcess({ configPath: setup.configPath });
    const before = file.server.modelRequests().length;

    editProperty(setup, 'Meetings/Transcripts/Sync.md', 'state', 'transcribing', 'finished');
    const s = setup;
    await waitFor(() => dataOf(s, 'Meetings/Summaries/Sync.md')?.status === 'done', 'the summary');
    await waitFor(() => dataOf(s, 'Meetings/Context/Sync.md')?.state === 'finished', 'context state finished');
    expect(setup.read('Meetings/Summaries/Sync.md')).toContain('Ship on Friday');
    const afterRun = file.server.modelRequests().length;
    expect(afterRun - before).toBe(2);

    // A person fixes a typo in the finished transcript: a save, not a state change.
    const events = daemon.logs.filter(fileEventFor('Meetings/Transcripts/Sync.md')).length;
    setup.write('Meetings/Transcripts/Sync.md', transcriptNote('Sync', 'finished', '[00:00:05] Alice: Good morning!\n'));
    const d = daemon;
    await waitFor(() => d.logs.filter(fileEventFor('Meetings/Transcripts/Sync.md')).length > events, 'the save to be seen');
    const seen = daemon.logs.filter(fileEventFor('Meetings/Transcripts/Sync.md')).at(-1)!;
    expect(seen.trigger).toBeUndefined();
    expect(daemon.logs.filter((l) => l.msg?.startsWith('summarize queued'))).toHaveLength(1);
    expect(file.server.modelRequests().length).toBe(afterRun);
  });

  it('a transcript finished while the daemon was down is summarized at start', async () => {
    file.server.setFallback(summarizingModel());
    const setup = await daemonSetup(file.server);
    setup.write('Meetings/Down.md', meetingNote('Down'));
    setup.write('Meetings/Transcripts/Down.md', transcriptNote('Down', 'finished'));
    const daemon = await startDaemonProcess({ configPath: setup.configPath });
    const s = setup;
    await waitFor(() => dataOf(s, 'Meetings/Summaries/Down.md')?.status === 'done', 'the summary');
    await waitFor(() => dataOf(s, 'Meetings/Context/Down.md')?.state === 'finished', 'context state finished');
    expect(daemon.logs.some((l) => l.msg === 'summarize queued: Meetings/Down.md' && l.trigger === 'catch-up')).toBe(true);
  });

  it('the transcripts folder removed and made again while it runs (a sync tool, a git checkout): a transcript finished in it is summarized', async () => {
    file.server.setFallback(summarizingModel());
    const setup = await daemonSetup(file.server);
    setup.write('Meetings/First.md', meetingNote('First'));
    setup.write('Meetings/Transcripts/First.md', transcriptNote('First', 'finished'));
    setup.write('Meetings/Again.md', meetingNote('Again'));
    const daemon = await startDaemonProcess({ configPath: setup.configPath });
    const s = setup;
    // The start-up catch-up is over once it has had First summarized.
    await waitFor(() => dataOf(s, 'Meetings/Summaries/First.md')?.status === 'done', 'the start-up summary');
    // At once: the new folder (often with the old one's inode number) is not the watched one.
    rmSync(path.join(setup.vault, 'Meetings/Transcripts'), { recursive: true });
    setup.write('Meetings/Transcripts/Again.md', transcriptNote('Again', 'finished'));
    // Catch-up is yearly here: only the watcher can have seen it.
    await waitFor(() => dataOf(s, 'Meetings/Summaries/Again.md')?.status === 'done', 'the summary');
    const queued = daemon.logs.filter((l) => l.msg === 'summarize queued: Meetings/Again.md');
    expect(queued.map((l) => l.trigger)).not.toContain('catch-up');
  });

  it('a meeting with malformed frontmatter fails alone while another meeting is summarized', async () => {
    file.server.setFallback(summarizingModel());
    const setup = await daemonSetup(file.server);
    const broken = '---\ntitle: [Broken\nstart_time: 2026-11-30T09:00:00+01:00\n---\nNotes.\n';
    setup.write('Meetings/Broken.md', broken);
    setup.write('Meetings/Transcripts/Broken.md', transcriptNote('Broken', 'transcribing'));
    setup.write('Meetings/Good.md', meetingNote('Good'));
    setup.write('Meetings/Transcripts/Good.md', transcriptNote('Good', 'transcribing'));
    const daemon = await startDaemonProcess({ configPath: setup.configPath });

    editProperty(setup, 'Meetings/Transcripts/Broken.md', 'state', 'transcribing', 'finished');
    editProperty(setup, 'Meetings/Transcripts/Good.md', 'state', 'transcribing', 'finished');
    const s = setup;
    await waitFor(() => dataOf(s, 'Meetings/Summaries/Good.md')?.status === 'done', 'the good summary');
    await waitFor(() => dataOf(s, 'Meetings/Summaries/Broken.md')?.status === 'failed', 'the failure report');
    const report = setup.read('Meetings/Summaries/Broken.md');
    expect(report).toMatch(/frontmatter/i);
    expect(report).toContain('# Summary failed: Broken');
    // The person's note is never rewritten; the failure is one clear log line.
    expect(setup.read('Meetings/Broken.md')).toBe(broken);
    // Said by the daemon once the run process has reported the outcome, after its last write.
    const line = await daemon.waitForLog((l) => l.level === 'warn' && l.msg?.startsWith('meeting failed: Meetings/Broken.md') === true, 10_000, 'the failure line');
    expect(line.msg).toMatch(/frontmatter/);
    // No model request was spent on the broken meeting, and the daemon is still up.
    expect(file.server.modelRequests().map(meetingOfRequest)).not.toContain('Meetings/Broken.md');
    const health = await fetch(`http://127.0.0.1:${setup.port}/healthz`);
    expect(await health.text()).toBe('ok');
  });

  it('twenty transcripts finished at once with MaxConcurrentSummaries 2: all summarized, never more than two runs at once', async () => {
    file.server.setFallback(summarizingModel(60));
    const setup = await daemonSetup(file.server, { Daemon: { MaxConcurrentSummaries: 2 } });
    const names = Array.from({ length: 20 }, (_, i) => `Meeting ${String(i + 1).padStart(2, '0')}`);
    for (const name of names) {
      setup.write(`Meetings/${name}.md`, meetingNote(name));
      setup.write(`Meetings/Transcripts/${name}.md`, transcriptNote(name, 'transcribing'));
    }
    await startDaemonProcess({ configPath: setup.configPath });
    const first = file.server.requests.length;
    for (const name of names) editProperty(setup, `Meetings/Transcripts/${name}.md`, 'state', 'transcribing', 'finished');
    const s = setup;
    await waitFor(
      () => names.every((n) => dataOf(s, `Meetings/Summaries/${n}.md`)?.status === 'done'),
      'twenty summaries',
      60_000,
    );
    await waitFor(() => names.every((n) => dataOf(s, `Meetings/Context/${n}.md`)?.state === 'finished'), 'twenty finished states');

    const requests = file.server.requests.slice(first).filter((r) => r.kind === 'chat');
    expect(requests).toHaveLength(40);
    expect(file.server.maxInFlight).toBeLessThanOrEqual(2);
    // Runs, not just requests: a run spans its first to its last request.
    const spans = new Map<string, { from: number; to: number }>();
    for (const req of requests) {
      const meeting = meetingOfRequest(req)!;
      const span = spans.get(meeting) ?? { from: req.receivedAt, to: req.receivedAt };
      span.to = Math.max(span.to, req.receivedAt);
      spans.set(meeting, span);
    }
    expect(spans.size).toBe(20);
    let most = 0;
    for (const { from } of spans.values()) {
      const open = [...spans.values()].filter((o) => o.from <= from && from <= o.to).length;
      most = Math.max(most, open);
    }
    expect(most).toBeLessThanOrEqual(2);
    expect(most).toBe(2);
});
});

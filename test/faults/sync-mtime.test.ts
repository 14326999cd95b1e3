import { statSync, utimesSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { daemonSetup, daemonTestFile, dataOf, meetingNote, summarizingModel, transcriptNote } from '../helpers/daemon-helpers.js';
import { startDaemonProcess, waitFor } from '../helpers/daemon-process.js';

/**
 * docs/design.md §4, issue #24 point 4: Obsidian Sync writes a note's new bytes in place and
 * sets its old modification time back. The running daemon must still see the transcript's
 * flip to `finished` from the watcher, not only at the next catch-up.
 */

const file = daemonTestFile();

describe('a transcript flipped by a sync tool that restores the old mtime', () => {
  it('is summarized by the running daemon from the file event (no catch-up scan runs)', async () => {
    file.server.setFallback(summarizingModel());
    const s = await daemonSetup(file.server);
    const rel = 'Meetings/Transcripts/Synced.md';
    s.write('Meetings/Synced.md', meetingNote('Synced'));
    // Same length before and after: mtime and size both unchanged.
    s.write(rel, transcriptNote('Synced', 'recording'));
    const abs = path.join(s.vault, rel);
    const old = new Date('2026-11-01T10:00:00Z');
    utimesSync(abs, old, old);
    const daemon = await startDaemonProcess({ configPath: s.configPath });
    await waitFor(() => daemon.logs.some((l) => typeof l.msg === 'string' && l.msg.startsWith('catch-up scan')), 'the start-up scan');

    const before = statSync(abs);
    writeFileSync(abs, transcriptNote('Synced', 'finished '));
    utimesSync(abs, new Date(), old);
    const after = statSync(abs);
    expect([after.mtimeMs, after.size]).toEqual([before.mtimeMs, before.size]);

    await waitFor(() => dataOf(s, 'Meetings/Summaries/Synced.md')?.status === 'done', 'the summary');
    expect(daemon.logs.some((l) => l.msg === 'summarize queued: Meetings/Synced.md' && l.trigger === 'transcript')).toBe(true);
    // Only the start-up scan ran: the schedule is once a year in these tests.
    expect(daemon.logs.filter((l) => typeof l.msg === 'string' && l.msg.startsWith('catch-up scan'))).toHaveLength(1);
  });
});

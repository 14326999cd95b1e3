import { describe, expect, it } from 'vitest';
import { startDaemonProcess, waitFor } from '../helpers/daemon-process.js';
import { daemonSetup, daemonTestFile, dataOf, summarizingModel } from '../helpers/daemon-helpers.js';

/** docs/design.md §1: two meetings with one file name, in two folders, with the real daemon. */

const file = daemonTestFile();

const NAME = '2026-12-02 1000 Design Review';
const meeting = (team: string, extra = '') =>
  `---\ntitle: Design Review ${team}\nprojects: [Alpha]\ntranscript: "[[Meetings/Transcripts/${team}/${NAME}]]"\n${extra}---\nNotes of ${team}.\n`;
const transcript = (team: string) => `---\nmeeting: "[[Meetings/${team}/${NAME}]]"\nstate: finished\n---\n[00:00:05] Alice: ${team} starts.\n`;

describe('daemon process: meetings with the same file name', () => {
  it('each gets its own summary and context note below its team folder', async () => {
    file.server.setFallback(summarizingModel());
    const setup = await daemonSetup(file.server);
    for (const team of ['Team A', 'Team B']) {
      setup.write(`Meetings/${team}/${NAME}.md`, meeting(team));
      setup.write(`Meetings/Transcripts/${team}/${NAME}.md`, transcript(team));
    }
    await startDaemonProcess({ configPath: setup.configPath });
    for (const team of ['Team A', 'Team B']) {
      await waitFor(() => dataOf(setup, `Meetings/Summaries/${team}/${NAME}.md`)?.status === 'done', `${team}'s summary`);
      await waitFor(() => dataOf(setup, `Meetings/Context/${team}/${NAME}.md`)?.state === 'finished', `${team}'s context note`);
      expect(dataOf(setup, `Meetings/Summaries/${team}/${NAME}.md`)?.meeting).toBe(`[[Meetings/${team}/${NAME}]]`);
      expect(setup.read(`Meetings/${team}/${NAME}.md`)).toContain(`summary: "[[Meetings/Summaries/${team}/${NAME}]]"`);
    }
    expect(setup.readIfExists(`Meetings/Summaries/${NAME}.md`)).toBeUndefined();
  });

  it('a summary the other meeting already has: a failure report of its own, the other summary untouched', async () => {
    file.server.setFallback(summarizingModel());
    const setup = await daemonSetup(file.server);
    // What the old default paths left: Team B's note links to Team A's summary and context note.
    const links = `summary: "[[Meetings/Summaries/${NAME}]]"\ncontext: "[[Meetings/Context/${NAME}]]"\n`;
    const ownedByA = `meeting: "[[Meetings/Team A/${NAME}]]"\n`;
    const summaryOfA = `---\ntitle: Design Review Team A\n${ownedByA}status: done\n---\n## Summary\nTeam A's decisions.\n`;
    setup.write(`Meetings/Team A/${NAME}.md`, meeting('Team A', links));
    setup.write(`Meetings/Transcripts/Team A/${NAME}.md`, transcript('Team A'));
    setup.write(`Meetings/Summaries/${NAME}.md`, summaryOfA);
    setup.write(`Meetings/Context/${NAME}.md`, `---\ntitle: Design Review Team A\n${ownedByA}state: finished\n---\n`);
    setup.write(`Meetings/Team B/${NAME}.md`, meeting('Team B', links));
    setup.write(`Meetings/Transcripts/Team B/${NAME}.md`, transcript('Team B'));
    const daemon = await startDaemonProcess({ configPath: setup.configPath });

    const report = `Meetings/Summaries/Team B/${NAME}.md`;
    await waitFor(() => dataOf(setup, report)?.status === 'failed', "Team B's failure report");
    expect(setup.read(report)).toContain(`belongs to another meeting, Meetings/Team A/${NAME}.md`);
    expect(setup.read(`Meetings/Summaries/${NAME}.md`)).toBe(summaryOfA);
    await waitFor(() => daemon.logs.some((l) => l.msg?.startsWith(`meeting failed: Meetings/Team B/${NAME}.md`)), 'the log line');
  });
});

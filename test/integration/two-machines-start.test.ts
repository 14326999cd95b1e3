import { mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it, onTestFinished } from 'vitest';
import { type DaemonProcess, listFiles, startDaemonProcess, waitFor } from '../helpers/daemon-process.js';
import { daemonSetup, daemonTestFile, dataOf, meetingOfRequest, meetingNote, summarizingModel, transcriptNote } from '../helpers/daemon-helpers.js';
import { toolCallsSoFar, toolNamesOf } from '../helpers/scripted-server.js';
import { startSyncLoop } from '../helpers/sync-loop.js';
import { contextAndSummaryLinks } from '../helpers/notes.js';

/**
 * Two machines that start together (docs/design.md §2; issue #45 point 1): two laptops waking,
 * whose copies hold both machines' records of a week ago; or a brand-new vault a sync tool
 * shares, on which no daemon has left a record yet. On the code before, both started active
 * at once and both summarized every meeting. Now each is a candidate that waits for the sync
 * tool before it takes the vault, and hears the other's record when the sync tool brings it:
 * one runs every meeting, once, with no conflict copy, whichever starts first and with the
 * sync tool fast or slow; and when the active one stops, the other takes over.
 *
 * Times are a half and a tenth of the issue's (sync 2 s and 20 s slow, heartbeats of 3 s and
 * 25 s): what the rules weigh is the sync delay against the heartbeat, and each ratio is kept.
 * A candidate's window (2 heartbeats, 3 s) stays well above a daemon's start on a loaded
 * machine (0.5-0.7 s at load 3), so the race is really run, not won by whoever starts first.
 */

const file = daemonTestFile();
const machineEnv = (name: string) => ({ MeetingAssistant__Daemon__MachineName: name });
const WEEK_AGO = new Date(Date.now() - 8 * 24 * 3600_000).toISOString();

let cases = 0;

interface Scenario {
  syncMs: number;
  heartbeatSeconds: number;
  /** Which daemon starts first (the other once it is a candidate), or both at once. */
  first: 'alpha' | 'beta' | 'together';
  /** The vault is brand new: no machine's record on either copy, a Syncthing marker on both. */
  brandNew: boolean;
  takeover: boolean;
}

describe('two machines that start together', () => {
  // The sync tool carries a file once it has stood still for its delay: a heartbeat must be
  // longer, or a record that beats is never carried (docs/install.md).
  it.each<Scenario>([
    { syncMs: 1000, heartbeatSeconds: 1.5, first: 'alpha', brandNew: false, takeover: true },
    { syncMs: 1000, heartbeatSeconds: 1.5, first: 'beta', brandNew: false, takeover: true },
    { syncMs: 2000, heartbeatSeconds: 2.5, first: 'beta', brandNew: false, takeover: false },
    { syncMs: 1000, heartbeatSeconds: 1.5, first: 'together', brandNew: true, takeover: false },
  ])('sync $syncMs ms, heartbeat $heartbeatSeconds s, $first first, brand-new vault: $brandNew: each meeting once, by one machine, no conflict copy', { timeout: 120_000 }, async ({ syncMs, heartbeatSeconds, first, brandNew, takeover }) => {
    // Names of this case's own: the scripted endpoint counts the requests of every case.
    const day = `2026-12-0${(cases++ % 9) + 1}`;
    const MEETINGS = [`${day} 0900 Planning`, `${day} 1000 Review`, `${day} 1100 Call`];
    file.server.setFallback(summarizingModel());
    const [alpha, beta] = [await daemonSetup(file.server), await daemonSetup(file.server)];
    const sides = { alpha, beta };
    for (const s of [alpha, beta]) {
      s.configure({ Daemon: { HeartbeatSeconds: heartbeatSeconds } });
      if (brandNew) {
        // Syncthing's folder marker, on both copies: the only sign yet that the vault is shared.
        mkdirSync(path.join(s.vault, '.stfolder'));
      } else {
        mkdirSync(path.join(s.vault, '.meeting-assistant', 'machines'), { recursive: true });
        for (const machine of ['alpha', 'beta']) {
          const stopped = { machine, role: 'stopped', beatAt: WEEK_AGO, heartbeatMs: heartbeatSeconds * 1000, pid: 4242, startedAt: WEEK_AGO };
          writeFileSync(path.join(s.vault, '.meeting-assistant', 'machines', `${machine}.json`), JSON.stringify(stopped, null, 2) + '\n');
        }
      }
      // Three meetings finished while both slept, on both copies already.
      for (const name of MEETINGS) {
        s.write(`Meetings/${name}.md`, meetingNote(name, contextAndSummaryLinks(name)));
        s.write(`Meetings/Transcripts/${name}.md`, transcriptNote(name, 'finished'));
      }
    }
    const sync = startSyncLoop({ a: alpha.vault, b: beta.vault }, { delayMs: syncMs });
    onTestFinished(() => sync.stop());

    const heartbeatMs = heartbeatSeconds * 1000;
    const start = (name: 'alpha' | 'beta') => startDaemonProcess({ configPath: sides[name].configPath, env: machineEnv(name), waitReady: false });
    const candidate = (l: { msg?: unknown }) => String(l.msg).startsWith('no other machine is active on this vault');
    let a: DaemonProcess;
    let b: DaemonProcess;
    if (first === 'together') {
      [a, b] = await Promise.all([start('alpha'), start('beta')]);
    } else {
      const second = first === 'alpha' ? 'beta' : 'alpha';
      const daemons: Partial<Record<'alpha' | 'beta', DaemonProcess>> = {};
      daemons[first] = await start(first);
      await daemons[first].waitForLog(candidate, 30_000, `${first} a candidate`);
      daemons[second] = await start(second);
      [a, b] = [daemons.alpha!, daemons.beta!];
    }

    // beta hears alpha's claim once the sync tool brings it, and waits as its standby; alpha's name sorts first.
    await b.waitForLog((l) => String(l.msg).startsWith('standby: machine alpha'), syncMs + 30_000, "beta's standby line");
    await a.waitForLog((l) => String(l.msg).startsWith('ready:'), 2 * heartbeatMs + 60_000, 'alpha ready');
    const done = (s: typeof alpha, name: string) => dataOf(s, `Meetings/Summaries/${name}.md`)?.status === 'done';
    await waitFor(() => MEETINGS.every((n) => done(alpha, n) && done(beta, n)), 'every summary on both copies', syncMs * 3 + 60_000);
    expect(b.logs.some((l) => String(l.msg).startsWith('ready:'))).toBe(false);

    if (takeover) {
      // alpha stops: its record says so, beta takes the vault over and summarizes what comes next.
      expect((await a.stop('SIGTERM', 30_000)).code).toBe(0);
      await b.waitForLog((l) => l.msg === 'active on this vault: machine beta', syncMs + 6 * heartbeatMs + 30_000, "beta's takeover");
      await b.waitForLog((l) => String(l.msg).startsWith('ready:'), 60_000, 'beta ready');
      const fourth = `${day} 1400 Retro`;
      beta.write(`Meetings/${fourth}.md`, meetingNote(fourth));
      beta.write(`Meetings/Transcripts/${fourth}.md`, transcriptNote(fourth, 'finished'));
      await b.waitForLog((l) => l.msg === `summary written: Meetings/Summaries/${fourth}.md`, 60_000, 'the fourth summary, by beta');
      MEETINGS.push(fourth);
    }

    // Each meeting summarized exactly once: one conversation each, one "summary written" each.
    const runsOf = (name: string) =>
      file.server.modelRequests().filter((r) => meetingOfRequest(r) === `Meetings/${name}.md` && toolNamesOf(r).includes('write_summary') && toolCallsSoFar(r).length === 0).length;
    expect(MEETINGS.map(runsOf)).toEqual(MEETINGS.map(() => 1));
    const summaries = [...a.logs, ...b.logs].filter((l) => String(l.msg).startsWith('summary written: Meetings/Summaries/')).map((l) => l.meeting);
    expect(summaries.sort()).toEqual(MEETINGS.map((n) => `Meetings/${n}.md`).sort());
    expect(sync.conflicts).toEqual([]);
    for (const s of [alpha, beta]) expect(listFiles(s.vault).filter((f) => f.includes('.sync-conflict-'))).toEqual([]);
    // On a brand-new vault each waited, and said that the vault's Syncthing marker is why (not the configured name).
    if (brandNew) for (const d of [a, b]) expect(d.logs.find(candidate)?.looksShared).toMatch(/^Syncthing shares it \(.*\.stfolder\)$/);
    await Promise.all([a, b].map((d) => d.stop('SIGTERM', 30_000)));
  });
});

import { execFileSync } from 'node:child_process';
import { mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { startDaemonProcess, waitFor } from '../helpers/daemon-process.js';
import { daemonSetup, daemonTestFile, dataOf, failingModel, meetingNote, transcriptNote } from '../helpers/daemon-helpers.js';

/**
 * Issue #24 point 9 against the real daemon: the summaries folder is a tmpfs mounted
 * read-only (EROFS), or full (ENOSPC). The run fails, its failure report cannot be written:
 * the log says so with the reason (never naming a report that does not exist), the status
 * says so, the context note says `error` and why, and once the folder is writable again the
 * next catch-up writes the report. As root, chmod does not stop a write, so a mount it is;
 * where mounting is not allowed the test is skipped, saying so.
 */

function canMount(): boolean {
  if (process.platform !== 'linux' || process.getuid?.() !== 0) return false;
  const probe = path.join('/tmp', `ma-mount-probe-${process.pid}`);
  try {
    mkdirSync(probe, { recursive: true });
    execFileSync('mount', ['-t', 'tmpfs', '-o', 'size=64k', 'tmpfs', probe], { stdio: 'ignore' });
    execFileSync('umount', [probe], { stdio: 'ignore' });
    return true;
  } catch {
    return false;
  } finally {
    rmSync(probe, { recursive: true, force: true });
  }
}

const MOUNTABLE = canMount();
const mounted: string[] = [];
const file = daemonTestFile('each');

afterEach(() => {
  for (const dir of mounted.splice(0)) {
    try {
      execFileSync('umount', ['-l', dir], { stdio: 'ignore' });
    } catch {
      // already gone
    }
  }
});

const NAME = '2026-12-01 Review';

describe.skipIf(!MOUNTABLE)('a failure report that cannot be written (real daemon; needs root and tmpfs mounts)', () => {
  it.each(['EROFS', 'ENOSPC'] as const)('%s: said in the log and the status, the context note error, written at the next catch-up', async (code) => {
    file.server.setFallback(failingModel);
    const setup = await daemonSetup(file.server, {
      Http: { Token: 'unwritable-test-token' },
      // A scan every second: "the next catch-up" comes soon.
      Daemon: { ReconcileSchedule: '* * * * * *' },
    });
    const summaries = path.join(setup.vault, 'Meetings/Summaries');
    mkdirSync(summaries, { recursive: true });
    execFileSync('mount', ['-t', 'tmpfs', '-o', `size=${code === 'ENOSPC' ? '32k' : '1m'}`, 'tmpfs', summaries]);
    mounted.push(summaries);
    const filler = path.join(summaries, 'filler.bin');
    if (code === 'ENOSPC') {
      try {
        writeFileSync(filler, Buffer.alloc(1024 * 1024));
      } catch {
        // full, as meant
      }
    } else {
      execFileSync('mount', ['-o', 'remount,ro', summaries]);
    }
    setup.write(`Meetings/${NAME}.md`, meetingNote(NAME));
    setup.write(`Meetings/Transcripts/${NAME}.md`, transcriptNote(NAME, 'finished'));
    const daemon = await startDaemonProcess({ configPath: setup.configPath });

    const line = await waitFor(
      () => daemon.logs.find((l) => /^could not write the failure report Meetings\/Summaries\//.test(l.msg ?? '')),
      'the log line saying the report could not be written',
      30_000,
    );
    expect(line.msg).toContain(code);
    const failed = await waitFor(() => daemon.logs.find((l) => /^meeting failed:/.test(l.msg ?? '')), 'the run outcome line');
    expect(failed.msg).toContain('could not write the failure report');
    expect(failed.msg).not.toContain('(failure report:');
    expect(dataOf(setup, `Meetings/Summaries/${NAME}.md`)).toBeUndefined();
    await waitFor(() => dataOf(setup, `Meetings/Context/${NAME}.md`)?.state === 'error', 'the context note to say error');
    expect(setup.read(`Meetings/Context/${NAME}.md`)).toContain('its failure report could not be written');

    // The status (the API's JSON; the status page shows the same run record) says it too.
    const status = () => fetch(`http://127.0.0.1:${setup.port}/api/status`, { headers: { authorization: 'Bearer unwritable-test-token' } }).then((r) => r.text());
    // The queue records the outcome just after the run's last log line.
    await waitFor(async () => (await status()).includes('could not write the failure report'), 'the status to say the report was not written');

    // The folder becomes writable: the next catch-up runs the meeting again and its report lands.
    if (code === 'ENOSPC') rmSync(filler, { force: true });
    else execFileSync('mount', ['-o', 'remount,rw', summaries]);
    await waitFor(() => dataOf(setup, `Meetings/Summaries/${NAME}.md`)?.status === 'failed', 'the failure report at the next catch-up', 30_000);
    expect(daemon.logs.some((l) => l.trigger === 'catch-up (failure report not written)')).toBe(true);
    expect(readFileSync(path.join(summaries, `${NAME}.md`), 'utf8')).toContain('# Summary failed:');
    await daemon.stop();
});
});

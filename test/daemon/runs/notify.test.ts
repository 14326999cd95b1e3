import { chmodSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { findOnPath } from '../../../src/external-programs.js';
import type { CommandResult } from '../../../src/external-programs.js';
import { createNotifier, type NotifierOptions } from '../../../src/daemon/runs/notify.js';
import type { RunRecord } from '../../../src/daemon/runs/run-history.js';
import { capturedLogger } from '../../helpers/captured-log.js';

/** Desktop notifications: which program, which arguments, and silence when asked for none. */

const done: RunRecord = {
  runId: 'r1',
  kind: 'summarize',
  trigger: 'transcript',
  meeting: 'Meetings/2026-11-30 Weekly Sync.md',
  title: 'R&D <Sync>',
  startedAt: '2026-11-30T10:00:00Z',
  finishedAt: '2026-11-30T10:01:00Z',
  status: 'done',
  summary: 'Meetings/Summaries/2026-11-30 Weekly Sync.md',
  modelRequests: 3,
};
const failed: RunRecord = { ...done, title: undefined, status: 'failed', error: 'ModelError (http): model "x" is not loaded' };

function harness(options: Partial<NotifierOptions> & { on?: [boolean, boolean]; answers?: CommandResult[] } = {}) {
  const calls: [string, string[]][] = [];
  const { log, lines } = capturedLogger('info');
  const answers = [...(options.answers ?? [])];
  const notifier = createNotifier({
    settings: { OnSuccess: options.on?.[0] ?? true, OnFailure: options.on?.[1] ?? true },
    log,
    vaultName: 'My Vault',
    platform: 'linux',
    findCommand: (name) => (['notify-send', 'xdg-open', 'osascript'].includes(name) ? `/usr/bin/${name}` : undefined),
    run: async (command, args) => {
      calls.push([command, args]);
      return answers.shift() ?? { code: 0, stdout: '', stderr: '' };
    },
    ...options,
  });
  return { notifier, calls, lines };
}

const OBSIDIAN = 'obsidian://open?vault=My%20Vault&file=Meetings%2FSummaries%2F2026-11-30%20Weekly%20Sync.md';

describe('desktop notifications', () => {
  it('Linux: notify-send names the meeting, escapes markup, offers "Open in Obsidian", and a click opens the note', async () => {
    const h = harness({ answers: [{ code: 0, stdout: 'open\n', stderr: '' }] });
    await h.notifier.runFinished(done);
    expect(h.calls).toEqual([
      [
        '/usr/bin/notify-send',
        [
          '--app-name=Meeting Assistant',
          '--urgency=normal',
          '--action=open=Open in Obsidian',
          '--wait',
          'Summary ready: R&D <Sync>',
          'Meetings/Summaries/2026-11-30 Weekly Sync.md',
        ],
      ],
      ['/usr/bin/xdg-open', [OBSIDIAN]],
    ]);
  });

  it('a failure names the meeting (its file name without a title) and the error, urgently', async () => {
    const h = harness();
    await h.notifier.runFinished(failed);
    expect(h.calls[0]![1]).toEqual(expect.arrayContaining(['--urgency=critical', 'Summary failed: 2026-11-30 Weekly Sync']));
    expect(h.calls[0]![1].at(-1)).toBe('Meetings/Summaries/2026-11-30 Weekly Sync.md\nModelError (http): model &#34;x&#34; is not loaded');
    expect(h.calls).toHaveLength(1);
  });

  it('a notify-send without actions gets the plain notification, now and from then on', async () => {
    const h = harness({ answers: [{ code: 1, stdout: '', stderr: 'Unknown option --action' }] });
    await h.notifier.runFinished(done);
    await h.notifier.runFinished(done);
    expect(h.calls.map(([, args]) => args.includes('--wait'))).toEqual([true, false, false]);
  });

  it('macOS: osascript with the texts as arguments, never inside the script', async () => {
    const h = harness({ platform: 'darwin' });
    await h.notifier.runFinished(failed);
    const [command, args] = h.calls[0]!;
    expect(command).toBe('/usr/bin/osascript');
    expect(args.slice(-2)).toEqual(['Summary failed: 2026-11-30 Weekly Sync', 'ModelError (http): model "x" is not loaded']);
    expect(args.slice(0, -2).join(' ')).not.toContain('Weekly');
  });

  it('only what Notify asks for; nothing and no log line when both are off', async () => {
    const success = harness({ on: [true, false] });
    await success.notifier.runFinished(failed);
    await success.notifier.runFinished(done);
    expect(success.calls.map(([, args]) => args.find((a) => a.startsWith('Summary')))).toEqual(['Summary ready: R&D <Sync>']);
    const off = harness({ on: [false, false], findCommand: () => undefined });
    await off.notifier.runFinished(done);
    expect(off.calls).toEqual([]);
    expect(off.lines).toEqual([]);
  });

  it('without notify-send (or on another platform) says so once at start and stays silent; a failing command is a warning', async () => {
    const missing = harness({ findCommand: () => undefined });
    await missing.notifier.runFinished(done);
    await missing.notifier.runFinished(failed);
    expect(missing.calls).toEqual([]);
    expect(missing.lines.map((l) => l.msg)).toEqual(['desktop notifications are on, but notify-send (package libnotify-bin) is not on PATH: none will be shown']);
    const windows = harness({ platform: 'win32' });
    expect(windows.lines.map((l) => l.msg)).toEqual(['desktop notifications are not supported on win32: none will be shown']);

    const broken = harness({ findCommand: (n) => (n === 'notify-send' ? '/bin/notify-send' : undefined), answers: [{ code: 1, stdout: '', stderr: 'cannot connect to the session bus' }] });
    await broken.notifier.runFinished(done);
    expect(broken.lines.at(-1)).toMatchObject({ level: 'warn', msg: 'desktop notification not shown: cannot connect to the session bus' });
  });

  it('runs the notify-send found on PATH, without a shell: a stand-in records exactly its arguments', async () => {
    const bin = mkdtempSync(path.join(os.tmpdir(), 'ma-notify-'));
    try {
      const log = path.join(bin, 'args.log');
      writeFileSync(path.join(bin, 'notify-send'), `#!/bin/sh\nfor a in "$@"; do printf '[%s]\\n' "$a" >> '${log}'; done\n`);
      chmodSync(path.join(bin, 'notify-send'), 0o755);
      const { log: logger, lines } = capturedLogger('info');
      const notifier = createNotifier({
        settings: { OnSuccess: true, OnFailure: true },
        log: logger,
        vaultName: 'Vault',
        platform: 'linux',
        findCommand: (name) => findOnPath(name, bin),
      });
      await notifier.runFinished({ ...done, title: 'Budget $(touch pwned) `x`' });
      // runFinished resolves when the program has exited.
      const recorded = readFileSync(log, 'utf8');
      // No xdg-open on this PATH: the plain notification, no action to offer.
      expect(recorded).toBe(
        '[--app-name=Meeting Assistant]\n[--urgency=normal]\n[Summary ready: Budget $(touch pwned) `x`]\n[Meetings/Summaries/2026-11-30 Weekly Sync.md]\n',
      );
      expect(lines).toEqual([]);
    } finally {
      rmSync(bin, { recursive: true, force: true });
    }
  });
});

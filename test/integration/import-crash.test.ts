import { existsSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { promises as fsp } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { resolveConfig } from '../../src/config.js';
import { importFile } from '../../src/import/importer.js';
import type { Fs } from '../../src/vault/files/fs.js';
import { Vault } from '../../src/vault/files/vault.js';
import { COLD_RUN_WAIT_MS, startDaemonProcess, waitFor } from '../helpers/daemon-process.js';
import { daemonSetup, daemonTestFile, dataOf, summarizingModel } from '../helpers/daemon-helpers.js';

/**
 * Crash safety of imports with the real daemon (docs/design.md §9): a daemon killed while it
 * transcribes leaves the recording in the inbox, imported at the next start; an import cut
 * after its commit point (the original in Sources, the notes still staged) is completed by
 * the next daemon, which then summarizes the meeting.
 */

const file = daemonTestFile();
const STAND_IN = path.join(path.dirname(fileURLToPath(import.meta.url)), '..', 'fixtures', 'import', 'stand-in-transcriber.mjs');
const VTT = 'WEBVTT\n\n00:00:01.000 --> 00:00:04.000\n<v Alice>We ship on Friday.\n';

describe('daemon process: an import cut by a crash', () => {
  it('killed while transcribing: the recording is still in the inbox and is imported at the next start', async () => {
    file.server.setFallback(summarizingModel());
    const setup = await daemonSetup(file.server, { Import: { SettleSeconds: 0.2, TranscribeCommand: [process.execPath, STAND_IN, 'hang', '{input}', '{output_base}'] } });
    const first = await startDaemonProcess({ configPath: setup.configPath });
    setup.write('Meetings/Inbox/2026-12-02 0900 Call.m4a', 'the budget');
    const token = () => setup.readIfExists('.meeting-assistant/token')?.trim();
    await waitFor(async () => {
      const t = token();
      if (!t) return false;
      const status = (await (await fetch(`http://127.0.0.1:${setup.port}/api/status`, { headers: { authorization: `Bearer ${t}` } })).json()) as { imports: { state: string }[] };
      return status.imports.some((i) => i.state === 'transcribing');
    }, 'the transcription to start', 30000);
    await first.kill();
    expect(existsSync(path.join(setup.vault, 'Meetings/Inbox/2026-12-02 0900 Call.m4a'))).toBe(true);
    expect(readdirSync(path.join(setup.vault, 'Meetings')).filter((n) => n.endsWith('.md'))).toEqual([]);

    setup.configure({ Import: { TranscribeCommand: [process.execPath, STAND_IN, 'ok', '{input}', '{output_base}'] } });
    await startDaemonProcess({ configPath: setup.configPath });
    const s = setup;
    // The transcriber and then the run process start cold on the way (see daemon-import.test.ts).
    await waitFor(() => dataOf(s, 'Meetings/Summaries/2026-12-02 0900 Call.md')?.status === 'done', 'the summary', COLD_RUN_WAIT_MS);
  });

  it('cut after the commit point: the next daemon places the notes and summarizes the meeting', async () => {
    file.server.setFallback(summarizingModel());
    const setup = await daemonSetup(file.server, { Import: { SettleSeconds: 0.2 } });
    setup.write('Meetings/Inbox/2026-12-02 1000 Sync.vtt', VTT);
    // The import dies at its first placement: the original is in Sources, the notes staged.
    const dying = new Proxy(fsp as unknown as Fs, {
      get(target, prop, receiver) {
        const value = Reflect.get(target, prop, receiver) as (...a: unknown[]) => unknown;
        if (prop !== 'rename') return typeof value === 'function' ? value.bind(target) : value;
        return async (from: string, to: string) => {
          if (to.includes(`${path.sep}Context${path.sep}`)) throw new Error('killed');
          return value.call(target, from, to);
        };
      },
    });
    const vault = new Vault(dying, resolveConfig({ MeetingAssistant: { VaultPath: setup.vault } }, { cwd: '/' }).layout);
    await expect(importFile({ vault, clock: () => new Date() }, { file: vault.abs('Meetings/Inbox/2026-12-02 1000 Sync.vtt'), keep: 'move' })).rejects.toThrow('killed');
    expect(setup.read('Meetings/Sources/2026-12-02 1000 Sync.vtt')).toBe(VTT);
    expect(existsSync(path.join(setup.vault, 'Meetings/2026-12-02 1000 Sync.md'))).toBe(false);
    // The plan names this (live) test process; a killed one is gone: a pid above Linux's pid_max.
    const staging = path.join(setup.vault, '.meeting-assistant/imports');
    const [dir] = readdirSync(staging);
    const plan = path.join(staging, dir!, 'plan.json');
    writeFileSync(plan, JSON.stringify({ ...JSON.parse(readFileSync(plan, 'utf8')), pid: 4194304 + 1 }));

    const daemon = await startDaemonProcess({ configPath: setup.configPath });
    const s = setup;
    await waitFor(() => dataOf(s, 'Meetings/Summaries/2026-12-02 1000 Sync.md')?.status === 'done', 'the summary', 30000);
    expect(dataOf(setup, 'Meetings/2026-12-02 1000 Sync.md')).toMatchObject({ source: '[[Meetings/Sources/2026-12-02 1000 Sync.vtt]]' });
    expect(daemon.logs.some((l) => l.msg === 'import completed after a crash: Meetings/2026-12-02 1000 Sync.md')).toBe(true);
    expect(readdirSync(path.join(setup.vault, '.meeting-assistant/imports'))).toEqual([]);
  });
});

import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { runCli, startDaemonProcess } from '../helpers/daemon-process.js';
import { daemonSetup, daemonTestFile, dataOf, summarizingModel } from '../helpers/daemon-helpers.js';

/** `meeting-assistant import` (docs/design.md §6, §9): with and without a running daemon. */

const file = daemonTestFile();
const VTT = 'WEBVTT\n\n00:00:01.000 --> 00:00:04.000\n<v Alice>We ship on Friday.\n\n00:00:05.000 --> 00:00:08.000\n<v Bob>Agreed.\n';

const said = (stdout: string) => stdout.split('\n').filter((l) => l !== '' && !l.startsWith('{'));

function outside(dir: string, name: string, content: string): string {
  const folder = path.join(dir, 'downloads');
  mkdirSync(folder, { recursive: true });
  const p = path.join(folder, name);
  writeFileSync(p, content);
  return p;
}

describe('meeting-assistant import', () => {
  it('without a daemon: copies, prints meeting: and summary:, leaves the original where it was', async () => {
    file.server.setFallback(summarizingModel());
    const setup = await daemonSetup(file.server);
    const original = outside(setup.dir, 'call.vtt', VTT);
    const result = await runCli(['import', original, '--title', 'Customer call', '--projects', 'Alpha', '--start', '2026-12-02T10:00:00', '--config', setup.configPath], { timeoutMs: 60000 });
    expect(result.code).toBe(0);
    // The run's log lines (JSON) go to stdout too, as for `summarize`.
    expect(said(result.stdout)).toEqual(['meeting: Meetings/2026-12-02 1000 Customer call.md', 'summary: Meetings/Summaries/2026-12-02 1000 Customer call.md']);
    expect(dataOf(setup, 'Meetings/2026-12-02 1000 Customer call.md')).toMatchObject({ title: 'Customer call', projects: ['Alpha'], attendees: ['Alice', 'Bob'] });
    expect(dataOf(setup, 'Meetings/Summaries/2026-12-02 1000 Customer call.md')?.status).toBe('done');
    expect(readFileSync(original, 'utf8')).toBe(VTT);
    expect(setup.read('Meetings/Sources/call.vtt')).toBe(VTT);
  });

  it('with a daemon: the file goes to it, the command waits for its summary; a bad file exits 1 with the reason', async () => {
    file.server.setFallback(summarizingModel());
    const setup = await daemonSetup(file.server, { Import: { SettleSeconds: 0.3 } });
    await startDaemonProcess({ configPath: setup.configPath });
    const original = outside(setup.dir, '2026-12-03 0930 Planning.vtt', VTT);
    const result = await runCli(['import', original, '--config', setup.configPath], { timeoutMs: 60000 });
    expect(result.code).toBe(0);
    expect(said(result.stdout)).toEqual(['meeting: Meetings/2026-12-03 0930 Planning.md', 'summary: Meetings/Summaries/2026-12-03 0930 Planning.md']);
    expect(existsSync(original)).toBe(true);

    const bad = outside(setup.dir, 'empty.srt', '\n');
    const failed = await runCli(['import', bad, '--config', setup.configPath], { timeoutMs: 60000 });
    expect(failed.code).toBe(1);
    expect(failed.stderr).toMatch(/import failed: empty\.srt/);
  });

  it('usage errors exit 2', async () => {
    const setup = await daemonSetup(file.server);
    const original = outside(setup.dir, 'call.vtt', VTT);
    expect((await runCli(['import', original, '--start', 'tomorrow', '--config', setup.configPath])).code).toBe(2);
    expect((await runCli(['import', outside(setup.dir, 'x.pdf', 'x'), '--config', setup.configPath])).code).toBe(2);
  });
});

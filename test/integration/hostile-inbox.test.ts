import { spawnSync } from 'node:child_process';
import { appendFileSync, existsSync, mkdirSync, readdirSync, readFileSync, symlinkSync, utimesSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { COLD_RUN_WAIT_MS, startDaemonProcess, waitFor } from '../helpers/daemon-process.js';
import { daemonSetup, daemonTestFile, dataOf, editProperty, summarizingModel } from '../helpers/daemon-helpers.js';
import { docxOf } from '../helpers/zip.mjs';

/**
 * The inbox against hostile files with the real daemon process and chokidar (issue 33,
 * docs/design.md §9 "Limits"): links out of the vault and into its dot-folders, a FIFO, a
 * .docx zip bomb at every start, 255-byte names, a retry ticked while the file still grows.
 *
 * Each test has a vault, a port and a daemon of its own and the one model every test may
 * meet (the summarizing one), so the tests run at once (the settle rule's alone, first): most of a test's time is waiting
 * (a process's start, a settle period, a run's turns), which the others fill. Every daemon
 * is killed and every vault removed once the file is done. Sharing the machine with each
 * other, their waits are bounded as for a cold run's start (COLD_RUN_WAIT_MS).
 */

const file = daemonTestFile('all');
beforeAll(() => file.server.setFallback(summarizingModel()));
const IMPORT = { Import: { SettleSeconds: 0.3 } };
const cue = (i: number) => `${i + 1}\n00:00:${String(i * 2).padStart(2, '0')},000 --> 00:00:${String(i * 2 + 1).padStart(2, '0')},000\nAlice Example: Cue number ${i + 1}.\n\n`;
const SRT = cue(0) + cue(1);
const hasMkfifo = spawnSync('mkfifo', ['--version']).error === undefined;

const healthz = async (port: number) => (await fetch(`http://127.0.0.1:${port}/healthz`)).status;

// Alone, first: its writer's 200 ms gaps against the 3 s settle period must not be stretched by
// four daemons starting beside it (a gap past the period would import a half-written file).
describe('daemon process: a ticked retry and the settle rule', () => {
  it('ticked while the fixed file is still being written, the import waits until it has settled: every cue is kept', async () => {
    // The writer's gaps (200 ms) must stay shorter than the settle period, or the half-written
    // file rightly counts as settled: 3 s leaves a loaded machine 2.8 s to be late by.
    const s = await daemonSetup(file.server, { Import: { SettleSeconds: 3 } });
    await startDaemonProcess({ configPath: s.configPath });
    s.write('Meetings/Inbox/growing.srt', 'garbage\n');
    const note = 'Meetings/Inbox/growing.srt (import failed).md';
    await waitFor(() => dataOf(s, note)?.status === 'failed', 'the error note', COLD_RUN_WAIT_MS);
    const abs = path.join(s.vault, 'Meetings/Inbox/growing.srt');
    writeFileSync(abs, cue(0));
    for (let i = 1; i < 16; i++) {
      if (i === 4) editProperty(s, note, 'retry', 'false', 'true');
      await new Promise((resolve) => setTimeout(resolve, 200)); // the writer's pace: a copy still under way
      appendFileSync(abs, cue(i));
    }
    const transcript = await waitFor(() => readdirSync(path.join(s.vault, 'Meetings/Transcripts')).find((n) => n.endsWith('growing.md')), 'the import', COLD_RUN_WAIT_MS);
    const text = s.read(`Meetings/Transcripts/${transcript}`);
    for (let i = 0; i < 16; i++) expect(text).toContain(`Cue number ${i + 1}.`);
  });
});

describe.concurrent('daemon process: links in the inbox', () => {
  it('a link out of the vault or into a dot-folder is refused with its note, by the watcher and the scan alike; nothing outside is moved', async () => {
    const s = await daemonSetup(file.server, IMPORT);
    const outside = path.join(s.dir, 'outside');
    mkdirSync(path.join(outside, 'folder'), { recursive: true });
    writeFileSync(path.join(outside, 'passwd.txt'), 'root:x:0:0:root:/root:/bin/bash\n');
    writeFileSync(path.join(outside, 'folder', 'call.srt'), SRT);
    const inbox = path.join(s.vault, 'Meetings/Inbox');
    mkdirSync(inbox, { recursive: true });
    // Present at start: found by the catch-up scan.
    symlinkSync(path.join(outside, 'passwd.txt'), path.join(inbox, '2026-11-09 0900 Passwd.txt'));
    const daemon = await startDaemonProcess({ configPath: s.configPath });
    await waitFor(() => dataOf(s, 'Meetings/Inbox/2026-11-09 0900 Passwd.txt (import failed).md')?.status === 'failed', 'the scan refusing the link', COLD_RUN_WAIT_MS);
    // Made while it runs: seen by the watcher.
    symlinkSync(path.join(s.vault, '.meeting-assistant', 'token'), path.join(inbox, 'token.txt'));
    symlinkSync(path.join(outside, 'folder'), path.join(inbox, 'Linked'));
    await waitFor(() => dataOf(s, 'Meetings/Inbox/token.txt (import failed).md')?.status === 'failed', 'the watcher refusing the link', COLD_RUN_WAIT_MS);
    expect(s.read('Meetings/Inbox/token.txt (import failed).md')).toMatch(/symbolic link that leads into one of the vault's dot-folders/);
    expect(s.read('Meetings/Inbox/2026-11-09 0900 Passwd.txt (import failed).md')).toMatch(/symbolic link that leads outside the vault/);
    // A good file after the links: once it is imported, the links had their turn.
    s.write('Meetings/Inbox/2026-12-02 1000 Good.srt', SRT);
    await waitFor(() => dataOf(s, 'Meetings/Summaries/2026-12-02 1000 Good.md')?.status === 'done', 'the good file summarized', COLD_RUN_WAIT_MS);
    expect(existsSync(path.join(outside, 'folder', 'call.srt'))).toBe(true);
    expect(existsSync(path.join(outside, 'passwd.txt'))).toBe(true);
    expect(readdirSync(path.join(s.vault, 'Meetings/Sources'))).toEqual(['2026-12-02 1000 Good.srt']);
    expect(readdirSync(path.join(s.vault, 'Meetings/Transcripts'))).toEqual(['2026-12-02 1000 Good.md']);
    expect(daemon.logs.some((l) => l.msg?.startsWith('import failed: Meetings/Inbox/Linked/'))).toBe(false);
  });

  it.skipIf(!hasMkfifo)('a FIFO in the inbox blocks nothing: the API answers and the next file is imported (skipped without mkfifo)', async () => {
    const s = await daemonSetup(file.server, IMPORT);
    mkdirSync(path.join(s.vault, 'Meetings/Inbox'), { recursive: true });
    expect(spawnSync('mkfifo', [path.join(s.vault, 'Meetings/Inbox/pipe.vtt')]).status).toBe(0);
    await startDaemonProcess({ configPath: s.configPath });
    s.write('Meetings/Inbox/2026-12-02 1000 After.srt', SRT);
    await waitFor(() => dataOf(s, 'Meetings/Summaries/2026-12-02 1000 After.md')?.status === 'done', 'the file after the FIFO summarized', COLD_RUN_WAIT_MS);
    expect(await healthz(s.port)).toBe(200);
    expect(existsSync(path.join(s.vault, 'Meetings/Inbox/pipe.vtt'))).toBe(true);
  });
});

describe.concurrent('daemon process: a .docx zip bomb', () => {
  it('is an import error naming the limit, and the next start does not fall into it again', async () => {
    const s = await daemonSetup(file.server, { ...IMPORT, Agent: { MaxFileBytes: 2 * 1024 * 1024 } });
    const bomb = docxOf(['Alice Example  0:00:01', 'Hello.'], 64 * 1024 * 1024);
    expect(bomb.length).toBeLessThan(200 * 1024);
    mkdirSync(path.join(s.vault, 'Meetings/Inbox'), { recursive: true });
    writeFileSync(path.join(s.vault, 'Meetings/Inbox/2026-12-02 1000 Bomb.docx'), bomb);
    const note = 'Meetings/Inbox/2026-12-02 1000 Bomb.docx (import failed).md';
    const first = await startDaemonProcess({ configPath: s.configPath });
    await waitFor(() => dataOf(s, note)?.status === 'failed', 'the error note', COLD_RUN_WAIT_MS);
    expect(s.read(note)).toContain('expands to more than Agent.MaxFileBytes (2097152 bytes) when unpacked');
    expect(await healthz(s.port)).toBe(200);
    expect((await first.stop()).code).toBe(0);
    const failedAt = dataOf(s, note)?.failed_at;
    const second = await startDaemonProcess({ configPath: s.configPath });
    // Imports run one at a time: a file dropped after the start is imported after whatever the scan queued.
    s.write('Meetings/Inbox/2026-12-02 1100 After.srt', SRT);
    await waitFor(() => dataOf(s, 'Meetings/2026-12-02 1100 After.md') !== undefined, 'the next file imported', COLD_RUN_WAIT_MS);
    expect(await healthz(s.port)).toBe(200);
    expect(dataOf(s, note)?.failed_at).toBe(failedAt);
    expect(existsSync(path.join(s.vault, 'Meetings/Inbox/2026-12-02 1000 Bomb.docx'))).toBe(true);
    expect((await second.stop()).code).toBe(0);
  });
});

describe.concurrent('daemon process: names of 255 bytes', () => {
  const stem = (prefix: string, ext: string) => prefix + 'x'.repeat(255 - Buffer.byteLength(prefix) - ext.length);

  it('a file named with 255 bytes is imported under a shortened name that keeps the date and the start of the title, and summarized', async () => {
    const s = await daemonSetup(file.server, IMPORT);
    const name = `${stem('2026-12-02 1000 Quarterly planning ', '.srt')}.srt`;
    expect(Buffer.byteLength(name)).toBe(255);
    await startDaemonProcess({ configPath: s.configPath });
    s.write(`Meetings/Inbox/${name}`, SRT);
    const summary = await waitFor(() => readdirSync(path.join(s.vault, 'Meetings/Summaries')).find((n) => n.endsWith('.md')), 'the summary note', COLD_RUN_WAIT_MS);
    await waitFor(() => dataOf(s, `Meetings/Summaries/${summary}`)?.status === 'done', 'the summary done', COLD_RUN_WAIT_MS);
    expect(summary.startsWith('2026-12-02 1000 Quarterly planning xxx')).toBe(true);
    expect(Buffer.byteLength(summary)).toBeLessThanOrEqual(180);
    await waitFor(() => dataOf(s, `Meetings/Context/${summary}`)?.state === 'finished', 'the context note finished', COLD_RUN_WAIT_MS);
    const [source] = readdirSync(path.join(s.vault, 'Meetings/Sources'));
    expect(source!.startsWith('2026-12-02 1000 Quarterly planning xxx')).toBe(true);
    expect(dataOf(s, `Meetings/${summary}`)?.title).toBe(name.slice('2026-12-02 1000 '.length, -'.srt'.length));
  });

  it('a broken file named with 255 bytes gets a shortened error note, and ticking its retry imports the fixed file', async () => {
    const s = await daemonSetup(file.server, IMPORT);
    const name = `${stem('2026-12-02 1100 Broken ', '.srt')}.srt`;
    await startDaemonProcess({ configPath: s.configPath });
    s.write(`Meetings/Inbox/${name}`, 'garbage\n');
    const note = await waitFor(() => readdirSync(path.join(s.vault, 'Meetings/Inbox')).find((n) => n.endsWith(' (import failed).md')), 'the error note', COLD_RUN_WAIT_MS);
    expect(Buffer.byteLength(note)).toBeLessThanOrEqual(255);
    expect(note.startsWith('2026-12-02 1100 Broken xxx')).toBe(true);
    s.write(`Meetings/Inbox/${name}`, SRT);
    utimesSync(path.join(s.vault, 'Meetings/Inbox', note), new Date(), new Date(Date.now() + 60_000));
    editProperty(s, `Meetings/Inbox/${note}`, 'retry', 'false', 'true');
    await waitFor(() => readdirSync(path.join(s.vault, 'Meetings/Transcripts')).length === 1, 'the fixed file imported', COLD_RUN_WAIT_MS);
  });

  it('over HTTP: a session title of 300 bytes makes a shortened meeting (201), an upload name past 255 bytes is a 400', async () => {
    const setup = await daemonSetup(file.server, IMPORT);
    await startDaemonProcess({ configPath: setup.configPath });
    const token = readFileSync(path.join(setup.vault, '.meeting-assistant', 'token'), 'utf8').trim();
    const auth = { authorization: `Bearer ${token}` };
    const session = await fetch(`http://127.0.0.1:${setup.port}/api/sessions`, { method: 'POST', headers: { ...auth, 'content-type': 'application/json' }, body: JSON.stringify({ title: 'Ä'.repeat(150) }) });
    expect(session.status).toBe(201);
    const [meeting] = readdirSync(path.join(setup.vault, 'Meetings')).filter((n) => n.endsWith('.md'));
    expect(Buffer.byteLength(meeting!)).toBeLessThanOrEqual(180);
    const upload = await fetch(`http://127.0.0.1:${setup.port}/api/import?name=${encodeURIComponent(`${'y'.repeat(300)}.srt`)}`, { method: 'POST', headers: auth, body: SRT });
    expect(upload.status).toBe(400);
    expect(await upload.text()).toMatch(/longer than a file name may be/);
  });
});

import { existsSync, readdirSync, readFileSync, renameSync, utimesSync } from 'node:fs';
import { request } from 'node:http';
import { connect } from 'node:net';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { beforeAll, describe, expect, it } from 'vitest';
import { COLD_RUN_WAIT_MS, startDaemonProcess, waitFor } from '../helpers/daemon-process.js';
import { csrfValue, sessionCookieName, sessionValue } from '../../src/daemon/http/page-routes.js';
import { daemonSetup, daemonTestFile, dataOf, editProperty, summarizingModel } from '../helpers/daemon-helpers.js';

/**
 * The inbox (docs/design.md §9) with the real daemon process, chokidar and the scripted
 * endpoint: files dropped into Meetings/Inbox become meetings with their summaries.
 *
 * Each test has a vault, a port and a daemon of its own and the one model every test may
 * meet (the summarizing one), so the tests run at once: most of a test's time is waiting
 * (a process's start, a settle period, a run's turns), which the others fill. Every daemon
 * is killed and every vault removed once the file is done. Sharing the machine with each
 * other, their waits are bounded as for a cold run's start (COLD_RUN_WAIT_MS).
 */

const file = daemonTestFile('all');
beforeAll(() => file.server.setFallback(summarizingModel()));
const STAND_IN = path.join(path.dirname(fileURLToPath(import.meta.url)), '..', 'fixtures', 'import', 'stand-in-transcriber.mjs');

const VTT =
  'WEBVTT\n\n1/0\n00:00:05.000 --> 00:00:09.000\n<v Alice Example>We ship the release on Friday.</v>\n\n' +
  '2/0\n00:00:10.000 --> 00:00:14.000\n<v Bob Builder>Then I tag it on Thursday.</v>\n';
const NAME = '2026-12-02 1000 Release review';
const IMPORT = { Import: { SettleSeconds: 0.3 } };

// The longest first (the uploads of 150 MB, the transcriber's two starts): a file runs five tests at once.
describe.concurrent('daemon process: POST /api/import', () => {
  it('201 with the meeting; 401 without the token; 400 with the reason; 413 beyond 100 MB, streamed', async () => {
    const s = await daemonSetup(file.server, IMPORT);
    const daemon = await startDaemonProcess({ configPath: s.configPath });
    const token = readToken(s.vault);

    const url = (q: string) => `http://127.0.0.1:${s.port}/api/import?${q}`;
    const auth = { authorization: `Bearer ${token}` };

    const created = await fetch(url(`name=${encodeURIComponent(`${NAME}.vtt`)}&projects=Alpha&title=${encodeURIComponent('Release, reviewed')}`), { method: 'POST', headers: auth, body: VTT });
    // What the daemon logged, should the answer not be the one expected (seen once as a 500).
    if (created.status !== 201) console.error(JSON.stringify(daemon.logs.filter((l) => l.msg === 'HTTP request failed')), await created.clone().text());
    expect(created.status).toBe(201);
    const body = (await created.json()) as { meeting: string; source: string };
    expect(body.meeting).toBe('Meetings/2026-12-02 1000 Release, reviewed.md');
    expect(body.source).toBe(`Meetings/Sources/${NAME}.vtt`);
    expect(dataOf(s, body.meeting)).toMatchObject({ title: 'Release, reviewed', projects: ['Alpha'] });
    await waitFor(() => dataOf(s, 'Meetings/Summaries/2026-12-02 1000 Release, reviewed.md')?.status === 'done', 'the summary', COLD_RUN_WAIT_MS);

    expect((await fetch(url('name=a.vtt'), { method: 'POST', body: VTT })).status).toBe(401);
    const noCue = await fetch(url('name=a.vtt'), { method: 'POST', headers: auth, body: 'WEBVTT\n' });
    expect(noCue.status).toBe(400);
    expect(((await noCue.json()) as { error: string }).error).toMatch(/holds no cue/);
    const badName = await fetch(url('name=../x.vtt'), { method: 'POST', headers: auth, body: VTT });
    expect(badName.status).toBe(400);
    expect((await fetch(url('name=a.exe'), { method: 'POST', headers: auth, body: 'x' })).status).toBe(400);

    // Streamed (chunked, no declared length) past the cap: the 413 still reaches the client
    // (it may meet a reset on writing the rest, which is not the answer).
    const chunk = Buffer.alloc(1024 * 1024, 'a');
    const tooBig = await new Promise<number | undefined>((resolve) => {
      const req = request(url('name=big.txt'), { method: 'POST', headers: auth }, (res) => {
        res.resume();
        resolve(res.statusCode);
      });
      req.on('error', () => undefined);
      let sent = 0;
      const pump = () => {
        while (sent < 150) {
          sent++;
          if (!req.write(chunk)) return void req.once('drain', pump);
        }
        req.end();
      };
      pump();
    });
    expect(tooBig).toBe(413);
    // A declared length over the cap is refused before any byte is read.
    const declared = await new Promise<number | undefined>((resolve, reject) => {
      const req = request(url('name=big.vtt'), { method: 'POST', headers: { ...auth, 'content-length': String(200 * 1024 * 1024) } }, (res) => {
        res.resume();
        resolve(res.statusCode);
      });
      req.on('error', reject);
      req.write('WEBVTT\n');
    });
    expect(declared).toBe(413);
    const uploads = path.join(s.vault, '.meeting-assistant/imports/uploads');
    await waitFor(() => !existsSync(uploads) || readdirSync(uploads).length === 0, 'no upload left behind');
    const health = await fetch(`http://127.0.0.1:${s.port}/healthz`);
    expect(await health.text()).toBe('ok');
  });
});

describe.concurrent('daemon process: POST /api/import past the limit, from a client that reads only once it has sent everything', () => {
  it('gets the 413: the rest of the body is read and dropped before the answer, so no reset overtakes it', async () => {
    const setup = await daemonSetup(file.server, IMPORT);
    const daemon = await startDaemonProcess({ configPath: setup.configPath });
    const token = readToken(setup.vault);
    // A raw HTTP/1.1 upload of 150 MB, chunked, whose socket reads nothing until the last byte
    // is written (curl behaves alike on a slow machine): answered at once, the daemon closed the
    // connection under it and the client met EPIPE or a reset instead of the answer.
    const socket = connect(setup.port, '127.0.0.1');
    socket.pause();
    let answer = '';
    const outcome = new Promise<string>((resolve) => {
      socket.on('data', (d: Buffer) => (answer += d.toString('latin1')));
      socket.on('error', (err: NodeJS.ErrnoException) => resolve(`error ${err.code}`));
      socket.on('end', () => resolve(answer));
    });
    await new Promise<void>((resolve) => socket.once('connect', () => resolve()));
    const closed = new Promise<void>((resolve) => socket.once('close', () => resolve()));
    const write = (data: string | Buffer) => (socket.write(data) ? Promise.resolve() : Promise.race([new Promise<void>((resolve) => socket.once('drain', () => resolve())), closed]));
    await write(`POST /api/import?name=big.txt HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer ${token}\r\nTransfer-Encoding: chunked\r\n\r\n`);
    const chunk = Buffer.alloc(1024 * 1024, 'a');
    let sent = 0;
    for (; sent < 150 && !socket.destroyed; sent++) await write(Buffer.concat([Buffer.from(`${chunk.length.toString(16)}\r\n`), chunk, Buffer.from('\r\n')]));
    if (!socket.destroyed) await write('0\r\n\r\n');
    expect(sent).toBe(150);
    socket.resume();
    const got = await outcome;
    expect(got.split('\r\n')[0]).toBe('HTTP/1.1 413 Payload Too Large');
    expect(got).toContain('the file is larger than 100 MB');
    const health = await fetch(`http://127.0.0.1:${setup.port}/healthz`);
    expect(await health.text()).toBe('ok');
    await daemon.stop();
  });
});

describe.concurrent('daemon process: the inbox', () => {
  it('a recording goes through the transcriber; without a command it waits with an error note saying how to set one', async () => {
    const s = await daemonSetup(file.server, IMPORT);
    s.write('Meetings/Inbox/2026-12-02 0900 Standup.m4a', 'the budget');
    const first = await startDaemonProcess({ configPath: s.configPath });
    const note = 'Meetings/Inbox/2026-12-02 0900 Standup.m4a (import failed).md';
    await waitFor(() => dataOf(s, note)?.status === 'failed', 'the error note', COLD_RUN_WAIT_MS);
    expect(s.read(note)).toMatch(/Import\.TranscribeCommand[\s\S]*whisper-cli[\s\S]*whisperx/);
    await first.stop();

    s.configure({ Import: { TranscribeCommand: [process.execPath, STAND_IN, 'ok', '{input}', '{output_base}'] } });
    await startDaemonProcess({ configPath: s.configPath });
    editProperty(s, note, 'retry', 'false', 'true');
    // Two processes start cold on the way (the transcriber, then the run process): each may wait
    // ~20 s on a cold disk (BENCHMARKS.md, "The suite on a cold disk"); 30 s was missed once.
    await waitFor(() => dataOf(s, 'Meetings/Summaries/2026-12-02 0900 Standup.md')?.status === 'done', 'the summary', COLD_RUN_WAIT_MS);
    expect(s.read('Meetings/Transcripts/2026-12-02 0900 Standup.md')).toContain('[00:00:00] I heard: the budget. From 2026-12-02 0900 Standup.m4a.');
    expect(s.read('Meetings/Sources/2026-12-02 0900 Standup.m4a')).toBe('the budget');
  });

  it('a dropped .vtt becomes a meeting and its summary; the original moves to Sources', async () => {
    const s = await daemonSetup(file.server, IMPORT);
    const daemon = await startDaemonProcess({ configPath: s.configPath });
    s.write(`Meetings/Inbox/Alpha/${NAME}.vtt`, VTT);
    await waitFor(() => dataOf(s, `Meetings/Summaries/${NAME}.md`)?.status === 'done', 'the summary', COLD_RUN_WAIT_MS);
    expect(dataOf(s, `Meetings/${NAME}.md`)).toMatchObject({
      title: 'Release review',
      attendees: ['Alice Example', 'Bob Builder'],
      projects: ['Alpha'],
      source: `[[Meetings/Sources/${NAME}.vtt]]`,
    });
    expect(s.read(`Meetings/Transcripts/${NAME}.md`)).toContain('[00:00:05] Alice Example: We ship the release on Friday.\n[00:00:10] Bob Builder: Then I tag it on Thursday.\n');
    expect(s.read(`Meetings/Sources/${NAME}.vtt`)).toBe(VTT);
    expect(existsSync(path.join(s.vault, `Meetings/Inbox/Alpha/${NAME}.vtt`))).toBe(false);
    // Said once the import's last step is done, which the summary's run need not wait for.
    await daemon.waitForLog((l) => l.msg === `imported Meetings/Inbox/Alpha/${NAME}.vtt: Meetings/${NAME}.md`, 10_000, 'the import line');
    const status = (await (await fetch(`http://127.0.0.1:${s.port}/api/status`, { headers: { authorization: `Bearer ${readToken(s.vault)}` } })).json()) as { imports: { state: string; meeting?: string }[] };
    expect(status.imports).toContainEqual(expect.objectContaining({ state: 'imported', meeting: `Meetings/${NAME}.md` }));
  });

  it('names sync tools and browsers write under are left alone until the file is renamed into place', async () => {
    const s = await daemonSetup(file.server, IMPORT);
    const daemon = await startDaemonProcess({ configPath: s.configPath });
    for (const partial of ['call.vtt.part', 'call.vtt.crdownload', '.syncthing.call.vtt.tmp', '~syncthing~call.vtt.tmp', 'call.sync-conflict-20261202-101010-ABC.vtt', '.hidden.vtt']) {
      s.write(`Meetings/Inbox/${partial}`, VTT);
    }
    renameSync(path.join(s.vault, 'Meetings/Inbox/call.vtt.part'), path.join(s.vault, 'Meetings/Inbox/call.vtt'));
    const meeting = await waitFor(() => readdirSync(path.join(s.vault, 'Meetings/Summaries')).find((n) => n.endsWith(' call.md')), 'the summary of call.vtt', COLD_RUN_WAIT_MS);
    await waitFor(() => dataOf(s, `Meetings/Summaries/${meeting}`)?.status === 'done', 'the summary done', COLD_RUN_WAIT_MS);
    const left = readdirSync(path.join(s.vault, 'Meetings/Inbox')).sort();
    expect(left).toEqual(['.hidden.vtt', '.syncthing.call.vtt.tmp', 'call.sync-conflict-20261202-101010-ABC.vtt', 'call.vtt.crdownload', '~syncthing~call.vtt.tmp']);
    // Said once the import's last step is done, which the summary's run need not wait for.
    await daemon.waitForLog((l) => l.msg?.startsWith('imported ') === true, 10_000, 'the import line');
    expect(daemon.logs.filter((l) => l.msg?.startsWith('imported '))).toHaveLength(1);
  });

  it('a bad file gets its error note; fixing it and ticking retry imports it; the note goes to .trash', async () => {
    const s = await daemonSetup(file.server, IMPORT);
    await startDaemonProcess({ configPath: s.configPath });
    s.write('Meetings/Inbox/broken.vtt', 'WEBVTT\n\nNOTE only a note\n');
    const note = 'Meetings/Inbox/broken.vtt (import failed).md';
    await waitFor(() => dataOf(s, note)?.status === 'failed', 'the error note', COLD_RUN_WAIT_MS);
    expect(dataOf(s, note)).toMatchObject({ retry: false, source: '[[Meetings/Inbox/broken.vtt]]' });
    expect(s.read(note)).toMatch(/holds no cue/);
    expect(s.read('Meetings/Inbox/broken.vtt')).toBe('WEBVTT\n\nNOTE only a note\n');

    s.write('Meetings/Inbox/broken.vtt', VTT);
    utimesSync(path.join(s.vault, note), new Date(), new Date(Date.now() + 60_000));
    editProperty(s, note, 'retry', 'false', 'true');
    await waitFor(() => !existsSync(path.join(s.vault, note)), 'the error note gone', COLD_RUN_WAIT_MS);
    expect(existsSync(path.join(s.vault, '.trash', note))).toBe(true);
    expect(s.read('Meetings/Sources/broken.vtt')).toBe(VTT);
  });

  it("the status page's Retry button runs the import again", async () => {
    const s = await daemonSetup(file.server, IMPORT);
    const daemon = await startDaemonProcess({ configPath: s.configPath });
    s.write('Meetings/Inbox/late.srt', 'garbage\n');
    const note = 'Meetings/Inbox/late.srt (import failed).md';
    await waitFor(() => dataOf(s, note)?.status === 'failed', 'the error note', COLD_RUN_WAIT_MS);
    const token = readToken(s.vault);
    const cookie = `${sessionCookieName(s.port)}=${sessionValue(token)}`;
    const page = await fetch(`http://127.0.0.1:${s.port}/status/live`, { headers: { cookie } });
    expect(await page.text()).toContain('name="file" value="Meetings/Inbox/late.srt (import failed).md"');
    const failures = () => daemon.logs.filter((l) => l.msg?.startsWith('import failed: Meetings/Inbox/late.srt')).length;
    expect(failures()).toBe(1);
    const pressed = await fetch(`http://127.0.0.1:${s.port}/imports/retry`, {
      method: 'POST',
      redirect: 'manual',
      headers: { cookie, 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({ file: note, csrf: csrfValue(token) }).toString(),
    });
    expect(pressed.status).toBe(303);
    await waitFor(() => failures() === 2, 'the import run again', COLD_RUN_WAIT_MS);
    const refused = await fetch(`http://127.0.0.1:${s.port}/imports/retry`, { method: 'POST', redirect: 'manual', headers: { cookie }, body: 'file=x' });
    expect(refused.status).toBe(403);
  });

  it('the same content again is kept beside the first in Sources, no second meeting', async () => {
    const s = await daemonSetup(file.server, IMPORT);
    const daemon = await startDaemonProcess({ configPath: s.configPath });
    s.write(`Meetings/Inbox/${NAME}.vtt`, VTT);
    await waitFor(() => dataOf(s, `Meetings/Summaries/${NAME}.md`)?.status === 'done', 'the summary', COLD_RUN_WAIT_MS);
    s.write('Meetings/Inbox/again.vtt', VTT);
    await waitFor(() => existsSync(path.join(s.vault, 'Meetings/Sources/again.vtt')), 'the duplicate kept', COLD_RUN_WAIT_MS);
    const d = daemon;
    await waitFor(() => d.logs.some((l) => l.msg?.includes(`was imported before as Meetings/${NAME}.md`)), 'the log naming the meeting');
    expect(readdirSync(path.join(s.vault, 'Meetings/Transcripts'))).toEqual([`${NAME}.md`]);
  });

  it('a file dropped while the daemon was down is imported at start', async () => {
    const s = await daemonSetup(file.server, IMPORT);
    s.write(`Meetings/Inbox/${NAME}.vtt`, VTT);
    await startDaemonProcess({ configPath: s.configPath });
    await waitFor(() => dataOf(s, `Meetings/Summaries/${NAME}.md`)?.status === 'done', 'the summary', COLD_RUN_WAIT_MS);
    // The original left the inbox for Folders.Sources, unchanged.
    expect(readdirSync(path.join(s.vault, 'Meetings/Inbox'))).not.toContain(`${NAME}.vtt`);
    expect(readdirSync(path.join(s.vault, 'Meetings/Sources'), { recursive: true }).map(String)).toContain(`${NAME}.vtt`);
  });

  it("a failing transcriber: the error note has the command's last stderr lines", async () => {
    const s = await daemonSetup(file.server, { Import: { SettleSeconds: 0.3, TranscribeCommand: [process.execPath, STAND_IN, 'fail', '{input}', '{output_base}'] } });
    await startDaemonProcess({ configPath: s.configPath });
    s.write('Meetings/Inbox/call.wav', 'noise');
    await waitFor(() => dataOf(s, 'Meetings/Inbox/call.wav (import failed).md')?.status === 'failed', 'the error note', COLD_RUN_WAIT_MS);
    const text = s.read('Meetings/Inbox/call.wav (import failed).md');
    expect(text).toMatch(/exit code 3/);
    expect(text).toMatch(/progress line 30\nerror: failed to read audio file\n/);
    expect(text).not.toMatch(/progress line 10\n/);
  });
});

function readToken(vault: string): string {
  return readFileSync(path.join(vault, '.meeting-assistant/token'), 'utf8').trim();
}

import { chmodSync, mkdirSync, readFileSync, realpathSync, writeFileSync } from 'node:fs';
import fsp from 'node:fs/promises';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import { describe, expect, it, onTestFinished } from 'vitest';
import { runCli } from '../helpers/daemon-process.js';
import { daemonSetup, daemonTestFile, meetingNote, transcriptNote } from '../helpers/daemon-helpers.js';
import { recordLocalDaemon } from '../helpers/local-daemon.js';
import type { Fs } from '../../src/vault/files/fs.js';

/**
 * Red team of issue #43 point 2 (docs/design.md §2 "Where a command finds its daemon"): the
 * address a command sends the token to may be held by another program. A daemon SIGKILLed (or
 * OOM-killed) leaves its record in the runtime folder; its pid is reused, and another local
 * user's program takes the freed port and answers `/healthz` with `ok`: the record then passes
 * for a live daemon. With no daemon at all, the configured port is anyone's. Before a command
 * sends the token it asks the daemon to prove it holds it (`GET /healthz?challenge=`, an HMAC
 * keyed with the token): a program that cannot gets no token, from `status`, `summarize`,
 * `import` nor `open`.
 */

const file = daemonTestFile();
const TOKEN = 'configured-secret-token-43';
const VTT = 'WEBVTT\n\n00:00:01.000 --> 00:00:04.000\n<v Alice>We ship on Friday.\n';

/** Another program on a loopback port: answers `/healthz` as a daemon does, `{}` elsewhere, and keeps what it is sent. */
async function impostor() {
  const seen: { method: string; url: string; authorization?: string }[] = [];
  const server = http.createServer((req, res) => {
    seen.push({ method: req.method ?? '', url: req.url ?? '', ...(req.headers.authorization !== undefined && { authorization: req.headers.authorization }) });
    req.resume();
    if ((req.url ?? '').startsWith('/healthz')) return void res.writeHead(200, { 'content-type': 'text/plain' }).end('ok');
    res.writeHead(req.method === 'POST' ? 202 : 200, { 'content-type': 'application/json' }).end('{}');
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  onTestFinished(() => {
    server.closeAllConnections();
    return new Promise<void>((resolve) => server.close(() => resolve()));
  });
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return { url, seen, tokens: () => seen.filter((s) => s.authorization?.includes(TOKEN) || s.url.includes(TOKEN)) };
}

/** A fake `xdg-open` first on PATH, which writes down the address it was asked to open. */
function fakeOpener(dir: string): { PATH: string; opened: () => string } {
  const bin = path.join(dir, 'bin');
  const log = path.join(dir, 'opened.txt');
  mkdirSync(bin, { recursive: true });
  writeFileSync(path.join(bin, 'xdg-open'), `#!/bin/sh\nprintf '%s\\n' "$1" >> '${log}'\n`);
  chmodSync(path.join(bin, 'xdg-open'), 0o755);
  return {
    PATH: `${bin}${path.delimiter}${process.env.PATH ?? ''}`,
    opened: () => {
      try {
        return readFileSync(log, 'utf8');
      } catch {
        return '';
      }
    },
  };
}

describe.skipIf(process.platform !== 'linux')('the token goes only to a daemon that proves it holds it (issue #43 point 2)', () => {
  it("a stale record whose port another program now holds gets no token from status, summarize, import or open", { timeout: 120_000 }, async () => {
    const fake = await impostor();
    const setup = await daemonSetup(file.server, { Http: { Token: TOKEN } });
    const opener = fakeOpener(setup.dir);
    const env = { XDG_RUNTIME_DIR: path.join(setup.dir, 'run'), PATH: opener.PATH };
    // What a daemon SIGKILLed leaves, its pid since reused (by this test's process: alive, and no command's own).
    await recordLocalDaemon(fsp as unknown as Fs, realpathSync(setup.vault), { pid: process.pid, startedAt: '2026-12-01T00:00:00.000Z', claim: 'killed', http: fake.url, role: 'active' }, env);
    const cli = (...args: string[]) => runCli([...args, '--config', setup.configPath], { env, timeoutMs: 60_000 });

    const status = await cli('status');
    expect(status.code, status.stderr).toBe(0);
    expect(status.stdout).toMatch(/not this vault's daemon/);

    const name = '2026-12-02 1000 Handed';
    setup.write(`Meetings/${name}.md`, meetingNote(name));
    setup.write(`Meetings/Transcripts/${name}.md`, transcriptNote(name, 'transcribing'));
    const summarize = await cli('summarize', `Meetings/${name}.md`);
    expect(summarize.code).not.toBe(0);
    expect(summarize.stderr).toMatch(/not this vault's daemon/);

    const vtt = path.join(setup.dir, '2026-12-03 0930 Imported.vtt');
    writeFileSync(vtt, VTT);
    const imported = await cli('import', vtt);
    expect(imported.code).not.toBe(0);
    expect(imported.stderr).toMatch(/not this vault's daemon/);

    const open = await cli('open');
    expect(open.code).not.toBe(0);
    expect(open.stderr).toMatch(/not this vault's daemon/);
    expect(opener.opened()).not.toContain(TOKEN);

    expect(fake.tokens()).toEqual([]);
  });

  it('with no daemon, open does not hand the token to a program on the configured port', { timeout: 60_000 }, async () => {
    const fake = await impostor();
    const port = Number(new URL(fake.url).port);
    const setup = await daemonSetup(file.server, { Http: { Token: TOKEN, Port: port } });
    const opener = fakeOpener(setup.dir);
    const env = { XDG_RUNTIME_DIR: path.join(setup.dir, 'run'), PATH: opener.PATH };
    const open = await runCli(['open', '--config', setup.configPath], { env, timeoutMs: 60_000 });
    expect(open.code).not.toBe(0);
    expect(open.stderr).toMatch(/not this vault's daemon/);
    expect(opener.opened()).not.toContain(TOKEN);
  });
});

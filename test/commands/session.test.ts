import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { describe, expect, it, onTestFinished } from 'vitest';
import { sessionStart, sessionState, sessionStop } from '../../src/commands/session.js';
import { status } from '../../src/commands/status.js';
import { CliError, EXIT_USAGE } from '../../src/commands/common.js';
import { localIsoTime } from '../../src/sessions/sessions.js';
import { parseNote } from '../../src/vault/format/frontmatter.js';
import { memoryFs } from '../helpers/memfs.js';
import { memoryIo } from '../helpers/memory-io.js';
import { standInDaemon } from '../helpers/stand-in-daemon.js';
import { answeredHealth, recordLocalDaemon } from '../helpers/local-daemon.js';

/**
 * `session start|state|stop` and `status` with every dependency passed in: the config and the
 * vault on memfs, the time from a fixed clock. The daemon's HTTP API is off, so nothing is asked.
 */

const START = new Date(2026, 10, 30, 9, 7, 30);
const STOP = new Date(2026, 10, 30, 9, 52, 0);

function setup() {
  const fs = memoryFs({ '/work/config.json': JSON.stringify({ MeetingAssistant: { VaultPath: '/vault', Http: { Enabled: false } } }) });
  let now = START;
  const io = memoryIo();
  const deps = { io, fs, env: {}, cwd: '/work', clock: () => now };
  return { fs, io, deps, setNow: (d: Date) => (now = d) };
}

const read = async (fs: ReturnType<typeof memoryFs>, file: string) => parseNote(Buffer.from(await fs.readFile(file)).toString('utf8')).data;

describe('session commands on passed-in deps', () => {
  it('start names the notes by the clock, state and stop write through deps.fs, status lists the meeting', async () => {
    const { fs, io, deps, setNow } = setup();
    expect(await sessionStart({ title: 'Weekly Sync' }, deps)).toBe(0);
    expect(io.outLines).toEqual([
      'meeting: Meetings/2026-11-30 0907 Weekly Sync.md',
      'transcript: Meetings/Transcripts/2026-11-30 0907 Weekly Sync.md',
      'context: Meetings/Context/2026-11-30 0907 Weekly Sync.md',
    ]);
    expect(await read(fs, '/vault/Meetings/2026-11-30 0907 Weekly Sync.md')).toMatchObject({ start_time: localIsoTime(START) });

    expect(await sessionState('Meetings/2026-11-30 0907 Weekly Sync.md', 'speaker recognition', {}, deps)).toBe(0);
    expect(await read(fs, '/vault/Meetings/Context/2026-11-30 0907 Weekly Sync.md')).toMatchObject({ state: 'speaker recognition' });

    setNow(STOP);
    expect(await sessionStop('Meetings/2026-11-30 0907 Weekly Sync.md', {}, deps)).toBe(0);
    expect(await read(fs, '/vault/Meetings/2026-11-30 0907 Weekly Sync.md')).toMatchObject({ end_time: localIsoTime(STOP) });
    expect(io.outLines.at(-1)).toBe(`Meetings/Context/2026-11-30 0907 Weekly Sync.md: end_time ${localIsoTime(STOP)}`);

    const shown = { ...deps, io: memoryIo() };
    expect(await status({}, shown)).toBe(0);
    expect(shown.io.outLines[0]).toBe('vault: /vault');
    expect(shown.io.text()).toMatch(/Meetings\/2026-11-30 0907 Weekly Sync\.md/);
    expect(shown.io.text()).toContain('daemon: not running (no daemon runs on this vault)');
  });

  it('state and stop leave a person\'s note named by `context` alone (a `meeting` link but no `state`)', async () => {
    const { fs, deps, setNow } = setup();
    const minutes = '---\nmeeting: "[[Meetings/Rec]]"\n---\nWhat Alice wrote.\n';
    await fs.mkdir('/vault/Meetings/Transcripts', { recursive: true });
    await fs.mkdir('/vault/Notes', { recursive: true });
    await fs.writeFile('/vault/Meetings/Rec.md', '---\ntitle: Rec\ntranscript: "[[Meetings/Transcripts/Rec]]"\ncontext: "[[Notes/Minutes]]"\n---\n');
    await fs.writeFile('/vault/Meetings/Transcripts/Rec.md', '---\nmeeting: "[[Meetings/Rec]]"\nstate: transcribing\n---\n');
    await fs.writeFile('/vault/Notes/Minutes.md', minutes);
    setNow(STOP);
    expect(await sessionStop('Meetings/Rec.md', {}, deps)).toBe(0);
    const err = await sessionState('Meetings/Rec.md', 'transcribing', {}, deps).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(CliError);
    expect((err as CliError).message).toMatch(/the context link points to Notes\/Minutes\.md/);
    expect(Buffer.from(await fs.readFile('/vault/Notes/Minutes.md')).toString('utf8')).toBe(minutes);
  });

  it('a usage mistake is exit 2 and writes nothing', async () => {
    const { fs, deps } = setup();
    const err = await sessionStart({ title: '  ' }, deps).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(CliError);
    expect((err as CliError).exitCode).toBe(EXIT_USAGE);
    await expect(fs.readdir('/vault', { withFileTypes: true })).resolves.toEqual([]);
  });
});

describe('status finds the daemon by its record on this machine, not by the configured port', () => {
  /** A stand-in for the daemon's API on loopback: /api/status with the bearer token. */
  async function fakeDaemonApi(token: string, pid: number) {
    const server = http.createServer((req, res) => {
      if (answeredHealth(req, res, token)) return;
      if (req.url !== '/api/status' || req.headers.authorization !== `Bearer ${token}`) return void res.writeHead(401).end();
      const queue = { running: [], pending: [], recent: [], concurrency: 2 };
      res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ pid, startedAt: 'then', http: 'here', queue }));
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const { port } = server.address() as AddressInfo;
    return { url: `http://127.0.0.1:${port}`, close: () => new Promise<void>((resolve) => server.close(() => resolve())) };
  }

  async function vaultWith(http: Record<string, unknown>, instance?: Record<string, unknown>) {
    const fs = memoryFs({ '/work/config.json': JSON.stringify({ MeetingAssistant: { VaultPath: '/vault', Http: http } }) });
    const env = { XDG_RUNTIME_DIR: '/run/user/test' };
    if (instance) await recordLocalDaemon(fs, '/vault', instance, env);
    const io = memoryIo();
    return { io, deps: { io, fs, env, cwd: '/work', clock: () => START } };
  }

  it('asks the address the live daemon recorded, although the configuration names another port now', async () => {
    const daemon = await standInDaemon();
    const api = await fakeDaemonApi('secret', daemon.pid);
    try {
      // A live process stands in for the daemon.
      const { io, deps } = await vaultWith({ Port: 1, Token: 'secret' }, { pid: daemon.pid, startedAt: 'then', http: api.url });
      expect(await status({}, deps)).toBe(0);
      expect(io.text()).toMatch(new RegExp(`daemon: running, pid ${daemon.pid}, since then`));
      expect(io.text()).toContain('queue: 0 running, 0 waiting (at most 2 at once)');
    } finally {
      daemon.stop();
      await api.close();
    }
  });

  it('a record whose process is gone is not running; a live daemon with HTTP off, or not answering, is named as running', async () => {
    const daemon = await standInDaemon();
    onTestFinished(daemon.stop);
    const gone = await vaultWith({ Port: 1, Token: 'secret' }, { pid: 2 ** 22 + 12_345, startedAt: 'then', http: 'http://127.0.0.1:1' });
    expect(await status({}, gone.deps)).toBe(0);
    expect(gone.io.text()).toContain('daemon: not running (no daemon runs on this vault)');

    const off = await vaultWith({ Enabled: false }, { pid: daemon.pid, startedAt: 'then' });
    expect(await status({}, off.deps)).toBe(0);
    expect(off.io.text()).toContain(`daemon: running, pid ${daemon.pid}, HTTP off, so its queue cannot be asked`);

    // Port 1 is never a daemon here: a live daemon that does not answer is still not called down.
    const silent = await vaultWith({ Port: 1, Token: 'secret' }, { pid: daemon.pid, startedAt: 'then', http: 'http://127.0.0.1:1' });
    expect(await status({}, silent.deps)).toBe(0);
    expect(silent.io.text()).toContain(`daemon: running, pid ${daemon.pid}, but http://127.0.0.1:1/api/status does not answer`);
  });

  it("an answer that is not a daemon's status ({}, a list, a queue without its lists) is a clear line, not a crash (issue #43 point 2)", async () => {
    const daemon = await standInDaemon();
    onTestFinished(daemon.stop);
    for (const answer of ['{}', '[]', JSON.stringify({ pid: 1, startedAt: 'then', queue: { running: 'x' } }), 'not json']) {
      const server = http.createServer((req, res) => {
        if (answeredHealth(req, res, 'secret')) return;
        res.writeHead(200, { 'content-type': 'application/json' }).end(answer);
      });
      await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
      const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
      try {
        const { io, deps } = await vaultWith({ Token: 'secret' }, { pid: daemon.pid, startedAt: 'then', http: url });
        expect(await status({}, deps), answer).toBe(0);
        expect(io.text(), answer).toContain(`daemon: ${url}/api/status answered something that is not a daemon's status (another program on that port?)`);
      } finally {
        server.closeAllConnections();
        await new Promise<void>((resolve) => server.close(() => resolve()));
      }
    }
  });
});

import { mkdirSync, readFileSync, truncateSync, writeFileSync } from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import { describe, it } from 'vitest';
import { runCli, waitFor } from '../helpers/daemon-process.js';
import { daemonSetup, daemonTestFile, dataOf, meetingNote, summarizingModel, testScope, transcriptNote } from '../helpers/daemon-helpers.js';

/**
 * Where a command finds this machine's daemon (docs/design.md §2; issue #43 point 2): never in
 * the vault's `.meeting-assistant/`, which a sync tool carries and anyone who can write the
 * vault writes. A record there naming this machine, with the address of a loopback server that
 * records what it is sent, gets no request, with the token or without: not from `status`,
 * `summarize`, `import` nor `open --print`, before the daemon runs or while it does; and the
 * daemon starts although the record names a live pid.
 *
 * The tests run at once, each with a vault, a scripted endpoint and a daemon of its own; the
 * commands that only read run at once too.
 */

// Each test ends its own daemon and server (testScope); the vaults go after the file.
daemonTestFile('all');
const MACHINE = 'here';
const TOKEN = 'configured-secret-token';
const VTT = 'WEBVTT\n\n00:00:01.000 --> 00:00:04.000\n<v Alice>We ship on Friday.\n';

/** A server that answers as a daemon would be expected to (`/healthz` ok, `{}` elsewhere) and keeps every request. */
async function recordingServer(onTestFinished: (fn: () => Promise<void>) => void) {
  const seen: { method: string; url: string; authorization?: string }[] = [];
  const server = http.createServer((req, res) => {
    seen.push({ method: req.method ?? '', url: req.url ?? '', ...(req.headers.authorization !== undefined && { authorization: req.headers.authorization }) });
    req.resume();
    if (req.url === '/healthz') return void res.writeHead(200, { 'content-type': 'text/plain' }).end('ok');
    res.writeHead(req.method === 'POST' ? 202 : 200, { 'content-type': 'application/json' }).end('{}');
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  onTestFinished(() => {
    server.closeAllConnections();
    return new Promise<void>((resolve) => server.close(() => resolve()));
  });
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, seen };
}

describe.concurrent('a forged machine record in the vault', () => {
  it('gets no request from any command, before or while the daemon runs; the daemon starts', { timeout: 180_000 }, async ({ expect, onTestFinished }) => {
    const file = await testScope(onTestFinished);
    file.server.setFallback(summarizingModel());
    const recorder = await recordingServer(onTestFinished);
    const setup = await daemonSetup(file.server, { Http: { Token: TOKEN }, Import: { SettleSeconds: 0.3 } });
    const env = { MeetingAssistant__Daemon__MachineName: MACHINE, XDG_RUNTIME_DIR: path.join(setup.dir, 'run') };
    const forge = () => {
      const forged = { machine: MACHINE, role: 'active', pid: 1, claim: 'forged', startedAt: '2026-12-01T00:00:00.000Z', http: recorder.url, beatAt: new Date().toISOString(), heartbeatMs: 30_000 };
      mkdirSync(path.join(setup.vault, '.meeting-assistant', 'machines'), { recursive: true });
      writeFileSync(path.join(setup.vault, '.meeting-assistant', 'machines', `${MACHINE}.json`), JSON.stringify(forged));
      writeFileSync(path.join(setup.vault, '.meeting-assistant', 'daemon.json'), JSON.stringify(forged));
    };
    const cli = (...args: string[]) => runCli([...args, '--config', setup.configPath], { env, timeoutMs: 60_000 });
    forge();

    // No daemon yet: status says so; open --print gives the configured address.
    const [before, printed] = await Promise.all([cli('status'), cli('open', '--print')]);
    expect(before.code, before.stderr).toBe(0);
    expect(before.stdout).toContain('daemon: not running');
    expect(printed.stdout.trim()).toBe(`http://127.0.0.1:${setup.port}/?token=${TOKEN}`);

    // The daemon starts: a record in the vault does not say that a daemon runs here.
    const daemon = await file.start({ configPath: setup.configPath, env });
    // A sync tool brings the forged record back over the daemon's own.
    forge();

    const [status, open] = await Promise.all([cli('status'), cli('open', '--print')]);
    expect(status.code, status.stderr).toBe(0);
    expect(status.stdout).toContain(`daemon: running, pid ${daemon.child.pid}`);
    expect(open.stdout.trim()).toBe(`http://127.0.0.1:${setup.port}/?token=${TOKEN}`);

    const name = '2026-12-02 1000 Handed';
    setup.write(`Meetings/${name}.md`, meetingNote(name));
    setup.write(`Meetings/Transcripts/${name}.md`, transcriptNote(name, 'transcribing'));
    const vtt = path.join(setup.dir, '2026-12-03 0930 Imported.vtt');
    writeFileSync(vtt, VTT);
    // Two meetings of their own: the commands run at once.
    const [summarize, imported] = await Promise.all([cli('summarize', `Meetings/${name}.md`), cli('import', vtt)]);
    expect(summarize.stderr).toMatch(new RegExp(`a daemon \\(pid ${daemon.child.pid}, http://127\\.0\\.0\\.1:${setup.port}\\) runs on this vault`));
    expect(summarize.code, summarize.stderr).toBe(0);
    expect(dataOf(setup, `Meetings/Summaries/${name}.md`)?.status).toBe('done');

    expect(imported.code, imported.stderr).toBe(0);
    expect(dataOf(setup, 'Meetings/Summaries/2026-12-03 0930 Imported.md')?.status).toBe('done');

    // Nothing reached the forged address: no token, no request at all.
    expect(recorder.seen).toEqual([]);
    expect((await daemon.stop('SIGTERM', 15_000)).code).toBe(0);
  });
});

/** The daemon process's peak resident memory (Linux), in MB. */
function peakMb(pid: number): number {
  const line = /^VmHWM:\s+(\d+) kB$/m.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
  return Number(line?.[1] ?? 0) / 1024;
}

describe.concurrent('machine records out of bounds (issue #43 points 3 and 4)', () => {
  it.skipIf(process.platform !== 'linux')('a 700 MB record, a heartbeat of 1e308 ms and a beat a day ahead keep no daemon standby, and are never read whole', { timeout: 120_000 }, async ({ expect, onTestFinished }) => {
    const file = await testScope(onTestFinished);
    const setup = await daemonSetup(file.server, { Daemon: { HeartbeatSeconds: 0.2 } });
    const env = { MeetingAssistant__Daemon__MachineName: 'zed', XDG_RUNTIME_DIR: path.join(setup.dir, 'run') };
    const folder = path.join(setup.vault, '.meeting-assistant', 'machines');
    mkdirSync(folder, { recursive: true });
    const record = (machine: string, more: Record<string, unknown>) =>
      JSON.stringify({ machine, role: 'active', beatAt: new Date().toISOString(), heartbeatMs: 30_000, pid: 4242, startedAt: 'then', ...more });
    // Machines whose names sort before this one's: sane records would make it their standby.
    writeFileSync(path.join(folder, 'alpha.json'), record('alpha', { heartbeatMs: 1e308 }));
    writeFileSync(path.join(folder, 'beta.json'), record('beta', { beatAt: new Date(Date.now() + 24 * 3600_000).toISOString() }));
    const big = path.join(folder, 'gamma.json');
    writeFileSync(big, record('gamma', {}));
    truncateSync(big, 700 * 1024 * 1024);

    const daemon = await file.start({ configPath: setup.configPath, env });
    // Twenty heartbeats: each one reads the folder.
    const own = path.join(folder, 'zed.json');
    const beats = new Set<string>();
    await waitFor(() => {
      beats.add(readFileSync(own, 'utf8'));
      return beats.size >= 20;
    }, 'twenty heartbeats of the daemon');
    expect(daemon.logs.some((l) => String(l.msg).startsWith('standby:'))).toBe(false);
    const ignored = daemon.logs.filter((l) => String(l.msg).includes(' is ignored: ')).map((l) => String(l.msg));
    expect(ignored.map((m) => path.basename(m.split(' is ignored: ')[0]!)).sort()).toEqual(['alpha.json', 'beta.json', 'gamma.json']);
    // Far below the 700 MB a whole read would take (the daemon measured 70 MB at its peak).
    expect(peakMb(daemon.child.pid!)).toBeLessThan(400);
    expect((await daemon.stop('SIGTERM', 15_000)).code).toBe(0);
  });
});

import { spawn, spawnSync } from 'node:child_process';
import { afterEach, describe, expect, it } from 'vitest';
import { BIN, type DaemonProcess, freePort, killAll, makeTempSetup, startDaemonProcess, type TempSetup, waitFor } from '../helpers/daemon-process.js';

/**
 * What a person sees on `npm start` with no model server running: readable lines at a
 * terminal, JSON lines when piped (journald, launchd, files), and one line at start saying
 * the endpoint is not there and what to do, right after "ready".
 */

const HAS_SCRIPT = process.platform === 'linux' && spawnSync('script', ['--version'], { stdio: 'ignore' }).status === 0;

let setup: TempSetup | undefined;
let daemon: DaemonProcess | undefined;
afterEach(async () => {
  await daemon?.kill();
  await killAll();
  daemon = undefined;
  setup?.cleanup();
  setup = undefined;
});

/** A vault whose endpoint is a port nothing listens on, as on a machine without Ollama. */
async function noEndpointSetup(): Promise<TempSetup> {
  return makeTempSetup({
    Endpoint: { BaseUrl: `http://127.0.0.1:${await freePort()}/v1`, Model: 'qwen3:8b' },
    Daemon: { ReconcileSchedule: '0 0 1 1 *' },
    Http: { Port: await freePort() },
  });
}

/** The text without its colours. */
const plain = (text: string) => text.replace(new RegExp(String.raw`\u001b\[[0-9;]*m`, 'g'), '');

const NOT_READY = /the model endpoint is not ready, meetings will fail until it is: GET http:\/\/127\.0\.0\.1:\d+\/v1\/models failed/;

describe('the daemon without an endpoint', () => {
  it('piped: JSON lines; one warning right after "ready" naming the fix', async () => {
    setup = await noEndpointSetup();
    daemon = await startDaemonProcess({ configPath: setup.configPath });
    const warning = await daemon.waitForLog((l) => NOT_READY.test(String(l.msg)), 15_000, 'the endpoint warning');
    expect(warning.level).toBe('warn');
    expect(String(warning.msg)).toContain('MeetingAssistant.Endpoint.BaseUrl');
    expect(daemon.logs.filter((l) => l.raw)).toEqual([]);
    const ready = daemon.logs.findIndex((l) => String(l.msg).startsWith('ready'));
    expect(ready).toBeGreaterThanOrEqual(0);
    expect(daemon.logs.indexOf(warning)).toBeGreaterThan(ready);
    expect(daemon.logs.filter((l) => NOT_READY.test(String(l.msg)))).toHaveLength(1);
  });

  it.skipIf(!HAS_SCRIPT)('at a terminal (a pty from `script`, needs script): readable lines, and Ctrl-C exits 0 at once', async () => {
    setup = await noEndpointSetup();
    const command = [process.execPath, BIN, 'run', '--config', setup.configPath].map((a) => `'${a}'`).join(' ');
    const child = spawn('script', ['-qfec', command, '/dev/null'], { stdio: ['pipe', 'pipe', 'pipe'], env: { ...process.env, TERM: 'xterm' } });
    let out = '';
    child.stdout.on('data', (d: Buffer) => (out += d.toString()));
    const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
    try {
      await waitFor(() => NOT_READY.test(out), 'the endpoint warning on the terminal', 15_000);
      const lines = plain(out).split(/\r?\n/).filter((l) => l.trim() !== '');
      expect(lines.every((l) => /^\[\d\d:\d\d:\d\d\] (INFO|WARN): /.test(l)), out).toBe(true);
      expect(lines[0]).toMatch(/INFO: ready: vault /);
      expect(lines.find((l) => NOT_READY.test(l))).toMatch(/^\[\d\d:\d\d:\d\d\] WARN: /);

      const begun = Date.now();
      child.stdin.write('\u0003');
      const code = await Promise.race([exited, new Promise<'timeout'>((r) => setTimeout(() => r('timeout'), 10_000))]);
      console.log(`Ctrl-C at a terminal: exit ${code} after ${Date.now() - begun} ms`);
      expect(code).toBe(0);
      expect(plain(out)).toMatch(/INFO: stopping \(SIGINT\)\r?\n.*INFO: stopped/);
    } finally {
      child.kill('SIGKILL');
    }
  });
});

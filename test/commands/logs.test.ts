import { appendFile, mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { logs } from '../../src/commands/logs.js';
import { createLoggerFromConfig } from '../../src/log.js';
import { currentLogFile } from '../../src/service/log-files.js';
import { endLogger } from '../helpers/end-logger.js';
import { memoryIo } from '../helpers/memory-io.js';

describe('meeting-assistant logs', () => {
  let dir: string;
  afterEach(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  async function configWith(logging: Record<string, unknown>): Promise<string> {
    dir = await mkdtemp(path.join(os.tmpdir(), 'ma-logs-'));
    const file = path.join(dir, 'config.json');
    await writeFile(file, JSON.stringify({ MeetingAssistant: { VaultPath: './vault', Logging: logging } }));
    return file;
  }

  const line = (msg: string, extra: Record<string, unknown> = {}) =>
    JSON.stringify({ level: 'info', time: '2026-11-30T09:00:00.000Z', pid: 7, msg, ...extra }) + '\n';

  /** Resolves once `lines` holds a line matching, or fails after a deadline. */
  async function waitForLine(lines: string[], pattern: RegExp): Promise<void> {
    const deadline = Date.now() + 10_000;
    while (!lines.some((l) => pattern.test(l))) {
      if (Date.now() > deadline) throw new Error(`no line matching ${pattern} in:\n${lines.join('\n')}`);
      await new Promise((r) => setTimeout(r, 20));
    }
  }

  it('without Logging.File says how to read the journal (Linux) or the launchd log (macOS)', async () => {
    const config = await configWith({});
    const linux = memoryIo();
    expect(await logs({ config }, { io: linux, platform: 'linux', env: { HOME: dir } })).toBe(0);
    expect(linux.outLines).toContain('  journalctl --user -u meeting-assistant -f -o cat | npx pino-pretty');
    const mac = memoryIo();
    await logs({ config }, { io: mac, platform: 'darwin', env: { HOME: dir } });
    expect(mac.outLines).toContain(`  tail -f ${path.join(dir, 'Library/Logs/meeting-assistant/meeting-assistant.log')} | npx pino-pretty`);
  });

  it('on macOS pretty-prints the launchd log file when there is one', async () => {
    const config = await configWith({});
    const logDir = path.join(dir, 'Library/Logs/meeting-assistant');
    await mkdir(logDir, { recursive: true });
    await writeFile(path.join(logDir, 'meeting-assistant.log'), line('daemon started') + 'TypeError: a crash on stderr\n');
    const io = memoryIo();
    await logs({ config }, { io, platform: 'darwin', env: { HOME: dir }, isTTY: false });
    expect(io.outLines[0]).toMatch(/^\[.+\] INFO: daemon started$/);
    expect(io.outLines[1]).toBe('TypeError: a crash on stderr');
  });

  it('pretty-prints what the logger wrote to the rotated file, without colours when not a terminal', async () => {
    const config = await configWith({ File: 'logs/meeting-assistant.log' });
    const { loadConfig } = await import('../../src/config.js');
    const { nodeFs } = await import('../../src/vault/files/fs.js');
    const app = await loadConfig({ configPath: config, fs: nodeFs, env: {} });
    const log = createLoggerFromConfig(app);
    log.child({ runId: 'run-42', meeting: 'Meetings/Sync.md' }).info({ attempt: 1, status: 200, latencyMs: 12 }, 'model request');
    log.error({ err: new Error('boom') }, 'run failed');
    await endLogger(log);
    expect(await currentLogFile(path.join(dir, 'logs/meeting-assistant.log'))).toBe(path.join(dir, 'logs/meeting-assistant.1.log'));

    const io = memoryIo();
    expect(await logs({ config }, { io, isTTY: false, env: {} })).toBe(0);
    const text = io.outLines.join('\n');
    expect(text).toMatch(/INFO: model request/);
    expect(text).toContain('runId: "run-42"');
    expect(text).toMatch(/ERROR: run failed/);
    expect(text).not.toContain('\u001b[');
  });

  it('-f follows new lines and the next rotated file until stopped', async () => {
    const config = await configWith({ File: 'logs/ma.log' });
    const logDir = path.join(dir, 'logs');
    await mkdir(logDir);
    await writeFile(path.join(logDir, 'ma.1.log'), line('old file'));
    await writeFile(path.join(logDir, 'ma.2.log'), line('before follow'));
    const io = memoryIo();
    const controller = new AbortController();
    const following = logs({ config, follow: true }, { io, isTTY: false, env: {}, signal: controller.signal });
    await waitForLine(io.outLines, /before follow/);
    expect(io.outLines.some((l) => l.includes('old file'))).toBe(false);

    await appendFile(path.join(logDir, 'ma.2.log'), line('appended'));
    await waitForLine(io.outLines, /INFO: appended/);
    // pino-roll moved on to the next number.
    await writeFile(path.join(logDir, 'ma.3.log'), line('after rotation'));
    await waitForLine(io.outLines, /INFO: after rotation/);

    controller.abort();
    expect(await following).toBe(0);
    const order = ['before follow', 'appended', 'after rotation'].map((m) => io.outLines.findIndex((l) => l.includes(m)));
    expect(order).toEqual([...order].sort((a, b) => a - b));
  });
});

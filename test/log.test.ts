import { mkdtemp, readdir, readFile, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import type { DestinationStream } from 'pino';
import { afterEach, describe, expect, it } from 'vitest';
import {
  addLogSecret,
  causeChain,
  createLogger,
  createLoggerFromConfig,
  flushLogger,
  maskLine,
} from '../src/log.js';
import { prettyFormatter, wantsPrettyLogs } from '../src/log-pretty.js';
import { createRuntime } from '../src/runtime.js';
import { summarizeMeeting } from '../src/meeting/pipeline.js';
import { rolledFiles } from '../src/service/log-files.js';
import { endLogger } from './helpers/end-logger.js';
import { memoryFs, testConfig } from './helpers/memfs.js';
import { type ScriptedServer, startScriptedServer } from './helpers/scripted-server.js';

const FAKE_KEY = 'sk-test-SECRET-1234';

/** A destination that keeps every line in memory. */
function memoryDestination(): DestinationStream & { lines: string[]; text(): string } {
  const lines: string[] = [];
  return {
    lines,
    write(chunk: string) {
      lines.push(chunk);
    },
    text() {
      return lines.join('');
    },
  };
}

function parsed(dest: { lines: string[] }): Record<string, unknown>[] {
  return dest.lines.map((l) => JSON.parse(l) as Record<string, unknown>);
}

describe('createLoggerFromConfig: secrets never reach the output', () => {
  it('masks the API key as a field, in a message, in an error and its cause, under headers and in child bindings', () => {
    const dest = memoryDestination();
    const config = testConfig({ Endpoint: { ApiKey: FAKE_KEY } });
    const log = createLoggerFromConfig(config, { destination: dest });

    log.info({ key: FAKE_KEY, nested: { deeper: { value: `x-${FAKE_KEY}-y` } } }, 'as a field');
    log.info(`calling the endpoint with ${FAKE_KEY} inside the message`);
    log.info('format argument %s', FAKE_KEY);
    const cause = new Error(`socket said ${FAKE_KEY}`);
    log.error({ err: new Error(`request failed for key ${FAKE_KEY}`, { cause }) }, 'model request failed');
    log.error(new Error(`bare error with ${FAKE_KEY}`));
    log.info({ headers: { Authorization: `Bearer ${FAKE_KEY}`, 'x-api-key': FAKE_KEY } }, 'request headers');
    log.info({ request: { options: { headers: { authorization: `Bearer ${FAKE_KEY}` } } } }, 'deep headers');
    log.child({ apiKeyCopy: FAKE_KEY }).info('child with the key bound');
    log.info({ ApiKey: FAKE_KEY, apiKey: FAKE_KEY, Endpoint: { ApiKey: FAKE_KEY } }, 'config keys');

    const text = dest.text();
    expect(dest.lines).toHaveLength(9);
    expect(text).not.toContain(FAKE_KEY);
    expect(text).not.toContain('SECRET-1234');
    expect(text).toContain('[redacted]');
    // The rest of each message survives.
    const lines = parsed(dest);
    expect(lines[1]!.msg).toBe('calling the endpoint with [redacted] inside the message');
    expect(lines[3]!.msg).toBe('model request failed');
    expect(JSON.stringify(lines[3]!.err)).toContain('request failed for key [redacted]');
  });

  it('masks the configured HTTP token and a token added later, also in children created before', () => {
    const dest = memoryDestination();
    const config = testConfig({ Http: { Token: 'configured-http-token' } });
    const log = createLoggerFromConfig(config, { destination: dest });
    const child = log.child({ runId: 'r1' });
    log.info('token configured-http-token in text');
    addLogSecret(log, 'generated-token-abcdef');
    child.info({ link: 'http://127.0.0.1:4777/retry?note=x&token=generated-token-abcdef' }, 'retry link');

    const text = dest.text();
    expect(dest.lines).toHaveLength(2);
    expect(text).not.toContain('configured-http-token');
    expect(text).not.toContain('generated-token-abcdef');
    expect(parsed(dest)[1]!.runId).toBe('r1');
  });

  it('redacts bearer values and credential headers at any depth even without a known secret', () => {
    const dest = memoryDestination();
    const log = createLogger({ destination: dest });
    log.info({ a: { b: { c: { headers: { authorization: 'Bearer unknown-token-xyz' } } } } }, 'deep');
    log.info('sent Authorization: Bearer another-token-123');
    expect(dest.text()).not.toContain('unknown-token-xyz');
    expect(dest.text()).not.toContain('another-token-123');
    expect(maskLine('{"Authorization":"Basic dXNlcjpwYXNz"}', [])).toBe('{"Authorization":"[redacted]"}');
  });

  it('keeps createLogger secrets option and level working', () => {
    const dest = memoryDestination();
    const log = createLogger({ destination: dest, level: 'warn', secrets: [FAKE_KEY, 'ab'] });
    log.info(`hidden ${FAKE_KEY}`);
    log.warn(`shown ${FAKE_KEY} ab`);
    expect(dest.lines).toHaveLength(1);
    // Secrets shorter than four characters are not masked: they would wreck every line.
    expect(parsed(dest)[0]!.msg).toBe('shown [redacted] ab');
  });
});

describe('one pid per JSON line', () => {
  it("a line about another process (the run process) carries this process's pid once and that one as childPid", () => {
    const dest = memoryDestination();
    const log = createLogger({ destination: dest, secrets: [FAKE_KEY] });
    log.info({ pid: 1073 }, 'run process started (pid 1073)');
    log.child({ runId: 'r1' }).warn({ pid: 1074, code: 1 }, 'the run process exited between runs');
    log.info({ other: 'field' }, 'no pid of its own');
    expect(dest.lines).toHaveLength(3);
    for (const line of dest.lines) expect(line.match(/"pid":/g)).toHaveLength(1);
    expect(parsed(dest)).toMatchObject([
      { pid: process.pid, childPid: 1073, msg: 'run process started (pid 1073)' },
      { pid: process.pid, childPid: 1074, runId: 'r1', code: 1 },
      { pid: process.pid, other: 'field' },
    ]);
    expect(parsed(dest)[2]).not.toHaveProperty('childPid');
  });
});

describe('a log line never throws (issue #24: a run died in the logger on an abort DOMException)', () => {
  const abortReason = () => {
    const controller = new AbortController();
    controller.abort();
    return controller.signal.reason as unknown;
  };

  it('logs an abort DOMException, as the error and as a cause, with secrets to mask', () => {
    const dest = memoryDestination();
    const log = createLogger({ destination: dest, secrets: ['http-token-secret'] });
    const timeout = new Error('did not answer within 3 s (http-token-secret)', { cause: abortReason() });
    expect(() => log.error({ err: abortReason() }, 'aborted')).not.toThrow();
    expect(() => log.child({ runId: 'r1' }).error({ err: timeout }, 'run failed')).not.toThrow();
    const [first, second] = parsed(dest);
    expect(first!.err).toMatchObject({ type: 'DOMException', name: 'AbortError', message: 'This operation was aborted' });
    expect(second!.err).toMatchObject({ message: expect.stringContaining('[redacted]') });
    expect(JSON.stringify(second!.err)).toContain('This operation was aborted');
    expect(dest.text()).not.toContain('http-token-secret');
  });

  it('an error whose fields throw, a proxy that throws and a circular cause still give a line each', () => {
    const dest = memoryDestination();
    const log = createLogger({ destination: dest, secrets: ['some-secret'] });
    const hostile = new Error('hostile');
    Object.defineProperty(hostile, 'code', { enumerable: true, get: () => { throw new Error('no code for you'); } });
    const proxy = new Proxy({}, { ownKeys: () => { throw new Error('no keys'); } });
    const circular = new Error('circular');
    (circular as { cause?: unknown }).cause = circular;
    for (const [err, msg] of [[hostile, 'hostile'], [proxy, 'proxy'], [circular, 'circular']] as const) {
      expect(() => log.error({ err, ...(msg === 'proxy' && { field: proxy }) }, msg)).not.toThrow();
    }
    expect(parsed(dest).map((l) => l.msg)).toEqual(['hostile', 'proxy', 'circular']);
  });
});

describe('diagnosis helpers', () => {
  it('logs the cause chain of a failure', () => {
    const dest = memoryDestination();
    const log = createLogger({ destination: dest });
    const root = Object.assign(new Error('connect ECONNREFUSED 127.0.0.1:11434'), { code: 'ECONNREFUSED' });
    const err = new Error('model request failed after 3 attempts', { cause: new TypeError('fetch failed', { cause: root }) });
    log.error({ err }, 'run failed');
    const line = parsed(dest)[0]!;
    const logged = line.err as { causes: string[]; message: string; type: string };
    expect(logged.type).toBe('Error');
    expect(logged.causes).toEqual(['TypeError: fetch failed', 'Error: connect ECONNREFUSED 127.0.0.1:11434 (ECONNREFUSED)']);
    expect(causeChain(err)).toHaveLength(3);
  });
});

describe('Logging.File: rotated files through pino-roll', () => {
  let dir: string | undefined;
  let opened: ReturnType<typeof createLoggerFromConfig> | undefined;
  afterEach(async () => {
    if (opened) await endLogger(opened);
    opened = undefined;
    if (dir) await rm(dir, { recursive: true, force: true });
    dir = undefined;
  });

  it('creates the folder, rotates by RotateSize and keeps RotateFiles old files', async () => {
    dir = await mkdtemp(path.join(os.tmpdir(), 'ma-log-'));
    const file = path.join(dir, 'logs', 'nested', 'meeting-assistant.log');
    const config = testConfig({
      Endpoint: { ApiKey: FAKE_KEY },
      Logging: { File: file, RotateSize: '1k', RotateFiles: 2 },
    });
    const log = (opened = createLoggerFromConfig(config));
    const folder = path.dirname(file);
    const highestNumber = async () =>
      Math.max(0, ...(await rolledFiles(file)).map((f) => Number(path.basename(f).split('.')[1])));
    // Each batch is more than RotateSize; the worker rolls once the batch is on disk, so wait
    // for the next number to appear before writing the next batch.
    let highest = 0;
    let i = 0;
    for (let batch = 0; batch < 5; batch++) {
      for (let j = 0; j < 8; j++, i++) log.info({ i, filler: 'x'.repeat(80) }, `line ${i} key ${FAKE_KEY}`);
      await flushLogger(log);
      const deadline = Date.now() + 10_000;
      let now = await highestNumber();
      while (now <= highest && Date.now() < deadline) {
        await new Promise((r) => setTimeout(r, 20));
        now = await highestNumber();
      }
      expect(now, `batch ${batch} did not roll`).toBeGreaterThan(highest);
      highest = now;
    }
    await endLogger(log);
    opened = undefined;
    const deadline = Date.now() + 10_000;
    let files: string[] = [];
    // pino-roll removes old files asynchronously after a roll: wait for it to settle. Under
    // load a roll can still begin as the logger closes (its cleanup runs, the new file may not
    // come), so the current file and one or two old ones: never more than RotateFiles old ones.
    const numberOf = (f: string) => Number(f.split('.')[1]);
    while (Date.now() < deadline) {
      files = (await readdir(folder)).filter((f) => /^meeting-assistant\.\d+\.log$/.test(f));
      if (files.length <= 3) break;
      await new Promise((r) => setTimeout(r, 50));
    }
    files.sort((a, b) => numberOf(a) - numberOf(b));
    expect(files.length, files.join(', ')).toBeGreaterThanOrEqual(2);
    expect(files.length, files.join(', ')).toBeLessThanOrEqual(3);
    // The newest numbers, none missing between them: the oldest were the ones removed.
    expect(files.map(numberOf)).toEqual(files.map((_, k) => numberOf(files[0]!) + k));
    expect(numberOf(files.at(-1)!)).toBeGreaterThanOrEqual(highest);
    const texts = await Promise.all(files.map((f) => readFile(path.join(folder, f), 'utf8')));
    const lines = texts
      .join('')
      .split('\n')
      .filter((l) => l.trim() !== '')
      .map((l) => JSON.parse(l) as { msg: string; level: string });
    // The oldest files were removed: the newest lines remain, in order, up to the last one.
    expect(lines.length).toBeGreaterThan(5);
    expect(lines.length).toBeLessThan(i);
    expect(lines.at(-1)!.msg).toBe(`line ${i - 1} key [redacted]`);
    expect(lines.at(-1)!.level).toBe('info');
    for (const f of files) expect(await readFile(path.join(folder, f), 'utf8')).not.toContain(FAKE_KEY);
  });
});

describe('logging in an integration run (pipeline, real model client, scripted endpoint)', () => {
  let server: ScriptedServer;
  afterEach(async () => {
    await server.close();
  });

  const MEETING = 'Meetings/2026-11-30 Weekly Sync.md';
  const files = {
    [MEETING]:
      '---\ntitle: Weekly Sync\nstart_time: 2026-11-30T09:00:00+01:00\nattendees: [Alice, Bob]\nprojects: [Alpha]\n' +
      'transcript: "[[Meetings/Transcripts/2026-11-30 Weekly Sync]]"\n---\nNotes.\n',
    'Meetings/Transcripts/2026-11-30 Weekly Sync.md':
      '---\nstate: finished\n---\n[00:00:05] Alice: We ship on Friday.\n',
    'Projects/Alpha/Overview.md': '# Alpha\n',
  };

  async function runOnce(script: (s: ScriptedServer) => void, raw: Record<string, unknown> = {}) {
    server = await startScriptedServer({ requireKey: FAKE_KEY });
    script(server);
    const config = testConfig({
      Endpoint: { BaseUrl: server.baseUrl, Model: 'test-model', ApiKey: FAKE_KEY, TimeoutSeconds: 5 },
      Reconnect: { Attempts: 1, DelaySeconds: 0 },
      Logging: { Level: 'debug' },
      ...raw,
    });
    const dest = memoryDestination();
    const log = createLoggerFromConfig(config, { destination: dest });
    const runtime = await createRuntime(config, { fs: memoryFs(files), log });
    const outcome = await summarizeMeeting(runtime.pipeline, runtime.vault.abs(MEETING), { trigger: 'test' });
    return { outcome, dest, lines: parsed(dest), token: runtime.token };
  }

  it('logs every model request and tool call with the runId and meeting, and never the key or token', async () => {
    const { outcome, dest, lines, token } = await runOnce((s) =>
      s.script(
        { reply: { toolCalls: [{ name: 'read_transcript', arguments: {} }, { name: 'read_glossary', arguments: {} }] } },
        { reply: { toolCalls: [{ name: 'write_summary', arguments: { content: '## Summary\nShip Friday.\n## Decisions\n- Ship.\n## Next steps\n- Tag.\n' } }] } },
        // The project phase (issue 21).
        { reply: { toolCalls: [{ name: 'list_projects', arguments: {} }] } },
        { reply: { content: 'Done.' } },
      ),
    );
    expect(outcome.status).toBe('done');
    const modelRequests = server.modelRequests().length;
    expect(modelRequests).toBe(4);

    const runLines = lines.filter((l) => l.runId === outcome.runId);
    const responses = runLines.filter((l) => l.msg === 'model response');
    expect(responses).toHaveLength(modelRequests);
    for (const r of responses) {
      expect(r.meeting).toBe(MEETING);
      expect(typeof r.ms).toBe('number');
      expect(r.usage).toEqual({ inputTokens: 10, outputTokens: 5 });
    }
    const toolLines = runLines.filter((l) => l.msg === 'tool call');
    expect(toolLines.map((l) => l.tool)).toEqual(['read_transcript', 'read_glossary', 'write_summary', 'list_projects']);
    for (const t of toolLines) {
      expect(t.meeting).toBe(MEETING);
      expect(t.ok).toBe(true);
      expect(t.args).toBeDefined();
    }
    // From the run's first line to its last, every line names the run.
    const first = lines.findIndex((l) => l.runId === outcome.runId);
    const last = lines.map((l) => l.runId).lastIndexOf(outcome.runId);
    expect(lines.slice(first, last + 1).every((l) => l.runId === outcome.runId)).toBe(true);

    expect(dest.text()).not.toContain(FAKE_KEY);
    expect(dest.text()).not.toContain(token);
    // The key did go over the wire: the endpoint demanded it.
    expect(server.requests[0]!.headers.authorization).toBe(`Bearer ${FAKE_KEY}`);
  });

  it('logs a failed run with its cause and attempts, still without the key', async () => {
    const { outcome, dest, lines } = await runOnce((s) =>
      s.setFallback({ status: 503, body: { error: { message: `overloaded (key ${FAKE_KEY})`, type: 'server_error' } } }),
    );
    expect(outcome.status).toBe('failed');
    const runLines = lines.filter((l) => l.runId === outcome.runId);
    const failed = runLines.find((l) => l.msg === 'run failed');
    expect(failed, dest.text()).toBeDefined();
    expect(JSON.stringify(failed!.err)).toContain('503');
    // One try plus Reconnect.Attempts (1) more, each visible in the log.
    expect(server.modelRequests()).toHaveLength(2);
    expect(runLines.filter((l) => /attempt/i.test(String(l.msg))).length).toBeGreaterThanOrEqual(2);
    expect(dest.text()).not.toContain(FAKE_KEY);
  });
});

describe('Logging.File with a person at a terminal', () => {
  let dir: string | undefined;
  afterEach(async () => {
    if (dir) await rm(dir, { recursive: true, force: true });
    dir = undefined;
  });

  it.each([
    [true, 'the file and readable lines on the terminal'],
    [false, 'the file only (a service: journald would get every line twice)'],
  ] as const)('a terminal %s: %s', async (isTTY, _what) => {
    dir = await mkdtemp(path.join(os.tmpdir(), 'ma-log-tty-'));
    const file = path.join(dir, 'meeting-assistant.log');
    const terminal = memoryDestination();
    const log = createLoggerFromConfig(testConfig({ Logging: { File: file } }), { isTTY, terminal });
    log.info({ meeting: 'Meetings/A.md' }, 'run started');
    await flushLogger(log);
    await endLogger(log);
    const written = await Promise.all((await rolledFiles(file)).map((f) => readFile(f, 'utf8')));
    expect(JSON.parse(written.join('').trim())).toMatchObject({ msg: 'run started', meeting: 'Meetings/A.md' });
    if (isTTY) expect(terminal.text()).toMatch(/^\[\d\d:\d\d:\d\d\] INFO.*: run started \[Meetings\/A\.md\]\n$/);
    else expect(terminal.lines).toEqual([]);
  });
});

describe('readable lines at a terminal (Logging.Pretty)', () => {
  it('null (unset) follows stdout: readable at a terminal, JSON for journald, launchd and pipes; true and false force', () => {
    expect(wantsPrettyLogs(null, true)).toBe(true);
    expect(wantsPrettyLogs(null, false)).toBe(false);
    expect(wantsPrettyLogs(undefined, true)).toBe(true);
    expect(wantsPrettyLogs(false, true)).toBe(false);
    expect(wantsPrettyLogs(true, false)).toBe(true);
  });

  it.each([
    [null, true, 'readable'],
    [null, false, 'json'],
    [false, true, 'json'],
    [true, false, 'readable'],
  ] as const)('the daemon logger with Pretty %s and a terminal %s writes %s lines', async (pretty, isTTY, kind) => {
    const dest = memoryDestination();
    const log = createLoggerFromConfig(testConfig({ Logging: { Pretty: pretty } }), { destination: dest, isTTY });
    log.info({ meeting: 'Meetings/A.md', apiKey: 'sk-secret-value' }, 'run started');
    await flushLogger(log);
    const text = dest.text();
    if (kind === 'json') {
      expect(JSON.parse(text.trim())).toMatchObject({ level: 'info', msg: 'run started', meeting: 'Meetings/A.md' });
    } else {
      expect(text).toMatch(/^\[\d\d:\d\d:\d\d\] .*INFO.*: .*run started \[Meetings\/A\.md\]/);
      expect(text.split('\n').filter(Boolean)).toHaveLength(1);
      // Colours only for a real terminal.
      expect(text.includes('\u001b[')).toBe(isTTY);
    }
    expect(text).not.toContain('sk-secret-value');
  });

  it('one line each: time, level, message, the meeting, and an error in its own words', () => {
    const format = prettyFormatter({ colorize: false, details: false });
    const time = new Date(2026, 10, 30, 9, 5, 7).toISOString();
    const line = (o: Record<string, unknown>) => format(JSON.stringify({ time, pid: 1, ...o }));
    expect(line({ level: 'info', msg: 'run started', meeting: 'Meetings/Weekly.md', runId: 'r1' })).toBe(
      '[09:05:07] INFO: run started [Meetings/Weekly.md]\n',
    );
    // The meeting is not repeated when the message names it.
    expect(line({ level: 'warn', msg: 'meeting failed: Meetings/Weekly.md: HTTP 503', meeting: 'Meetings/Weekly.md' })).toBe(
      '[09:05:07] WARN: meeting failed: Meetings/Weekly.md: HTTP 503\n',
    );
    expect(line({ level: 'error', msg: 'run failed', err: { type: 'ModelError', message: 'HTTP 401 from x\nmore', stack: 'at y' } })).toBe(
      '[09:05:07] ERROR: run failed: HTTP 401 from x\n',
    );
    // With details (the logs command, debug level) the fields follow below.
    expect(prettyFormatter({ colorize: false, details: true })(JSON.stringify({ time, level: 'info', msg: 'x', turn: 3 }))).toContain('turn: 3');
  });

  it('prints no control character a synced file name or a server put in a message, the meeting or an error', () => {
    const format = prettyFormatter({ colorize: false, details: false });
    const esc = '\u001b';
    const text = format(JSON.stringify({ time: new Date().toISOString(), level: 'warn', msg: `skipped ${esc}]0;owned\u0007`, meeting: `Meetings/${esc}[2JX\u202e.md`, err: { message: `HTTP 500 ${esc}[31mred` } }));
    expect(text).not.toMatch(/[\u0000-\u0008\u000b-\u001f\u007f-\u009f\u202a-\u202e]/);
    // Whole sequences go (vault/format/terminal-text.ts), not only their escape character.
    expect(text).toContain('skipped  [Meetings/X.md]: HTTP 500 red');
  });
});

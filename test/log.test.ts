import { mkdtemp, readdir, readFile, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import pino, { type DestinationStream } from 'pino';
import { afterEach, describe, expect, it } from 'vitest';
import {
  addLogSecret,
  causeChain,
  createLogger,
  createLoggerFromConfig,
  flushLogger,
  maskLine,
  summarizeArgs,
} from '../src/log.js';
import { testConfig } from './helpers/memfs.js';

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

  it('summarizes tool arguments on one short line', () => {
    const long = 'word '.repeat(500);
    const summary = summarizeArgs(JSON.stringify({ content: long, mode: 'overwrite', from: 3 }));
    expect(summary.length).toBeLessThanOrEqual(160);
    expect(summary).toContain('mode="overwrite"');
    expect(summary).toContain('from=3');
    expect(summary).toContain('(2500 chars)');
    expect(summarizeArgs('{not json')).toBe('{not json');
  });
});

describe('Logging.File: rotated files through pino-roll', () => {
  let dir: string | undefined;
  afterEach(async () => {
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
    const log = createLoggerFromConfig(config);
    for (let i = 0; i < 60; i++) {
      log.info({ i, filler: 'x'.repeat(80) }, `line ${i} key ${FAKE_KEY}`);
      // Rotation happens between writes: give the worker a chance to roll.
      if (i % 10 === 9) await flushLogger(log);
    }
    await flushLogger(log);
    // Ending the transport waits for the worker to write everything to disk.
    const stream = (log as unknown as Record<symbol, NodeJS.EventEmitter & { end(): void }>)[pino.symbols.streamSym]!;
    await new Promise<void>((resolve) => {
      stream.once('close', () => resolve());
      stream.end();
    });
    const folder = path.dirname(file);
    const deadline = Date.now() + 10_000;
    let files: string[] = [];
    // pino-roll removes old files asynchronously after a roll: wait for it to settle.
    while (Date.now() < deadline) {
      files = (await readdir(folder)).filter((f) => /^meeting-assistant\.\d+\.log$/.test(f));
      if (files.length === 3) break;
      await new Promise((r) => setTimeout(r, 50));
    }
    expect(files).toHaveLength(3);
    files.sort((a, b) => Number(a.split('.')[1]) - Number(b.split('.')[1]));
    const texts = await Promise.all(files.map((f) => readFile(path.join(folder, f), 'utf8')));
    const lines = texts
      .join('')
      .split('\n')
      .filter((l) => l.trim() !== '')
      .map((l) => JSON.parse(l) as { msg: string; level: string });
    // The oldest files were removed: the newest lines remain, in order, up to the last one.
    expect(lines.length).toBeGreaterThan(5);
    expect(lines.length).toBeLessThan(60);
    expect(lines.at(-1)!.msg).toBe('line 59 key [redacted]');
    expect(lines.at(-1)!.level).toBe('info');
    for (const f of files) expect(await readFile(path.join(folder, f), 'utf8')).not.toContain(FAKE_KEY);
  });
});

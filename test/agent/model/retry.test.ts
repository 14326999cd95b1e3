import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createModelClient } from '../../../src/agent/model/client.js';
import {
  defaultSleep,
  MAX_RETRY_AFTER_MS,
  type RetryPolicy,
  retryPolicyFromSettings,
  withRetries,
  withRetry,
} from '../../../src/agent/model/retry.js';
import { ModelError, type ModelRequest } from '../../../src/agent/types.js';
import { createLogger } from '../../../src/log.js';
import { capturedLogger } from '../../helpers/captured-log.js';
import { testConfig } from '../../helpers/memfs.js';
import { errorBody, type ScriptedServer, startScriptedServer } from '../../helpers/scripted-server.js';

type Api = 'chat-completions' | 'responses';

/** An injected sleep that records the waits and returns at once. */
function recordingSleep(): { sleep: NonNullable<RetryPolicy['sleep']>; waits: number[] } {
  const waits: number[] = [];
  return { waits, sleep: async (ms) => void waits.push(ms) };
}

const transient = (status = 503, retryAfterMs?: number) =>
  new ModelError(`HTTP ${status}`, { kind: 'http', status, ...(retryAfterMs !== undefined ? { retryAfterMs } : {}) });

const REQUEST: ModelRequest = {
  instructions: 'sys',
  messages: [{ role: 'user', content: 'hi' }],
  tools: [],
  maxOutputTokens: 100,
};

describe('withRetry', () => {
  it('returns the first success without waiting', async () => {
    const { sleep, waits } = recordingSleep();
    const { log } = capturedLogger();
    const result = await withRetry(async (attempt) => `ok on ${attempt}`, { attempts: 3, delayMs: 1000, log, sleep });
    expect(result).toBe('ok on 1');
    expect(waits).toEqual([]);
  });

  it('retries transient errors and succeeds, logging each attempt', async () => {
    const { sleep, waits } = recordingSleep();
    const { log, lines } = capturedLogger();
    let calls = 0;
    const result = await withRetry(
      async () => {
        calls++;
        if (calls === 1) throw transient(502);
        if (calls === 2) throw new ModelError('Could not reach', { kind: 'network' });
        return 'done';
      },
      { attempts: 3, delayMs: 250, log, sleep, label: 'turn 1' },
    );
    expect(result).toBe('done');
    expect(calls).toBe(3);
    expect(waits).toEqual([250, 250]);
    const failed = lines.filter((l) => l.level === 'warn');
    expect(failed.map((l) => [l.attempt, l.of, l.waitMs])).toEqual([
      [1, 4, 250],
      [2, 4, 250],
    ]);
    expect(failed[0]!.msg).toContain('turn 1: attempt 1 of 4 failed (HTTP 502); retrying in 250 ms');
    expect(failed[1]!.msg).toContain('(network)');
    expect(lines.some((l) => l.level === 'info' && l.msg.includes('attempt 3 of 4 succeeded'))).toBe(true);
    expect(lines.filter((l) => l.level === 'debug').map((l) => l.msg)).toEqual([
      'turn 1: attempt 1 of 4',
      'turn 1: attempt 2 of 4',
      'turn 1: attempt 3 of 4',
    ]);
  });

  it('Attempts: 2 makes three tries then throws the last error with attempts = 3', async () => {
    const { sleep, waits } = recordingSleep();
    const { log, lines } = capturedLogger();
    let calls = 0;
    const err = await withRetry(
      async () => {
        calls++;
        throw transient(503);
      },
      { attempts: 2, delayMs: 10, log, sleep },
    ).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(ModelError);
    expect((err as ModelError).attempts).toBe(3);
    expect(calls).toBe(3);
    expect(waits).toEqual([10, 10]);
    expect(lines.at(-1)!.msg).toContain('attempt 3 of 3 failed (HTTP 503); no attempts left');
  });

  it('Attempts: 0 means a single try', async () => {
    const { sleep, waits } = recordingSleep();
    let calls = 0;
    const err = await withRetry(
      async () => {
        calls++;
        throw transient(500);
      },
      { attempts: 0, delayMs: 10, log: capturedLogger().log, sleep },
    ).catch((e: unknown) => e as ModelError);
    expect(calls).toBe(1);
    expect(err.attempts).toBe(1);
    expect(waits).toEqual([]);
  });

  it('waits for Retry-After when it is longer than the delay, and the delay when it is shorter', async () => {
    const { sleep, waits } = recordingSleep();
    let calls = 0;
    await withRetry(
      async () => {
        calls++;
        if (calls === 1) throw transient(429, 30_000);
        if (calls === 2) throw transient(429, 100);
        return 'ok';
      },
      { attempts: 3, delayMs: 5000, log: capturedLogger().log, sleep },
    );
    expect(waits).toEqual([30_000, 5000]);
  });

  it('caps a huge Retry-After', async () => {
    const { sleep, waits } = recordingSleep();
    let calls = 0;
    await withRetry(
      async () => {
        if (++calls === 1) throw transient(429, 24 * 3600 * 1000);
        return 'ok';
      },
      { attempts: 1, delayMs: 1, log: capturedLogger().log, sleep },
    );
    expect(waits).toEqual([MAX_RETRY_AFTER_MS]);
  });

  it.each([
    ['HTTP 400', new ModelError('bad request', { kind: 'http', status: 400 })],
    ['HTTP 401', new ModelError('bad key', { kind: 'http', status: 401 })],
    ['HTTP 404', new ModelError('no model', { kind: 'http', status: 404 })],
    ['invalid response', new ModelError('html', { kind: 'invalid-response' })],
    ['aborted', new ModelError('aborted', { kind: 'aborted' })],
  ])('%s is thrown at once', async (_name, error) => {
    const { sleep, waits } = recordingSleep();
    const { log, lines } = capturedLogger();
    let calls = 0;
    const err = await withRetry(
      async () => {
        calls++;
        throw error;
      },
      { attempts: 5, delayMs: 10, log, sleep },
    ).catch((e: unknown) => e);
    expect(err).toBe(error);
    expect(calls).toBe(1);
    expect(error.attempts).toBe(1);
    expect(waits).toEqual([]);
    expect(lines.at(-1)!.msg).toContain('not retried');
  });

  it('errors that are not ModelErrors (bugs) are thrown at once', async () => {
    let calls = 0;
    const bug = new TypeError('x is undefined');
    await expect(
      withRetry(
        async () => {
          calls++;
          throw bug;
        },
        { attempts: 5, delayMs: 10, log: capturedLogger().log, sleep: recordingSleep().sleep },
      ),
    ).rejects.toBe(bug);
    expect(calls).toBe(1);
  });

  it('aborting during a wait rejects at once with an aborted error, even with the default timer sleep', async () => {
    const controller = new AbortController();
    // The warn line announcing the wait is the moment the policy starts waiting (an hour).
    const logAndAbort = createLogger({
      level: 'warn',
      destination: {
        write: (line: string) => {
          if (line.includes('retrying in')) controller.abort();
        },
      },
    });
    let calls = 0;
    const err = await withRetry(
      async () => {
        calls++;
        throw transient(503);
      },
      { attempts: 3, delayMs: 3_600_000, log: logAndAbort, signal: controller.signal },
    ).catch((e: unknown) => e as ModelError);
    expect(err).toBeInstanceOf(ModelError);
    expect(err.kind).toBe('aborted');
    expect(err.attempts).toBe(1);
    expect(calls).toBe(1);
  });

  it('aborting also interrupts an injected sleep that ignores the signal', async () => {
    const controller = new AbortController();
    const never = () => new Promise<void>(() => {});
    let calls = 0;
    const pending = withRetry(
      async () => {
        calls++;
        if (calls === 1) queueMicrotask(() => setImmediate(() => controller.abort()));
        throw transient(500);
      },
      { attempts: 3, delayMs: 1000, log: capturedLogger().log, signal: controller.signal, sleep: never },
    );
    await expect(pending).rejects.toMatchObject({ kind: 'aborted', attempts: 1 });
    expect(calls).toBe(1);
  });

  it('stopWaiting ends a wait between tries at once, but never cuts a request in flight', async () => {
    const stopWaiting = new AbortController();
    const requestSignal = new AbortController();
    let calls = 0;
    let releaseRequest!: () => void;
    const pending = withRetry(
      async () => {
        calls++;
        if (calls === 1) {
          // The daemon starts stopping while this request is in flight: it is let finish.
          stopWaiting.abort();
          await new Promise<void>((r) => (releaseRequest = r));
          expect(requestSignal.signal.aborted).toBe(false);
          throw transient(503);
        }
        return 'second try';
      },
      // An hour's wait: only stopWaiting can end it.
      { attempts: 3, delayMs: 3_600_000, log: capturedLogger().log, signal: requestSignal.signal, stopWaiting: stopWaiting.signal },
    );
    await new Promise<void>((r) => setImmediate(r));
    releaseRequest();
    // Failing after the stop began, the step does not wait for its next try: aborted, to be resumed.
    await expect(pending).rejects.toMatchObject({ kind: 'aborted', attempts: 1 });
    expect(calls).toBe(1);
  });

  it('stopWaiting fired during a wait (the default timer sleep) rejects at once', async () => {
    const stopWaiting = new AbortController();
    const logAndStop = createLogger({
      level: 'warn',
      destination: { write: (line: string) => void (line.includes('retrying in') && stopWaiting.abort()) },
    });
    let calls = 0;
    const err = await withRetry(
      async () => {
        calls++;
        throw transient(503, 3_600_000);
      },
      { attempts: 3, delayMs: 1000, log: logAndStop, stopWaiting: stopWaiting.signal },
    ).catch((e: unknown) => e as ModelError);
    expect(err).toMatchObject({ kind: 'aborted', attempts: 1 });
    expect(calls).toBe(1);
  });

  it('does not start when the signal is already aborted', async () => {
    const controller = new AbortController();
    controller.abort();
    let calls = 0;
    await expect(
      withRetry(async () => void calls++, { attempts: 3, delayMs: 1, log: capturedLogger().log, signal: controller.signal }),
    ).rejects.toMatchObject({ kind: 'aborted', attempts: 0 });
    expect(calls).toBe(0);
  });
});

describe('defaultSleep', () => {
  it('resolves after the time', async () => {
    await expect(defaultSleep(1)).resolves.toBeUndefined();
  });
  it('rejects with an aborted error when the signal aborts', async () => {
    const controller = new AbortController();
    const pending = defaultSleep(3_600_000, controller.signal);
    controller.abort();
    await expect(pending).rejects.toMatchObject({ kind: 'aborted' });
  });
});

describe('retryPolicyFromSettings', () => {
  it('takes Reconnect.Attempts and DelaySeconds', () => {
    const { log } = capturedLogger();
    const signal = new AbortController().signal;
    const policy = retryPolicyFromSettings(testConfig({ Reconnect: { Attempts: 2, DelaySeconds: 1.5 } }).settings, log, signal);
    expect(policy).toMatchObject({ attempts: 2, delayMs: 1500, log, signal });
  });
});

describe.each<Api>(['chat-completions', 'responses'])('retry policy with the %s client and the scripted server', (api) => {
  let server: ScriptedServer;
  beforeEach(async () => {
    server = await startScriptedServer();
  });
  afterEach(async () => {
    await server.close();
  });

  const client = (endpoint: Record<string, unknown> = {}) =>
    createModelClient(
      testConfig({ Endpoint: { BaseUrl: server.baseUrl, Model: 'm', Api: api, TimeoutSeconds: 5, ...endpoint } }),
    );

  it('Attempts: 2 makes at most 3 requests, then throws with attempts = 3', async () => {
    server.script({ status: 503 }, { reset: true }, { status: 500, body: errorBody('overloaded', { type: 'server_error' }) }, { reply: { content: 'never reached' } });
    const { sleep, waits } = recordingSleep();
    const settings = testConfig({ Reconnect: { Attempts: 2, DelaySeconds: 0.01 } }).settings;
    const policy = { ...retryPolicyFromSettings(settings, capturedLogger().log), sleep };
    const err = await withRetry(() => client().complete(REQUEST), policy).catch((e: unknown) => e as ModelError);
    expect(err).toBeInstanceOf(ModelError);
    expect(err).toMatchObject({ kind: 'http', status: 500, attempts: 3 });
    expect(server.modelRequests()).toHaveLength(3);
    expect(waits).toEqual([10, 10]);
  });

  it('recovers after transient failures and returns the answer', async () => {
    server.script({ status: 502, body: '<html><h1>502 Bad Gateway</h1></html>' }, { status: 408 }, { reply: { content: 'finally' } });
    const { sleep } = recordingSleep();
    const answer = await withRetry(() => client().complete(REQUEST), { attempts: 3, delayMs: 1, log: capturedLogger().log, sleep });
    expect(answer.content).toBe('finally');
    expect(server.modelRequests()).toHaveLength(3);
  });

  it('a Retry-After larger than the delay wins', async () => {
    server.script({ status: 429, headers: { 'retry-after': '20' }, body: errorBody('slow down') }, { reply: { content: 'ok' } });
    const { sleep, waits } = recordingSleep();
    await withRetry(() => client().complete(REQUEST), { attempts: 2, delayMs: 3000, log: capturedLogger().log, sleep });
    expect(waits).toEqual([20_000]);
    expect(server.modelRequests()).toHaveLength(2);
  });

  it('a 401 makes exactly one request', async () => {
    await server.close();
    server = await startScriptedServer({ requireKey: 'right' });
    server.setFallback({ reply: { content: 'ok' } });
    const { sleep, waits } = recordingSleep();
    const err = await withRetry(() => client({ ApiKey: 'wrong' }).complete(REQUEST), {
      attempts: 5,
      delayMs: 1,
      log: capturedLogger().log,
      sleep,
    }).catch((e: unknown) => e as ModelError);
    expect(err).toMatchObject({ kind: 'http', status: 401, attempts: 1 });
    expect(server.modelRequests()).toHaveLength(1);
    expect(waits).toEqual([]);
  });

  it('a timeout is retried', async () => {
    server.script({ hang: true }, { reply: { content: 'second try' } });
    const { sleep } = recordingSleep();
    const answer = await withRetry(() => client({ TimeoutSeconds: 0.3 }).complete(REQUEST), {
      attempts: 1,
      delayMs: 1,
      log: capturedLogger().log,
      sleep,
    });
    expect(answer.content).toBe('second try');
    expect(server.modelRequests()).toHaveLength(2);
  });

  it('withRetries wraps a client and uses the request signal', async () => {
    server.script({ status: 503 }, { reply: { content: 'ok' } });
    const { sleep, waits } = recordingSleep();
    const wrapped = withRetries(client(), { attempts: 1, delayMs: 7, log: capturedLogger().log, sleep });
    expect(wrapped.api).toBe(api);
    expect((await wrapped.complete(REQUEST)).content).toBe('ok');
    expect(waits).toEqual([7]);
    const controller = new AbortController();
    controller.abort();
    await expect(wrapped.complete({ ...REQUEST, signal: controller.signal })).rejects.toMatchObject({ kind: 'aborted' });
    expect(server.modelRequests()).toHaveLength(2);
  });
});

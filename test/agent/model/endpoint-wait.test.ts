import { describe, expect, test } from 'vitest';
import { EndpointWaiter, isUnreachable, unreachableAdvice } from '../../../src/agent/model/endpoint-wait.js';
import { withRetry } from '../../../src/agent/model/retry.js';
import { ModelError } from '../../../src/agent/types.js';
import { capturedLogger } from '../../helpers/captured-log.js';

/** docs/design.md §2, "The endpoint down": runs wait for an endpoint that does not answer. */

const refused = () =>
  new ModelError('Could not reach the model endpoint http://127.0.0.1:9/v1/chat/completions: fetch failed: connect ECONNREFUSED.', {
    kind: 'network',
    cause: Object.assign(new TypeError('fetch failed'), { cause: Object.assign(new Error('connect ECONNREFUSED 127.0.0.1:9'), { code: 'ECONNREFUSED' }) }),
  });

/** A probe that fails `downFor` times, then answers; the pauses it was given recorded, none waited. */
function fakeEndpoint(downFor: number) {
  let probes = 0;
  const pauses: number[] = [];
  const { log, lines } = capturedLogger();
  const waiter = new EndpointWaiter({
    url: 'http://127.0.0.1:9/v1/models',
    probe: async () => ++probes > downFor,
    log,
    clock: () => new Date('2026-12-02T09:00:00Z'),
    sleep: async (ms) => void pauses.push(ms),
  });
  return { waiter, pauses, lines, probes: () => probes };
}

describe('EndpointWaiter', () => {
  test('asks with a growing pause, 5 s doubling to at most 5 minutes, and says since when it waits', async () => {
    const { waiter, pauses, lines } = fakeEndpoint(9);
    expect(await waiter.waitUntilUp()).toBe(true);
    expect(pauses).toEqual([5_000, 10_000, 20_000, 40_000, 80_000, 160_000, 300_000, 300_000, 300_000]);
    const first = lines.find((l) => l.msg.startsWith('the model endpoint does not answer'))!;
    expect(first.level).toBe('warn');
    expect(first.since).toBe('2026-12-02T09:00:00.000Z');
    expect(lines.some((l) => l.msg.startsWith('the model endpoint answers again'))).toBe(true);
    expect(waiter.downSince).toBeUndefined();
  });

  test('tells its down listeners once, when the first probe gets no answer; a listener that stopped is not told', async () => {
    const { waiter } = fakeEndpoint(3);
    const told: Date[] = [];
    const stopped: Date[] = [];
    waiter.onDown((since) => told.push(since));
    waiter.onDown((since) => stopped.push(since))();
    expect(await waiter.waitUntilUp()).toBe(true);
    expect(told).toEqual([new Date('2026-12-02T09:00:00Z')]);
    expect(stopped).toEqual([]);
  });

  test('an endpoint that answers at once: no wait, and the failed try counts as usual', async () => {
    const { waiter, pauses } = fakeEndpoint(0);
    expect(await waiter.waitUntilUp()).toBe(false);
    expect(pauses).toEqual([]);
  });

  test('runs waiting at once share one probing loop, and the status says how many wait', async () => {
    let release!: () => void;
    const gate = new Promise<void>((r) => (release = r));
    let probes = 0;
    const waiter = new EndpointWaiter({
      url: 'u',
      probe: async () => ++probes > 1,
      log: capturedLogger().log,
      sleep: () => gate,
    });
    const waits = [waiter.waitUntilUp(), waiter.waitUntilUp(), waiter.waitUntilUp()];
    await new Promise((r) => setImmediate(r));
    expect(waiter.status()).toMatchObject({ waiting: 3 });
    expect(waiter.status().downSince).toBeDefined();
    release();
    expect(await Promise.all(waits)).toEqual([true, true, true]);
    expect(probes).toBe(2);
  });

  test('a stop ends a wait at once, as an aborted step (the run resumes at next start)', async () => {
    const waiter = new EndpointWaiter({ url: 'u', probe: async () => false, log: capturedLogger().log, sleep: () => new Promise(() => undefined) });
    const stop = new AbortController();
    const waiting = waiter.waitUntilUp(stop.signal);
    stop.abort();
    await expect(waiting).rejects.toMatchObject({ kind: 'aborted' });
    waiter.close();
  });
});

describe('withRetry and the endpoint', () => {
  test('tries that met an unreachable endpoint do not count: Reconnect.Attempts 0 still succeeds once it answers', async () => {
    // The server comes up after the fourth probe; until then every request is refused.
    let probes = 0;
    const waiter = new EndpointWaiter({ url: 'u', probe: async () => ++probes > 3, log: capturedLogger().log, sleep: async () => undefined });
    let calls = 0;
    const result = await withRetry(
      async () => {
        calls++;
        if (probes <= 3) throw refused();
        return 'ok';
      },
      { attempts: 0, delayMs: 0, log: capturedLogger().log, endpoint: waiter, sleep: async () => undefined },
    );
    expect(result).toBe('ok');
    expect(calls).toBe(2);
  });

  test('a connection error while the endpoint answers the probe is spent as a normal try', async () => {
    const { waiter } = fakeEndpoint(0);
    const failing = withRetry(async () => Promise.reject(refused()), { attempts: 1, delayMs: 0, log: capturedLogger().log, endpoint: waiter, sleep: async () => undefined });
    await expect(failing).rejects.toMatchObject({ kind: 'network', attempts: 2 });
  });

  test('a stop while waiting for the endpoint ends the step as aborted', async () => {
    const waiter = new EndpointWaiter({ url: 'u', probe: async () => false, log: capturedLogger().log, sleep: () => new Promise(() => undefined) });
    const stopWaiting = new AbortController();
    const step = withRetry(async () => Promise.reject(refused()), { attempts: 3, delayMs: 0, log: capturedLogger().log, endpoint: waiter, stopWaiting: stopWaiting.signal });
    await new Promise((r) => setImmediate(r));
    stopWaiting.abort();
    await expect(step).rejects.toMatchObject({ kind: 'aborted' });
    waiter.close();
  });
});

describe('the failure report of an unreachable endpoint', () => {
  test('refused and unknown hosts are unreachable; an HTTP error or a broken body is not', () => {
    expect(isUnreachable(refused())).toBe(true);
    const noHost = new ModelError('x', { kind: 'network', cause: Object.assign(new Error('getaddrinfo ENOTFOUND ollama'), { code: 'ENOTFOUND' }) });
    expect(isUnreachable(noHost)).toBe(true);
    expect(isUnreachable(new ModelError('HTTP 500', { kind: 'http', status: 500 }))).toBe(false);
    expect(isUnreachable(new ModelError('terminated', { kind: 'network', cause: new TypeError('terminated') }))).toBe(false);
  });

  test('says it is retried when the endpoint answers again', () => {
    const advice = unreachableAdvice(refused())!;
    expect(advice.retryWhenEndpointAnswers).toBe(true);
    expect(advice.notes.join(' ')).toContain('retried when the endpoint answers again');
  });
});

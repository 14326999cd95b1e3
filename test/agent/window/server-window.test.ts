import { afterEach, describe, expect, it } from 'vitest';
import { probeServerWindow, raiseWindowHint, serverRoot, ServerWindowSource } from '../../../src/agent/window/server-window.js';
import { capturedLogger } from '../../helpers/captured-log.js';
import { type ScriptedServer, startScriptedServer } from '../../helpers/scripted-server.js';
import type { ServerEmulation } from '../../helpers/server-kinds.js';

const MODEL = 'qwen3:8b';
const servers: ScriptedServer[] = [];
afterEach(async () => {
  for (const server of servers.splice(0)) await server.close();
});

async function emulated(emulate: ServerEmulation): Promise<ScriptedServer> {
  const server = await startScriptedServer({ models: [MODEL], emulate });
  servers.push(server);
  return server;
}

const infoRequests = (server: ScriptedServer) => server.requests.filter((r) => r.kind !== 'chat' && r.kind !== 'responses');

describe('probeServerWindow: what each server kind tells', () => {
  it("llama.cpp's server: /props n_ctx, per slot", async () => {
    const server = await emulated({ kind: 'llama.cpp', window: 8192 });
    expect(await probeServerWindow({ baseUrl: server.baseUrl, model: MODEL })).toMatchObject({ server: 'llama.cpp', tokens: 8192, slots: 1 });
    expect(server.requests[0]!.path).toBe('/props');
  });

  it('Ollama: /api/ps of a loaded model; a model not loaded is loaded with an empty generate first when allowed', async () => {
    const server = await emulated({ kind: 'ollama', window: 4096 });
    const unloaded = await probeServerWindow({ baseUrl: server.baseUrl, model: MODEL });
    expect(unloaded).toMatchObject({ server: 'ollama', loaded: false, modelMax: 131072 });
    expect(unloaded?.tokens).toBeUndefined();
    expect(server.requests.some((r) => r.path === '/api/generate')).toBe(false);

    const loaded = await probeServerWindow({ baseUrl: server.baseUrl, model: MODEL, load: true });
    expect(loaded).toMatchObject({ server: 'ollama', loaded: true, tokens: 4096 });
    const load = server.requests.find((r) => r.path === '/api/generate')!;
    expect(load.method).toBe('POST');
    expect(load.body).toMatchObject({ model: MODEL, prompt: '' });
    // Ollama's native API lives at the base URL without /v1.
    expect(server.requests.filter((r) => r.path.startsWith('/api/')).every((r) => !r.path.startsWith('/v1'))).toBe(true);
  });

  it('LM Studio: loaded_context_length from /api/v0/models', async () => {
    const server = await emulated({ kind: 'lm-studio', window: 8192 });
    expect(await probeServerWindow({ baseUrl: server.baseUrl, model: MODEL })).toMatchObject({ server: 'lm-studio', tokens: 8192, loaded: true });
  });

  it('vLLM: max_model_len from /v1/models', async () => {
    const server = await emulated({ kind: 'vllm', window: 16384 });
    expect(await probeServerWindow({ baseUrl: server.baseUrl, model: MODEL })).toEqual({ server: 'vllm', tokens: 16384 });
  });

  it('a server that tells nothing: undefined (the configured window is used)', async () => {
    const server = await emulated({ kind: 'llama.cpp', window: 8192, tellsWindow: false });
    expect(await probeServerWindow({ baseUrl: server.baseUrl, model: MODEL })).toBeUndefined();
    const down = await probeServerWindow({ baseUrl: 'http://127.0.0.1:1/v1', model: MODEL, timeoutMs: 1000 });
    expect(down).toBeUndefined();
  });

  it('names the setting that raises each window', () => {
    expect(raiseWindowHint({ server: 'ollama' }, MODEL, 32768)).toMatch(/OLLAMA_CONTEXT_LENGTH=32768.*PARAMETER num_ctx 32768/);
    expect(raiseWindowHint({ server: 'llama.cpp', slots: 2 }, MODEL, 8192)).toMatch(/-c 16384.*2 --parallel slots/);
    expect(raiseWindowHint({ server: 'lm-studio' }, MODEL, 8192)).toMatch(/context length of at least 8192/);
    expect(raiseWindowHint({ server: 'vllm' }, MODEL, 8192)).toMatch(/--max-model-len 8192/);
    expect(serverRoot('http://localhost:11434/v1/')).toBe('http://localhost:11434');
  });
});

describe('ServerWindowSource: asked at start and when a run begins, cached, warned once', () => {
  function source(server: ScriptedServer, now: () => number) {
    const clock = () => new Date(now());
    const { log, lines } = capturedLogger();
    const windows = new ServerWindowSource({ baseUrl: server.baseUrl, model: MODEL, configured: 32768, log, clock, ttlMs: 180_000 });
    return { windows, lines };
  }

  it('uses the smaller window, reuses the answer for a few minutes, and warns once naming the setting', async () => {
    const server = await emulated({ kind: 'ollama', window: 4096, loaded: true });
    let clock = 0;
    const { windows, lines } = source(server, () => clock);
    expect(windows.known()).toBe(32768);
    expect(await windows.window()).toBe(4096);
    // What the status page shows, without asking the server again.
    expect(windows.known()).toBe(4096);
    const asked = infoRequests(server).length;
    clock += 60_000;
    expect(await windows.window()).toBe(4096);
    expect(infoRequests(server)).toHaveLength(asked);
    clock += 180_000;
    expect(await windows.window()).toBe(4096);
    expect(infoRequests(server).length).toBeGreaterThan(asked);
    const warnings = lines.filter((l) => l.level === 'warn');
    expect(warnings).toHaveLength(1);
    expect(warnings[0]!.msg).toMatch(/Ollama runs qwen3:8b with a context window of 4096 tokens, less than ContextWindow.Tokens \(32768\)/);
    expect(warnings[0]!.msg).toMatch(/OLLAMA_CONTEXT_LENGTH=32768/);
  });

  it('at start, without loading the model; when a run begins, loading it', async () => {
    const server = await emulated({ kind: 'ollama', window: 4096 });
    const { windows } = source(server, () => 0);
    expect((await windows.get(false))?.tokens).toBeUndefined();
    expect(server.emulated!.loaded).toBe(false);
    expect((await windows.get(true))?.tokens).toBe(4096);
    expect(server.emulated!.loaded).toBe(true);
  });

  it('a run that asks while the start-up look is still under way gets the loaded window, not that look\'s answer', async () => {
    const server = await emulated({ kind: 'ollama', window: 4096 });
    // The start-up look's /api/ps is held until the run has asked.
    let holding!: () => void;
    const held = new Promise<void>((resolve) => (holding = resolve));
    let release!: () => void;
    const gate = new Promise<void>((resolve) => (release = resolve));
    let first = true;
    const slowFetch: typeof fetch = async (input, init) => {
      if (first && String(input).endsWith('/api/ps')) {
        first = false;
        holding();
        await gate;
      }
      return fetch(input, init);
    };
    const { log } = capturedLogger();
    const windows = new ServerWindowSource({ baseUrl: server.baseUrl, model: MODEL, configured: 32768, log, clock: () => new Date(0), fetch: slowFetch });
    const look = windows.get(false);
    await held;
    const run = windows.window(true);
    release();
    expect(await run).toBe(4096);
    await look;
    expect(server.emulated!.loaded).toBe(true);
    // The look that ended last did not replace the loaded answer.
    expect(windows.known()).toBe(4096);
    const asked = infoRequests(server).length;
    expect(await windows.window(true)).toBe(4096);
    expect(infoRequests(server)).toHaveLength(asked);
  });

  it('a larger server window leaves ContextWindow.Tokens, without a warning', async () => {
    const server = await emulated({ kind: 'vllm', window: 131072 });
    const { windows, lines } = source(server, () => 0);
    expect(await windows.window()).toBe(32768);
    expect(lines.some((l) => l.level === 'warn')).toBe(false);
  });
});

describe('probeServerWindow: an oversized info answer (issue #24 point 8)', () => {
  it('a 40 MB /props answer is not read past 32 MB: no window from it, the read cancelled', async () => {
    const MB = 1024 * 1024;
    let pulled = 0;
    const huge = () =>
      new ReadableStream<Uint8Array>({
        pull(controller) {
          pulled++;
          if (pulled === 1) controller.enqueue(new TextEncoder().encode('{"n_ctx": 8192'));
          else if (pulled <= 40) controller.enqueue(new Uint8Array(MB).fill(0x20));
          else {
            controller.enqueue(new TextEncoder().encode('}'));
            controller.close();
          }
        },
      });
    const fakeFetch = (async (url: string | URL | Request) =>
      String(url).endsWith('/props') ? new Response(huge(), { status: 200 }) : new Response('{}', { status: 404 })) as typeof fetch;
    const told = await probeServerWindow({ baseUrl: 'http://127.0.0.1:9/v1', model: MODEL, fetch: fakeFetch });
    expect(told).toBeUndefined();
    expect(pulled).toBeLessThanOrEqual(34);
  });
});

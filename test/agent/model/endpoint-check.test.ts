import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ChatCompletionsClient } from '../../../src/agent/model/chat-completions.js';
import { reportEndpointProblems } from '../../../src/agent/model/endpoint-check.js';
import { modelsProbe } from '../../../src/agent/model/endpoint-wait.js';
import { capturedLogger } from '../../helpers/captured-log.js';
import { freePort } from '../../helpers/daemon-process.js';
import { testConfig } from '../../helpers/memfs.js';
import { type ScriptedServer, startScriptedServer } from '../../helpers/scripted-server.js';

/** The daemon's one start-up check of the endpoint: one line saying what is wrong and the fix. */

function memoryLog() {
  const { log, lines } = capturedLogger();
  return { log, lines, warnings: () => lines.filter((l) => l.level === 'warn') };
}

let server: ScriptedServer;
beforeAll(async () => {
  server = await startScriptedServer({ models: ['llama3.2:3b', 'qwen3:4b'] });
});
afterAll(async () => {
  await server.close();
});

const config = (BaseUrl: string, Model = 'qwen3:4b') => testConfig({ Endpoint: { BaseUrl, Model, ApiKeyEnvironmentVariable: '' } });

describe('reportEndpointProblems', () => {
  it('says nothing above debug when the endpoint lists the model', async () => {
    const { log, lines, warnings } = memoryLog();
    expect(await reportEndpointProblems(config(server.baseUrl), log)).toBeUndefined();
    expect(warnings()).toEqual([]);
    expect(lines.some((l) => l.msg === 'endpoint check: the endpoint is up and lists the model')).toBe(true);
    expect(server.requests.at(-1)).toMatchObject({ kind: 'models', method: 'GET' });
  });

  it('says nothing when a proxy in front of the endpoint redirects (307) to it, as the runs (fetch) follow it too', async () => {
    const proxy = http.createServer((req, res) => {
      res.writeHead(307, { Location: `${server.baseUrl}${(req.url ?? '').replace(/^\/v1/, '')}` });
      res.end();
    });
    await new Promise<void>((resolve) => proxy.listen(0, '127.0.0.1', resolve));
    try {
      const { log, warnings } = memoryLog();
      const base = `http://127.0.0.1:${(proxy.address() as AddressInfo).port}/v1`;
      expect(await reportEndpointProblems(config(base), log)).toBeUndefined();
      expect(warnings()).toEqual([]);
      expect(server.requests.at(-1)).toMatchObject({ kind: 'models', method: 'GET' });
    } finally {
      proxy.closeAllConnections();
      await new Promise((resolve) => proxy.close(resolve));
    }
  });

  it('one line when the endpoint cannot be reached: start the server or set Endpoint.BaseUrl', async () => {
    const { log, warnings } = memoryLog();
    const base = `http://127.0.0.1:${await freePort()}/v1`;
    expect(await reportEndpointProblems(config(base), log)).toMatchObject({ name: 'endpoint' });
    expect(warnings()).toHaveLength(1);
    const msg = String(warnings()[0]!.msg);
    expect(msg).toContain(`GET ${base}/models failed`);
    expect(msg).toMatch(/ECONNREFUSED/);
    expect(msg).toContain('ollama serve');
    expect(msg).toContain('MeetingAssistant.Endpoint.BaseUrl');
  });

  it("a port Node's fetch refuses (6000) is a configuration error, not a server to wait for", async () => {
    // fetch refuses the port before connecting: nothing is sent anywhere.
    const base = 'http://127.0.0.1:6000/v1';
    const { log, warnings } = memoryLog();
    await reportEndpointProblems(config(base), log);
    const msg = String(warnings()[0]!.msg);
    expect(msg).toContain('meetings will fail until it is');
    expect(msg).toMatch(/bad port.*Fetch standard blocks.*run the model server on another port/);
    expect(msg).not.toContain('runs wait until it answers');
    // The wait for the endpoint lets the run go on (it would wait forever)…
    expect(await modelsProbe(config(base))(new AbortController().signal)).toBe(true);
    // …and the run's error says what to do.
    const client = new ChatCompletionsClient(config(base).settings.Endpoint, undefined);
    await expect(client.complete({ instructions: 'i', messages: [{ role: 'user', content: 'hi' }], tools: [], maxOutputTokens: 16 })).rejects.toThrow(
      /Could not reach the model endpoint .*bad port.*Fetch standard blocks/,
    );
  });

  it('one line when the model is not listed, naming close models; Ollama gets the ollama pull command', async () => {
    const { log, warnings } = memoryLog();
    await reportEndpointProblems(config(server.baseUrl, 'qwen3:8b'), log);
    expect(warnings()).toHaveLength(1);
    expect(String(warnings()[0]!.msg)).toMatch(/qwen3:8b is not listed; close names: qwen3:4b/);
    expect(String(warnings()[0]!.msg)).toContain('MeetingAssistant.Endpoint.Model');

    // An endpoint on Ollama's port: the fix names the pull command (the answer comes from a stub fetch).
    const ollama = memoryLog();
    const fetchStub: typeof fetch = async () => new Response(JSON.stringify({ object: 'list', data: [{ id: 'llama3.2:3b' }] }));
    await reportEndpointProblems(config('http://localhost:11434/v1', 'qwen3:8b'), ollama.log, { fetch: fetchStub });
    expect(String(ollama.warnings()[0]!.msg)).toContain('ollama pull qwen3:8b');
  });

  it('a model list of 40 MB is read no further than 32 MB (issue #24 point 8): one line, the read cancelled', async () => {
    let pulled = 0;
    const body = new ReadableStream<Uint8Array>({
      pull(controller) {
        pulled++;
        if (pulled === 1) controller.enqueue(new TextEncoder().encode('{"object":"list","data":[{"id":"qwen3:4b"}]'));
        else if (pulled <= 40) controller.enqueue(new Uint8Array(1024 * 1024).fill(0x20));
        else {
          controller.enqueue(new TextEncoder().encode('}'));
          controller.close();
        }
      },
    });
    const { log, warnings } = memoryLog();
    await reportEndpointProblems(config('http://127.0.0.1:9/v1'), log, { fetch: async () => new Response(body) });
    expect(pulled).toBeLessThanOrEqual(34);
    expect(warnings()).toHaveLength(1);
  });

  it('gives up after its short timeout, and stays quiet when the daemon stops first', async () => {
    const hanging: typeof fetch = (_url, init) =>
      new Promise((_resolve, reject) => init?.signal?.addEventListener('abort', () => reject(init.signal!.reason)));
    const slow = memoryLog();
    await reportEndpointProblems(config('http://127.0.0.1:9/v1'), slow.log, { fetch: hanging, timeoutMs: 50 });
    expect(String(slow.warnings()[0]!.msg)).toMatch(/did not answer within/);

    const stopped = memoryLog();
    const controller = new AbortController();
    const pending = reportEndpointProblems(config('http://127.0.0.1:9/v1'), stopped.log, { fetch: hanging, signal: controller.signal });
    controller.abort();
    expect(await pending).toBeUndefined();
    expect(stopped.warnings()).toEqual([]);
  });
});

import OpenAI, { APIConnectionError, APIError } from 'openai';
import { afterEach, describe, expect, it } from 'vitest';
import {
  contextLengthStep,
  errorBody,
  instructionsOf,
  lastToolResults,
  type ScriptedServer,
  startScriptedServer,
  toolCallsSoFar,
  userTexts,
} from './scripted-server.js';

let server: ScriptedServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

/** The error a request failed with; a request that succeeds fails the test. */
const failure = (p: Promise<unknown>): Promise<APIError> =>
  p.then(
    () => {
      throw new Error('expected the request to fail');
    },
    (e: unknown) => e as APIError,
  );

const sdk = (baseURL: string, apiKey = 'test-key') => new OpenAI({ baseURL, apiKey, maxRetries: 0, timeout: 5000 });

describe('scripted server', () => {
  it('answers chat completions with text, tool calls and usage in the chat shape', async () => {
    server = await startScriptedServer();
    server.script({
      reply: {
        content: 'hello',
        toolCalls: [
          { name: 'a', arguments: '{"x":1}', id: 'c1' },
          { name: 'b', arguments: { y: 2 } },
        ],
        usage: { input: 7, output: 3 },
      },
    });
    const out = await sdk(server.baseUrl).chat.completions.create({ model: 'm', messages: [{ role: 'user', content: 'hi' }] });
    const message = out.choices[0]!.message;
    expect(message.content).toBe('hello');
    expect(message.tool_calls?.map((c) => c.type === 'function' && c.function.name)).toEqual(['a', 'b']);
    expect(message.tool_calls?.[0]?.id).toBe('c1');
    expect((message.tool_calls?.[1] as unknown as { function: { arguments: unknown } } | undefined)?.function.arguments).toEqual({ y: 2 });
    expect(out.choices[0]!.finish_reason).toBe('tool_calls');
    expect(out.usage).toMatchObject({ prompt_tokens: 7, completion_tokens: 3 });
    expect(server.requests[0]).toMatchObject({ method: 'POST', path: '/v1/chat/completions', kind: 'chat', seq: 0 });
    expect(server.requests[0]!.body).toMatchObject({ model: 'm' });
  });

  it('answers responses requests with message and function_call items, and omits usage on null', async () => {
    server = await startScriptedServer();
    server.script({ reply: { content: 'text', toolCalls: [{ name: 'f', arguments: '{}', id: 'k' }], usage: null } });
    const out = await sdk(server.baseUrl).responses.create({ model: 'm', input: 'hi', store: false });
    expect(out.output.map((o) => o.type)).toEqual(['message', 'function_call']);
    expect(out.output_text).toBe('text');
    expect(out.output[1]).toMatchObject({ type: 'function_call', call_id: 'k', name: 'f', arguments: '{}' });
    expect(out.usage).toBeUndefined();
  });

  it('consumes model steps in order across both APIs, compact steps separately, then answers 500', async () => {
    server = await startScriptedServer();
    server.script({ reply: { content: 'one' } }, { reply: { content: 'two' } });
    server.scriptCompact({ compaction: { output: [{ type: 'compaction', encrypted_content: 'opaque' }] } });
    const client = sdk(server.baseUrl);
    const first = await client.chat.completions.create({ model: 'm', messages: [{ role: 'user', content: 'x' }] });
    const compact = await client.responses.compact({ model: 'm', input: 'x' } as never);
    const second = await client.responses.create({ model: 'm', input: 'x' });
    expect(first.choices[0]!.message.content).toBe('one');
    expect(compact).toMatchObject({ object: 'response.compaction', output: [{ type: 'compaction', encrypted_content: 'opaque' }] });
    expect(second.output_text).toBe('two');
    const third = client.chat.completions.create({ model: 'm', messages: [{ role: 'user', content: 'x' }] });
    await expect(third).rejects.toMatchObject({ status: 500, message: expect.stringMatching(/no step left/) });
    expect(server.requests.map((r) => r.kind)).toEqual(['chat', 'compact', 'responses', 'chat']);
  });

  it('uses the fallback step when the queue is empty', async () => {
    server = await startScriptedServer({ fallback: { reply: { content: 'always' } } });
    const client = sdk(server.baseUrl);
    for (let i = 0; i < 2; i++) {
      const out = await client.chat.completions.create({ model: 'm', messages: [{ role: 'user', content: 'x' }] });
      expect(out.choices[0]!.message.content).toBe('always');
    }
    expect(server.pending()).toBe(0);
  });

  it('lists the configured models', async () => {
    server = await startScriptedServer({ models: ['qwen3:8b', 'llama3'] });
    const page = await sdk(server.baseUrl).models.list();
    expect(page.data.map((m) => m.id)).toEqual(['qwen3:8b', 'llama3']);
  });

  it('answers 401 in OpenAI shape when requireKey does not match', async () => {
    server = await startScriptedServer({ requireKey: 'right' });
    server.script({ reply: { content: 'ok' } });
    await expect(sdk(server.baseUrl, 'wrong').models.list()).rejects.toMatchObject({
      status: 401,
      code: 'invalid_api_key',
    });
    const ok = await sdk(server.baseUrl, 'right').chat.completions.create({ model: 'm', messages: [] });
    expect(ok.choices[0]!.message.content).toBe('ok');
    expect(server.requests[1]!.headers.authorization).toBe('Bearer right');
  });

  it('sends error statuses with headers, OpenAI error bodies and HTML pages', async () => {
    server = await startScriptedServer();
    server.script(
      { status: 429, headers: { 'retry-after': '7' }, body: errorBody('Rate limit reached', { type: 'requests' }) },
      contextLengthStep(),
      { status: 502, body: '<html><body><h1>502 Bad Gateway</h1></body></html>' },
    );
    const client = sdk(server.baseUrl);
    const call = () => client.chat.completions.create({ model: 'm', messages: [] });
    const rate = await failure(call());
    expect(rate.status).toBe(429);
    expect(rate.headers?.get('retry-after')).toBe('7');
    expect(rate.message).toContain('Rate limit reached');
    await expect(call()).rejects.toMatchObject({ status: 400, code: 'context_length_exceeded' });
    const html = await failure(call());
    expect(html.status).toBe(502);
    expect(html.message).toContain('Bad Gateway');
  });

  it('resets, cuts bodies, sends invalid JSON, and delays', async () => {
    server = await startScriptedServer();
    server.script({ reset: true }, { resetMidBody: true }, { invalidJson: true }, { delayMs: 20, then: { reply: { content: 'late' } } });
    const client = sdk(server.baseUrl);
    const call = () => client.chat.completions.create({ model: 'm', messages: [] });
    await expect(call()).rejects.toBeInstanceOf(OpenAI.APIConnectionError);
    await expect(call()).rejects.toThrow();
    await expect(call()).rejects.toBeInstanceOf(SyntaxError);
    const late = await call();
    expect(late.choices[0]!.message.content).toBe('late');
    expect(server.requests).toHaveLength(4);
  });

  it('hangs until close(), counting open requests, and close() ends them', async () => {
    server = await startScriptedServer();
    server.script({ hang: true }, { hang: true });
    const client = sdk(server.baseUrl);
    const calls = [0, 1].map(() => client.chat.completions.create({ model: 'm', messages: [] }).catch((e: unknown) => e));
    await server.waitForRequest((r) => r.seq === 1);
    expect(server.inFlight).toBe(2);
    expect(server.maxInFlight).toBe(2);
    await server.close();
    const results = await Promise.all(calls);
    for (const r of results) expect(r).toBeInstanceOf(OpenAI.APIConnectionError);
    expect(server.inFlight).toBe(0);
  });

  it('lets a handler step decide from the tool results in the request', async () => {
    server = await startScriptedServer();
    server.setFallback({
      handler: (req) => {
        const results = lastToolResults(req);
        if (results.length === 0) return { reply: { toolCalls: [{ name: 'read', arguments: '{"from":1}', id: 'r1' }] } };
        return { reply: { content: `got ${results.map((r) => `${r.name}=${r.output}`).join(',')}` } };
      },
    });
    const client = sdk(server.baseUrl);
    const first = await client.responses.create({ model: 'm', instructions: 'be brief', input: 'go' });
    expect(first.output[0]).toMatchObject({ type: 'function_call', call_id: 'r1' });
    const second = await client.responses.create({
      model: 'm',
      instructions: 'be brief',
      input: [
        { role: 'user', content: 'go' },
        { type: 'function_call', call_id: 'r1', name: 'read', arguments: '{"from":1}' },
        { type: 'function_call_output', call_id: 'r1', output: 'line 1' },
      ],
    });
    expect(second.output_text).toBe('got read=line 1');
    const req = server.modelRequests()[1]!;
    expect(toolCallsSoFar(req)).toEqual([{ id: 'r1', name: 'read', arguments: '{"from":1}' }]);
    expect(instructionsOf(req)).toBe('be brief');
    expect(userTexts(req)).toEqual(['go']);
  });

  it('reads tool calls and results of a chat conversation', async () => {
    server = await startScriptedServer({ fallback: { reply: { content: 'ok' } } });
    await sdk(server.baseUrl).chat.completions.create({
      model: 'm',
      messages: [
        { role: 'system', content: 'sys' },
        { role: 'user', content: 'u' },
        {
          role: 'assistant',
          content: null,
          tool_calls: [
            { id: 'a', type: 'function', function: { name: 'one', arguments: '{}' } },
            { id: 'b', type: 'function', function: { name: 'two', arguments: '{"q":1}' } },
          ],
        },
        { role: 'tool', tool_call_id: 'a', content: 'r-a' },
        { role: 'tool', tool_call_id: 'b', content: 'r-b' },
      ],
    });
    const req = server.requests[0]!;
    expect(instructionsOf(req)).toBe('sys');
    expect(toolCallsSoFar(req).map((c) => c.id)).toEqual(['a', 'b']);
    expect(lastToolResults(req)).toEqual([
      { callId: 'a', name: 'one', output: 'r-a' },
      { callId: 'b', name: 'two', output: 'r-b' },
    ]);
  });

  it('close() ends delayed and hanging requests and pending waits, and the port stops accepting', async () => {
    server = await startScriptedServer();
    server.script({ delayMs: 3_600_000, then: { reply: { content: 'never' } } }, { handler: () => ({ hang: true }) });
    const client = sdk(server.baseUrl);
    const calls = [0, 1].map(() => client.chat.completions.create({ model: 'm', messages: [] }).then(() => 'answered', () => 'failed'));
    await server.waitForRequest((r) => r.seq === 1);
    const waiting = server.waitForRequest((r) => r.seq === 5, 3_600_000).then(() => 'matched', (e: Error) => e.message);
    const url = server.baseUrl;
    await server.close();
    expect(await Promise.all(calls)).toEqual(['failed', 'failed']);
    expect(await waiting).toMatch(/closed/);
    await expect(sdk(url).models.list()).rejects.toBeInstanceOf(APIConnectionError);
  });

  it('waitForRequest rejects after its deadline when nothing matches', async () => {
    server = await startScriptedServer();
    await expect(server.waitForRequest(() => true, 20)).rejects.toThrow(/no matching request/);
  });
});

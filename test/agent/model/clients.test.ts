import { modelFailure } from '../../helpers/model-errors.js';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { ChatCompletionsClient } from '../../../src/agent/model/chat-completions.js';
import { createModelClient } from '../../../src/agent/model/client.js';
import { ResponsesClient } from '../../../src/agent/model/responses.js';
import { stripThinking } from '../../../src/agent/model/answers/strip-thinking.js';
import { type Message, type ModelClient, type ModelRequest } from '../../../src/agent/types.js';
import { withRetries } from '../../../src/agent/model/retry.js';
import { retryAfterMs } from '../../../src/agent/model/exchange.js';
import { silentLogger } from '../../../src/log.js';
import { testConfig } from '../../helpers/memfs.js';
import {
  contextLengthStep,
  errorBody,
  instructionsOf,
  lastToolResults,
  type RecordedRequest,
  type ScriptedServer,
  startScriptedServer,
  toolCallsSoFar,
  userTexts,
} from '../../helpers/scripted-server.js';

type Api = 'chat-completions' | 'responses';
type Body = Record<string, unknown>;

const SECRET_KEY = 'sk-test-0123456789abcdef';

const TOOLS = [
  {
    name: 'read_transcript',
    description: 'Read lines of the transcript.',
    parameters: { type: 'object', properties: { from: { type: 'integer' } }, required: [] },
  },
];

function request(messages: Message[] = [{ role: 'user', content: 'Summarize the meeting.' }], extra: Partial<ModelRequest> = {}): ModelRequest {
  return { instructions: 'You are the meeting assistant.', messages, tools: TOOLS, maxOutputTokens: 1234, ...extra };
}


let server: ScriptedServer;
beforeEach(async () => {
  server = await startScriptedServer({ models: ['qwen3:8b'] });
});
afterEach(async () => {
  await server.close();
});

describe.each<Api>(['chat-completions', 'responses'])('%s client against the scripted server', (api) => {
  const client = (endpoint: Record<string, unknown> = {}): ModelClient =>
    createModelClient(
      testConfig({
        Endpoint: { BaseUrl: server.baseUrl, Model: 'qwen3:8b', Api: api, TimeoutSeconds: 5, ApiKeyEnvironmentVariable: '', ...endpoint },
      }),
    );
  const body = (req: RecordedRequest | undefined): Body => req!.body as Body;

  it('is the client for the configured Endpoint.Api', () => {
    const c = client();
    expect(c.api).toBe(api);
    expect(c).toBeInstanceOf(api === 'responses' ? ResponsesClient : ChatCompletionsClient);
  });

  it('returns a text answer with its finish reason and no tool calls', async () => {
    server.script({ reply: { content: 'The meeting decided to ship.' } });
    const answer = await client().complete(request());
    expect(answer).toEqual({
      content: 'The meeting decided to ship.',
      toolCalls: [],
      usage: { inputTokens: 10, outputTokens: 5 },
      finishReason: 'stop',
    });
    expect(server.requests[0]!.kind).toBe(api === 'responses' ? 'responses' : 'chat');
  });

  it('returns several tool calls of one turn in order, with empty content', async () => {
    server.script({
      reply: {
        toolCalls: [
          { name: 'read_transcript', arguments: '{"from":1}', id: 'call_a' },
          { name: 'read_meeting', arguments: '{}', id: 'call_b' },
          { name: 'list_projects', arguments: '{"q":"x"}', id: 'call_c' },
        ],
      },
    });
    const answer = await client().complete(request());
    expect(answer.content).toBe('');
    expect(answer.toolCalls).toEqual([
      { id: 'call_a', name: 'read_transcript', arguments: '{"from":1}' },
      { id: 'call_b', name: 'read_meeting', arguments: '{}' },
      { id: 'call_c', name: 'list_projects', arguments: '{"q":"x"}' },
    ]);
    expect(answer.finishReason).toBe('tool_calls');
  });

  it('strips <think> blocks from the content and ignores reasoning fields', async () => {
    server.script({
      reply: {
        content: '<think>\nThe user wants a summary. Let me plan.\n</think>\n\nHere is the summary.',
        reasoning: 'hidden chain of thought',
      },
    });
    const answer = await client().complete(request());
    expect(answer.content).toBe('Here is the summary.');
  });

  it('keeps invalid-JSON tool arguments as raw text', async () => {
    server.script({ reply: { toolCalls: [{ name: 'read_transcript', arguments: '{"from": 1,', id: 'c1' }] } });
    const answer = await client().complete(request());
    expect(answer.toolCalls[0]!.arguments).toBe('{"from": 1,');
  });

  it('stringifies tool arguments sent as a JSON object', async () => {
    server.script({ reply: { toolCalls: [{ name: 'read_transcript', arguments: { from: 3, to: 9 }, id: 'c1' }] } });
    const answer = await client().complete(request());
    expect(JSON.parse(answer.toolCalls[0]!.arguments)).toEqual({ from: 3, to: 9 });
    expect(typeof answer.toolCalls[0]!.arguments).toBe('string');
  });

  it('generates distinct ids for tool calls sent without one', async () => {
    server.script(
      { reply: { toolCalls: [{ name: 'a', arguments: '{}', id: null }, { name: 'b', arguments: '{}', id: null }] } },
      { reply: { toolCalls: [{ name: 'a', arguments: '{}', id: null }] } },
    );
    const c = client();
    const first = await c.complete(request());
    const second = await c.complete(request());
    const ids = [...first.toolCalls, ...second.toolCalls].map((call) => call.id);
    for (const id of ids) expect(id).toMatch(/\S/);
    expect(new Set(ids).size).toBe(3);
  });

  it('reports usage when the endpoint sends it and undefined when it does not', async () => {
    server.script({ reply: { content: 'a', usage: { input: 1200, output: 80 } } }, { reply: { content: 'b', usage: null } });
    const c = client();
    expect((await c.complete(request())).usage).toEqual({ inputTokens: 1200, outputTokens: 80 });
    expect((await c.complete(request())).usage).toBeUndefined();
  });

  it('maps a cut-off answer to finish reason length', async () => {
    server.script({ reply: { content: 'half a sum', finishReason: 'length' } });
    expect((await client().complete(request())).finishReason).toBe('length');
  });

  it('sends instructions, model, output limit and tools in the wire shape', async () => {
    server.script({ reply: { content: 'ok' } });
    await client().complete(request());
    const req = server.requests[0]!;
    const sent = body(req);
    expect(sent.model).toBe('qwen3:8b');
    expect(instructionsOf(req)).toBe('You are the meeting assistant.');
    expect(userTexts(req)).toEqual(['Summarize the meeting.']);
    expect(sent.stream).toBeUndefined();
    if (api === 'responses') {
      expect(req.path).toBe('/v1/responses');
      expect(sent.max_output_tokens).toBe(1234);
      expect(sent.store).toBe(false);
      expect(sent.tools).toEqual([
        { type: 'function', name: 'read_transcript', description: TOOLS[0]!.description, parameters: TOOLS[0]!.parameters, strict: false },
      ]);
    } else {
      expect(req.path).toBe('/v1/chat/completions');
      expect(sent.max_tokens).toBe(1234);
      expect((sent.messages as Body[])[0]).toEqual({ role: 'system', content: 'You are the meeting assistant.' });
      expect(sent.tools).toEqual([
        { type: 'function', function: { name: 'read_transcript', description: TOOLS[0]!.description, parameters: TOOLS[0]!.parameters } },
      ]);
    }
  });

  it('sends earlier tool calls and their results back with matching ids', async () => {
    server.script({ reply: { content: 'done' } });
    await client().complete(
      request([
        { role: 'user', content: 'Summarize.' },
        {
          role: 'assistant',
          content: '',
          toolCalls: [
            { id: 'call_1', name: 'read_transcript', arguments: '{"from":1}' },
            { id: 'call_2', name: 'read_meeting', arguments: '{}' },
          ],
        },
        { role: 'tool', toolCallId: 'call_1', name: 'read_transcript', content: '1: Alice: hello' },
        { role: 'tool', toolCallId: 'call_2', name: 'read_meeting', content: 'title: Standup' },
      ]),
    );
    const req = server.requests[0]!;
    expect(toolCallsSoFar(req)).toEqual([
      { id: 'call_1', name: 'read_transcript', arguments: '{"from":1}' },
      { id: 'call_2', name: 'read_meeting', arguments: '{}' },
    ]);
    expect(lastToolResults(req)).toEqual([
      { callId: 'call_1', name: 'read_transcript', output: '1: Alice: hello' },
      { callId: 'call_2', name: 'read_meeting', output: 'title: Standup' },
    ]);
    const sent = body(req);
    if (api === 'responses') {
      const input = sent.input as Body[];
      expect(input.map((i) => i.type)).toEqual(['message', 'function_call', 'function_call', 'function_call_output', 'function_call_output']);
    } else {
      const assistant = (sent.messages as Body[])[2]!;
      expect(assistant.role).toBe('assistant');
      expect(assistant.content).toBeNull();
      expect((sent.messages as Body[])[3]).toEqual({ role: 'tool', tool_call_id: 'call_1', content: '1: Alice: hello' });
    }
  });

  it('sends assistant text turns as assistant messages', async () => {
    server.script({ reply: { content: 'ok' } });
    await client().complete(
      request([
        { role: 'user', content: 'Summarize.' },
        { role: 'assistant', content: 'I summarized it.' },
        { role: 'user', content: 'Call write_summary, please.' },
      ]),
    );
    const sent = body(server.requests[0]);
    const items = (api === 'responses' ? sent.input : (sent.messages as Body[]).slice(1)) as Body[];
    expect(items.map((i) => [i.role, i.content])).toEqual([
      ['user', 'Summarize.'],
      ['assistant', 'I summarized it.'],
      ['user', 'Call write_summary, please.'],
    ]);
  });

  it('handles compaction items according to the wire API', async () => {
    server.script({ reply: { content: 'ok' } });
    const messages: Message[] = [
      { role: 'compaction', encryptedContent: 'gAAAA-opaque', id: 'cmp_1' },
      { role: 'user', content: 'Continue.' },
    ];
    if (api === 'responses') {
      await client().complete(request(messages));
      expect((body(server.requests[0]).input as Body[])[0]).toEqual({
        type: 'compaction',
        encrypted_content: 'gAAAA-opaque',
        id: 'cmp_1',
      });
    } else {
      await expect(client().complete(request(messages))).rejects.toThrow(/compaction item cannot be sent over the chat-completions API/);
      expect(server.requests).toHaveLength(0);
    }
  });

  it('sends Authorization only when an API key is configured', async () => {
    server.script({ reply: { content: 'a' } }, { reply: { content: 'b' } });
    await client({ ApiKey: SECRET_KEY }).complete(request());
    await client({ ApiKey: '' }).complete(request());
    expect(server.requests[0]!.headers.authorization).toBe(`Bearer ${SECRET_KEY}`);
    expect(server.requests[1]!.headers.authorization).toBeUndefined();
  });

  it('omits tools from the request when there are none', async () => {
    server.script({ reply: { content: 'a' } });
    await client().complete(request(undefined, { tools: [] }));
    expect(body(server.requests[0]).tools).toBeUndefined();
  });

  describe('error mapping', () => {
    it.each([500, 502, 503, 408])('HTTP %i is a transient http error with the server message', async (status) => {
      server.script({ status, body: errorBody(`upstream trouble ${status}`, { type: 'server_error' }) });
      const err = await modelFailure(client().complete(request()));
      expect(err).toMatchObject({ kind: 'http', status, transient: true });
      expect(err.message).toContain(`upstream trouble ${status}`);
    });

    it('HTTP 429 is transient and carries Retry-After', async () => {
      server.script({ status: 429, headers: { 'retry-after': '12' }, body: errorBody('Rate limit reached for requests') });
      const err = await modelFailure(client().complete(request()));
      expect(err).toMatchObject({ kind: 'http', status: 429, transient: true, retryAfterMs: 12_000 });
      expect(err.message).toContain('Rate limit reached');
    });

    it('a Retry-After date is measured against the clock the client was given', async () => {
      server.script({ status: 503, headers: { 'retry-after': 'Thu, 01 Jan 2026 00:00:30 GMT' } });
      const config = testConfig({ Endpoint: { BaseUrl: server.baseUrl, Model: 'qwen3:8b', Api: api, TimeoutSeconds: 5, ApiKeyEnvironmentVariable: '' } });
      const at = () => new Date('2026-01-01T00:00:00Z');
      expect((await modelFailure(createModelClient(config, at).complete(request()))).retryAfterMs).toBe(30_000);
    });

    it('retry-after-ms wins over retry-after', async () => {
      server.script({ status: 503, headers: { 'retry-after-ms': '1500', 'retry-after': '9' } });
      expect((await modelFailure(client().complete(request()))).retryAfterMs).toBe(1500);
    });

    it('HTTP 400 with the context-length text is not transient and is recognised as context too long', async () => {
      server.script(contextLengthStep());
      const err = await modelFailure(client().complete(request()));
      expect(err).toMatchObject({ kind: 'http', status: 400, transient: false, contextTooLong: true });
      expect(err.message).toContain('maximum context length is 8192 tokens');
    });

    it('HTTP 400 for another reason is not transient and not context too long', async () => {
      server.script({ status: 400, body: errorBody("Invalid value for 'tools'", { param: 'tools' }) });
      const err = await modelFailure(client().complete(request()));
      expect(err).toMatchObject({ kind: 'http', status: 400, transient: false, contextTooLong: false });
      expect(err.message).toContain("Invalid value for 'tools'");
    });

    it('an error body without OpenAI\'s wrapper (older vLLM) keeps its message, so context too long is recognised', async () => {
      server.script({
        status: 400,
        body: {
          object: 'error',
          message: "This model's maximum context length is 4096 tokens. However, you requested 5000 tokens.",
          type: 'BadRequestError',
          code: 400,
        },
      });
      const err = await modelFailure(client().complete(request()));
      expect(err).toMatchObject({ kind: 'http', status: 400, contextTooLong: true });
      expect(err.message).toContain('maximum context length is 4096 tokens');
    });

    it('an error body whose error is a plain string (LM Studio, Ollama) keeps its message', async () => {
      server.script({ status: 404, body: { error: "model 'qwen3:8b' not found, try pulling it first" } });
      const err = await modelFailure(client().complete(request()));
      expect(err.message).toContain("model 'qwen3:8b' not found, try pulling it first");
    });

    it('HTTP 401 says the key is wrong, names the settings, and never shows the key', async () => {
      await server.close();
      server = await startScriptedServer({ requireKey: 'the-right-key' });
      const err = await modelFailure(
        client({ ApiKey: SECRET_KEY, ApiKeyEnvironmentVariable: 'OPENAI_API_KEY' }).complete(request()),
      );
      expect(err).toMatchObject({ kind: 'http', status: 401, transient: false });
      expect(err.message).toContain('Incorrect API key');
      expect(err.message).toMatch(/API key is wrong/);
      expect(err.message).toContain('Endpoint.ApiKey');
      expect(err.message).toContain('OPENAI_API_KEY');
      expect(err.message).not.toContain(SECRET_KEY);
    });

    it('HTTP 401 without a key says the key is missing', async () => {
      await server.close();
      server = await startScriptedServer({ requireKey: 'the-right-key' });
      const err = await modelFailure(client({ ApiKey: '' }).complete(request()));
      expect(err.message).toMatch(/API key is missing/);
      expect(err.message).toContain('Endpoint.ApiKey');
    });

    it('a server message that echoes the key is masked', async () => {
      server.script({ status: 403, body: errorBody(`key ${SECRET_KEY} may not use this model`) });
      const err = await modelFailure(client({ ApiKey: SECRET_KEY }).complete(request()));
      expect(err).toMatchObject({ status: 403, transient: false });
      expect(err.message).not.toContain(SECRET_KEY);
      expect(err.message).toContain('[redacted]');
    });

    it('HTTP 404 names the model and BaseUrl', async () => {
      server.script({ status: 404, body: errorBody("model 'qwen3:8b' not found", { code: 'model_not_found' }) });
      const err = await modelFailure(client().complete(request()));
      expect(err).toMatchObject({ kind: 'http', status: 404, transient: false });
      expect(err.message).toContain('"qwen3:8b"');
      expect(err.message).toContain('Endpoint.Model');
      expect(err.message).toContain(`Endpoint.BaseUrl (${server.baseUrl})`);
    });

    it('an HTML 502 page from a proxy is a transient http error with its text, not its markup', async () => {
      server.script({
        status: 502,
        body: '<html><head><title>502 Bad Gateway</title></head><body><center><h1>502 Bad Gateway</h1></center><hr><center>nginx</center></body></html>',
      });
      const err = await modelFailure(client().complete(request()));
      expect(err).toMatchObject({ kind: 'http', status: 502, transient: true });
      expect(err.message).toContain('502 Bad Gateway');
      expect(err.message).not.toContain('<');
    });

    it('an HTML page with status 200 is an invalid response, transient like a 5xx', async () => {
      server.script({ status: 200, body: '<html><body>Welcome to nginx!</body></html>' });
      const err = await modelFailure(client().complete(request()));
      expect(err).toMatchObject({ kind: 'invalid-response', transient: true });
      expect(err.message).toContain('Welcome to nginx!');
    });

    it('invalid JSON in a 200 is a transient invalid response (a proxy, a server restarting)', async () => {
      server.script({ invalidJson: true });
      const err = await modelFailure(client().complete(request()));
      expect(err).toMatchObject({ kind: 'invalid-response', transient: true });
      expect(err.message).toMatch(/not JSON/);
    });

    it('invalid JSON in a 200 is retried like a 5xx: the next answer is used', async () => {
      server.script({ invalidJson: true }, { status: 200, body: '<html>restarting</html>' }, { reply: { content: 'Shipped.' } });
      const waits: number[] = [];
      const retrying = withRetries(client(), {
        attempts: 2,
        delayMs: 1000,
        log: silentLogger,
        sleep: async (ms) => void waits.push(ms),
      });
      const answer = await retrying.complete(request());
      expect(answer.content).toBe('Shipped.');
      expect(waits).toEqual([1000, 1000]);
      expect(server.requests.filter((r) => r.kind === (api === 'responses' ? 'responses' : 'chat'))).toHaveLength(3);
    });

    it('JSON without a completion is an invalid response', async () => {
      server.script({ status: 200, body: { object: 'list', data: [] } });
      const err = await modelFailure(client().complete(request()));
      expect(err).toMatchObject({ kind: 'invalid-response', transient: false });
      expect(err.message).toMatch(api === 'responses' ? /no output/ : /no choices/);
    });

    it('a reset connection is a transient network error', async () => {
      server.script({ reset: true });
      const err = await modelFailure(client().complete(request()));
      expect(err).toMatchObject({ kind: 'network', transient: true });
      expect(err.message).toContain(server.baseUrl);
    });

    it('a connection cut in the middle of the body is a transient network error', async () => {
      server.script({ resetMidBody: true });
      expect(await modelFailure(client().complete(request()))).toMatchObject({ kind: 'network', transient: true });
    });

    it('a refused connection is a transient network error', async () => {
      const url = server.baseUrl;
      await server.close();
      server = await startScriptedServer();
      const err = await modelFailure(client({ BaseUrl: url }).complete(request()));
      expect(err).toMatchObject({ kind: 'network', transient: true });
    });

    it('no answer within Endpoint.TimeoutSeconds is a transient timeout', async () => {
      server.script({ hang: true });
      const err = await modelFailure(client({ TimeoutSeconds: 0.3 }).complete(request()));
      expect(err).toMatchObject({ kind: 'timeout', transient: true });
      expect(err.message).toContain('Endpoint.TimeoutSeconds');
    });

    it('aborting the signal gives an aborted error that is not retried', async () => {
      server.script({ hang: true });
      const controller = new AbortController();
      const pending = client().complete(request(undefined, { signal: controller.signal }));
      await server.waitForRequest();
      controller.abort();
      const err = await modelFailure(pending);
      expect(err).toMatchObject({ kind: 'aborted', transient: false });
    });
  });
});

describe('stripThinking', () => {
  it('removes closed blocks anywhere and trims', () => {
    expect(stripThinking('<think>a</think>Answer <think>b\nc</think> here.\n')).toBe('Answer  here.');
  });
  it('removes text before an orphan closing tag (opening tag was in the prompt)', () => {
    expect(stripThinking('planning...\n</think>\n\nThe answer.')).toBe('The answer.');
  });
  it('treats an unclosed leading <think> as all thinking', () => {
    expect(stripThinking('<think>I was cut off while')).toBe('');
  });
  it('takes an opening never closed after some text for reasoning to the end (as a stream hides it)', () => {
    expect(stripThinking('The answer.\n<think>but wait, maybe I should')).toBe('The answer.');
    expect(stripThinking('<think>a</think>The answer. <thinking>cut off')).toBe('The answer.');
  });
  it('leaves text without tags alone', () => {
    expect(stripThinking('  plain text  ')).toBe('plain text');
  });
});

describe('retryAfterMs', () => {
  const headers = (h: Record<string, string>) => new Headers(h);
  it('reads seconds, milliseconds and HTTP dates', () => {
    expect(retryAfterMs(headers({ 'retry-after': '3' }))).toBe(3000);
    expect(retryAfterMs(headers({ 'retry-after-ms': '250' }))).toBe(250);
    const now = Date.parse('2025-01-01T00:00:00Z');
    expect(retryAfterMs(headers({ 'retry-after': 'Wed, 01 Jan 2025 00:00:20 GMT' }), () => new Date(now))).toBe(20_000);
  });
  it('is undefined without a usable header', () => {
    expect(retryAfterMs(headers({}))).toBeUndefined();
    expect(retryAfterMs(headers({ 'retry-after': 'soon' }))).toBeUndefined();
  });
});

import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createModelClient } from '../../../src/agent/model/client.js';
import { VisibleText } from '../../../src/agent/model/answers/visible-text.js';
import { ModelError, type ModelClient, type ModelRequest } from '../../../src/agent/types.js';
import { testConfig } from '../../helpers/memfs.js';
import { type ScriptedServer, startScriptedServer } from '../../helpers/scripted-server.js';

/** The stream path of both model clients (docs/design.md §11): the answer's text as it arrives, the response as without. */

type Api = 'chat-completions' | 'responses';

const TOOLS = [{ name: 'list_meetings', description: 'List meetings.', parameters: { type: 'object', properties: { project: { type: 'string' } } } }];

function request(onText: (text: string) => void): ModelRequest {
  return { instructions: 'Answer.', messages: [{ role: 'user', content: 'What did we decide?' }], tools: TOOLS, maxOutputTokens: 100, onText };
}

let server: ScriptedServer;
beforeEach(async () => {
  server = await startScriptedServer();
});
afterEach(async () => {
  await server.close();
});

describe.each<Api>(['chat-completions', 'responses'])('%s: a streamed answer', (api) => {
  const client = (baseUrl = server.baseUrl): ModelClient =>
    createModelClient(testConfig({ Endpoint: { BaseUrl: baseUrl, Model: 'test-model', Api: api, TimeoutSeconds: 60, ApiKeyEnvironmentVariable: '' } }));

  it('hands on the text piece by piece and returns the same response as the whole answer would', async () => {
    server.script({ reply: { content: 'We decided to ship in December.', usage: { input: 40, output: 9 }, stream: { pieces: ['We decided', ' to ship', ' in December.'] } } });
    const pieces: string[] = [];
    const answer = await client().complete(request((t) => pieces.push(t)));
    expect(pieces).toEqual(['We decided', ' to ship', ' in December.']);
    expect(answer).toEqual({ content: 'We decided to ship in December.', toolCalls: [], usage: { inputTokens: 40, outputTokens: 9 }, finishReason: 'stop' });
    const body = server.modelRequests()[0]!.body as Record<string, unknown>;
    expect(body.stream).toBe(true);
    if (api === 'chat-completions') expect(body.stream_options).toEqual({ include_usage: true });
  });

  it('joins tool calls sent in pieces', async () => {
    server.script({ reply: { toolCalls: [{ name: 'list_meetings', arguments: { project: 'Alpha' } }, { name: 'list_meetings', arguments: '{}' }] } });
    const pieces: string[] = [];
    const answer = await client().complete(request((t) => pieces.push(t)));
    expect(pieces).toEqual([]);
    expect(answer.toolCalls.map((c) => [c.name, JSON.parse(c.arguments)])).toEqual([
      ['list_meetings', { project: 'Alpha' }],
      ['list_meetings', {}],
    ]);
    expect(answer.finishReason).toBe('tool_calls');
  });

  it('holds back a reasoning block, even one whose tags are split across pieces', async () => {
    server.script({ reply: { content: '<think>the user wants X</think>\n\nThe answer.', stream: { pieces: ['<thi', 'nk>the user', ' wants X</th', 'ink>\n\nThe', ' answer.'] } } });
    const pieces: string[] = [];
    const answer = await client().complete(request((t) => pieces.push(t)));
    expect(pieces.join('')).toBe('The answer.');
    expect(answer.content).toBe('The answer.');
  });

  it('a server that ignores `stream` and sends one whole answer: its text is handed on at once', async () => {
    const plain = http.createServer((req, res) => {
      req.resume();
      req.on('end', () => {
        const body =
          api === 'responses'
            ? { id: 'r', object: 'response', status: 'completed', output: [{ type: 'message', role: 'assistant', content: [{ type: 'output_text', text: 'Whole.' }] }] }
            : { id: 'c', object: 'chat.completion', choices: [{ index: 0, message: { role: 'assistant', content: 'Whole.' }, finish_reason: 'stop' }] };
        res.writeHead(200, { 'content-type': 'application/json' });
        res.end(JSON.stringify(body));
      });
    });
    await new Promise<void>((resolve) => plain.listen(0, '127.0.0.1', resolve));
    try {
      const pieces: string[] = [];
      const answer = await client(`http://127.0.0.1:${(plain.address() as AddressInfo).port}/v1`).complete(request((t) => pieces.push(t)));
      expect(pieces).toEqual(['Whole.']);
      expect(answer.content).toBe('Whole.');
    } finally {
      plain.closeAllConnections();
      await new Promise((resolve) => plain.close(resolve));
    }
  });

  const cutServer = async (events: unknown[]): Promise<http.Server> => {
    const cut = http.createServer((req, res) => {
      req.resume();
      req.on('end', () => {
        res.writeHead(200, { 'content-type': 'text/event-stream' });
        res.end(events.map((e) => `data: ${JSON.stringify(e)}\n\n`).join(''));
      });
    });
    await new Promise<void>((resolve) => cut.listen(0, '127.0.0.1', resolve));
    return cut;
  };
  const failureOf = async (cut: http.Server): Promise<ModelError> => {
    try {
      return (await client(`http://127.0.0.1:${(cut.address() as AddressInfo).port}/v1`)
        .complete(request(() => {}))
        .catch((e: unknown) => e)) as ModelError;
    } finally {
      cut.closeAllConnections();
      await new Promise((resolve) => cut.close(resolve));
    }
  };

  it('a stream cut before any text was shown is a transient invalid response (retried like a body cut in the middle)', async () => {
    const event = api === 'responses' ? { type: 'response.created', response: { status: 'in_progress', output: [] } } : { choices: [{ index: 0, delta: { role: 'assistant' }, finish_reason: null }] };
    const err = await failureOf(await cutServer([event]));
    expect(err).toBeInstanceOf(ModelError);
    expect(err.kind).toBe('invalid-response');
    expect(err.transient).toBe(true);
    expect(err.message).toMatch(/stream ended before/);
  });

  it('a stream cut after text was shown is not retried: the person would see that part twice', async () => {
    const event = api === 'responses' ? { type: 'response.output_text.delta', delta: 'Half' } : { choices: [{ index: 0, delta: { content: 'Half' }, finish_reason: null }] };
    const err = await failureOf(await cutServer([event]));
    expect(err.kind).toBe('invalid-response');
    expect(err.transient).toBe(false);
    expect(err.message).toMatch(/broke after part of the answer was shown/);
  });

  it('an error status is the same ModelError as without streaming', async () => {
    server.script({ status: 404, body: { error: { message: 'model "test-model" not found', type: 'not_found', param: null, code: null } } });
    const err = await client()
      .complete(request(() => {}))
      .catch((e: unknown) => e);
    expect((err as ModelError).status).toBe(404);
    expect((err as ModelError).message).toMatch(/Endpoint\.Model/);
  });
});

describe('VisibleText', () => {
  const run = (pieces: string[]): string => {
    const v = new VisibleText();
    return pieces.map((p) => v.push(p)).join('') + v.end();
  };
  it('drops the blank start and think blocks anywhere; keeps a lone "<" that is no tag', () => {
    expect(run(['  \n', 'Hi', ' <', 'b> and 1 < 2'])).toBe('Hi <b> and 1 < 2');
    expect(run(['<thinking>x', '</thinking>', 'A', '<think>y</think>B'])).toBe('AB');
    expect(run(['<think>never closed'])).toBe('');
    expect(run(['ends with <'])).toBe('ends with <');
  });
});

describe('VisibleText and calls written as text (docs/design.md §3 step 11)', () => {
  const run = (pieces: string[]): { text: string; suppressed: boolean } => {
    const v = new VisibleText();
    const text = pieces.map((p) => v.push(p)).join('') + v.end();
    return { text, suppressed: v.suppressed };
  };
  it('shows the text before a call marker and nothing from it on, even a marker split across pieces', () => {
    expect(run(['Let me read it. <tool', '_call>\n{"name": "read_meeting", "arguments": {}}</tool_call>'])).toEqual({ text: 'Let me read it. ', suppressed: true });
    expect(run(['[TOOL_', 'CALLS]search[ARGS]{"query": "x"}'])).toEqual({ text: '', suppressed: true });
    expect(run(['<|channel|>analysis<|message|>thinking<|end|>'])).toEqual({ text: '', suppressed: true });
  });
  it('holds an answer that starts like a call object or a fence to its end', () => {
    expect(run(['{"name": "list_meetings", ', '"arguments": {}}'])).toEqual({ text: '', suppressed: true });
    expect(run(['`', '``json\n{"name": "x"}\n```'])).toEqual({ text: '', suppressed: true });
  });
  it('plain text, wiki links and brackets stream as before', () => {
    expect(run(['[[Meetings/Sync]] said', ' [1] and a<b'])).toEqual({ text: '[[Meetings/Sync]] said [1] and a<b', suppressed: false });
  });
});

describe.each<'chat-completions' | 'responses'>(['chat-completions', 'responses'])('%s: a call written as text in a stream', (api) => {
  it('is never shown; the calls come back structured', async () => {
    server.script({ reply: { content: '<tool_call>\n{"name": "list_meetings", "arguments": {"project": "Alpha"}}\n</tool_call>' } });
    const pieces: string[] = [];
    const model = createModelClient(testConfig({ Endpoint: { BaseUrl: server.baseUrl, Model: 'm', Api: api, TimeoutSeconds: 5, ApiKeyEnvironmentVariable: '' } }));
    const answer = await model.complete({
      instructions: 'i',
      messages: [{ role: 'user', content: 'q' }],
      tools: [{ name: 'list_meetings', description: 'd', parameters: { type: 'object', properties: { project: { type: 'string' } } } }],
      maxOutputTokens: 100,
      onText: (t) => pieces.push(t),
    });
    expect(pieces).toEqual([]);
    expect(answer.toolCalls.map((c) => [c.name, JSON.parse(c.arguments)])).toEqual([['list_meetings', { project: 'Alpha' }]]);
  });

  const TOOL = { name: 'list_meetings', description: 'd', parameters: { type: 'object', properties: { project: { type: 'string' } } } };
  it('an answer that only quotes a call marker, after some text was shown, is shown to its end (nothing twice)', async () => {
    const text = 'The server left `<tool_call>{"name": "list_meetings", "arguments": {}}</tool_call>` in the content, so its parser missed it.';
    server.script({ reply: { content: text } });
    const pieces: string[] = [];
    const model = createModelClient(testConfig({ Endpoint: { BaseUrl: server.baseUrl, Model: 'm', Api: api, TimeoutSeconds: 5, ApiKeyEnvironmentVariable: '' } }));
    const answer = await model.complete({ instructions: 'i', messages: [{ role: 'user', content: 'q' }], tools: [TOOL], maxOutputTokens: 100, onText: (t) => pieces.push(t) });
    expect(answer.toolCalls).toEqual([]);
    expect(answer.content).toBe(text);
    expect(pieces.join('')).toBe(text);
  });

  it('text before a real call is shown once, the call never', async () => {
    server.script({ reply: { content: 'Let me look.\n<tool_call>\n{"name": "list_meetings", "arguments": {"project": "Alpha"}}\n</tool_call>' } });
    const pieces: string[] = [];
    const model = createModelClient(testConfig({ Endpoint: { BaseUrl: server.baseUrl, Model: 'm', Api: api, TimeoutSeconds: 5, ApiKeyEnvironmentVariable: '' } }));
    const answer = await model.complete({ instructions: 'i', messages: [{ role: 'user', content: 'q' }], tools: [TOOL], maxOutputTokens: 100, onText: (t) => pieces.push(t) });
    expect(answer.toolCalls).toHaveLength(1);
    expect(pieces.join('').trim()).toBe('Let me look.');
  });

  it('an answer held back because it started like a call object, and was none, is shown whole at its end', async () => {
    server.script({ reply: { content: '{"note": "not a call"} is what the file holds.' } });
    const pieces: string[] = [];
    const model = createModelClient(testConfig({ Endpoint: { BaseUrl: server.baseUrl, Model: 'm', Api: api, TimeoutSeconds: 5, ApiKeyEnvironmentVariable: '' } }));
    const answer = await model.complete({ instructions: 'i', messages: [{ role: 'user', content: 'q' }], tools: [], maxOutputTokens: 100, onText: (t) => pieces.push(t) });
    expect(pieces.join('')).toBe('{"note": "not a call"} is what the file holds.');
    expect(answer.content).toBe(pieces.join(''));
  });
});

import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createModelClient } from '../../src/agent/model/client.js';
import { checkToolCalling } from '../../src/doctor/tool-calling.js';
import { testConfig } from '../helpers/memfs.js';
import { REFUSALS, type RefusingKind, refusingTools } from '../helpers/refusing-server.js';
import { type ScriptedServer, type Step, startScriptedServer } from '../helpers/scripted-server.js';

/** docs/design.md §2: `doctor` says how the model calls tools, and what to change for the full agent. */

let server: ScriptedServer;
beforeAll(async () => {
  server = await startScriptedServer();
});
afterAll(async () => {
  await server.close();
});

async function checkWith(step: Step) {
  server.setFallback(step);
  const config = testConfig({ Endpoint: { BaseUrl: server.baseUrl, Model: 'test-model', TimeoutSeconds: 5 }, Reconnect: { Attempts: 2 } });
  const before = server.modelRequests().length;
  const result = await checkToolCalling(config, 'test-model', createModelClient(config));
  return { ...result, requests: server.modelRequests().length - before };
}

describe('doctor: how the model calls tools', () => {
  it('structured: passes, the full agent', async () => {
    const c = await checkWith({ reply: { toolCalls: [{ name: 'confirm_check', arguments: { word: 'ready' } }] } });
    expect(c).toMatchObject({ status: 'pass' });
    expect(c.detail).toContain('structured call');
  });

  // The shapes as posted on public trackers (docs/models-and-servers.md), with the check's tool in them.
  const TEXT_CALLS: [string, string][] = [
    ['<tool_call>', '<tool_call>\n{"name": "confirm_check", "arguments": {"word": "ready"}}\n</tool_call>'],
    ['<function=…>', '<tool_call>\n<function=confirm_check>\n<parameter=word>\nready\n</parameter>\n</function>\n</tool_call>'],
    ['a JSON object', '{"name": "confirm_check", "arguments": {"word": "ready"}}'],
    ['<|python_tag|>{…}', '<|python_tag|>{"name": "confirm_check", "parameters": {"word": "ready"}}'],
    ['a fenced JSON block', '```json\n{"name": "confirm_check", "arguments": {"word": "ready"}}\n```'],
    ['[TOOL_CALLS]', '[TOOL_CALLS][{"name": "confirm_check", "arguments": {"word": "ready"}, "id": "abcdefghi"}]'],
    ['to=functions.…', '<|channel|>commentary to=functions.confirm_check <|constrain|>json<|message|>{"word":"ready"}'],
  ];
  it.each(TEXT_CALLS)('written as text (%s): a warning that names the server settings', async (shape, content) => {
    const c = await checkWith({ reply: { content } });
    expect(c.status).toBe('warn');
    expect(c.detail).toContain(`wrote its call as text in the answer (${shape})`);
    expect(c.detail).toContain('The daemon reads such calls from the text (the full agent)');
    expect(c.fix).toMatch(/--jinja/);
    expect(c.fix).toMatch(/--enable-auto-tool-choice --tool-call-parser/);
    expect(c.fix).toMatch(/LM Studio, a chat template with tool support/);
  });

  it('a narration that names the tool is not a call: "not at all"', async () => {
    const c = await checkWith({ reply: { content: 'I would call confirm_check now.' } });
    expect(c.status).toBe('warn');
    expect(c.detail).toContain('answered in text without calling the tool');
    expect(c.detail).toContain('summarized without tools');
    expect(c.fix).toMatch(/model with tool calling/);
  });

  // One reader with the agent's (agent/model/text-calls.ts): what a run would not run, doctor does not count.
  it.each([
    ['a tool it was not offered', '<tool_call>\n{"name": "web_search", "arguments": {"q": "ready"}}\n</tool_call>'],
    ['a call quoted in a fenced block within prose', 'To confirm I would send:\n```json\n<tool_call>{"name": "confirm_check", "arguments": {"word": "ready"}}</tool_call>\n```\nbut I cannot.'],
  ])('%s is not a call: "not at all"', async (_, content) => {
    const c = await checkWith({ reply: { content } });
    expect(c.status).toBe('warn');
    expect(c.detail).toContain('answered in text without calling the tool');
  });

  it.each(Object.keys(REFUSALS) as RefusingKind[])('refused (%s): the server\'s words, its own fix, one request', async (kind) => {
    const c = await checkWith(refusingTools(kind, { reply: { content: 'unused' } }));
    expect(c.status).toBe('warn');
    expect(c.detail).toContain(`the server refused a request with a tool for test-model: "${REFUSALS[kind].words}"`);
    expect(c.fix).toMatch(kind.startsWith('llama.cpp') ? /--jinja/ : kind === 'vllm' ? /--enable-auto-tool-choice --tool-call-parser/ : /model with tool calling/);
    expect(c.requests).toBe(1);
  });
});

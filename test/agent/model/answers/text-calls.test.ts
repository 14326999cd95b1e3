import { describe, expect, it } from 'vitest';
import { readTextCalls } from '../../../../src/agent/model/answers/text-calls.js';
import type { ToolSchema } from '../../../../src/agent/types.js';

/**
 * Calls written as text (docs/design.md §3 step 11). Each fixture is the string as posted in
 * the public issue named in its test (tool names as the posters had them, offered here).
 */
const tool = (name: string, properties: Record<string, unknown> = {}): ToolSchema => ({
  name,
  description: name,
  parameters: { type: 'object', properties },
});
const TOOLS = [
  tool('calculator', { expr: { type: 'string' } }),
  tool('read_file', { path: { type: 'string' } }),
  tool('web_search', { query: { type: 'string' } }),
  tool('get_weather', { city: { type: 'string' } }),
  tool('get_current_weather', { location: { type: 'string' }, unit: { type: 'string' } }),
  tool('get_current_traffic', { location: { type: 'string' } }),
  tool('query_web_search', { query: { type: 'string' } }),
  tool('example_function_name', { example_parameter_1: { type: 'string' }, example_parameter_2: { type: 'string' } }),
  tool('read_transcript', { from: { type: 'integer' }, to: { type: 'integer' } }),
];
const args = (text: string): unknown => JSON.parse(text);

describe('calls written as text, one per shape as posted', () => {
  it('the whole content one JSON object with arguments (ollama/ollama#12174, qwen2.5-coder)', () => {
    const read = readTextCalls('{"name": "calculator", "arguments": {"expr": "17 * 23"}}', TOOLS);
    expect(read.calls.map((c) => [c.name, args(c.arguments)])).toEqual([['calculator', { expr: '17 * 23' }]]);
    expect(read.content).toBe('');
  });

  it('a fenced json block with parameters (ollama/ollama#13519, llama3.2:3b)', () => {
    const read = readTextCalls('```json\n{"name": "query_web_search", "parameters": {"query": "install ollama models"}}\n```', TOOLS);
    expect(read.calls.map((c) => [c.name, args(c.arguments)])).toEqual([['query_web_search', { query: 'install ollama models' }]]);
  });

  it('{"type": "function", "name", "parameters"} (BerriAI/litellm#7209, llama 3.3)', () => {
    const posted = '{"type": "function", "name": "get_current_weather", "parameters": {"location": "Boston, MA", "unit": "fahrenheit"}}';
    const read = readTextCalls(posted, TOOLS);
    expect(read.calls.map((c) => [c.name, args(c.arguments)])).toEqual([['get_current_weather', { location: 'Boston, MA', unit: 'fahrenheit' }]]);
  });

  it('{"type": "function", "function": {…}} (vllm-project/vllm#11786, llama 3.2 vision)', () => {
    const posted = '{"type": "function", "function": {"name": "get_current_traffic", "parameters": {"location": "Sydney"}}}';
    expect(readTextCalls(posted, TOOLS).calls.map((c) => [c.name, args(c.arguments)])).toEqual([['get_current_traffic', { location: 'Sydney' }]]);
  });

  it('after <|python_tag|> (Llama 3.1 prompt format; timtoole02/Camelid#335)', () => {
    const read = readTextCalls('<|python_tag|>{"name": "get_current_weather", "parameters": {"location": "Boston, MA"}}', TOOLS);
    expect(read.calls.map((c) => c.name)).toEqual(['get_current_weather']);
  });

  it('<tool_call>{json}</tool_call>, closed and unclosed (Qwen template, ollama/ollama#11621)', () => {
    const closed = readTextCalls('Let me read it.\n<tool_call>\n{"name": "read_file", "arguments": {"path": "notes/a.md"}}\n</tool_call>', TOOLS);
    expect(closed.calls.map((c) => [c.name, args(c.arguments)])).toEqual([['read_file', { path: 'notes/a.md' }]]);
    expect(closed.content).toBe('Let me read it.');
    const unclosed = readTextCalls('<tool_call>\n{"name": "read_file", "arguments": {"path": "notes/a.md"}}', TOOLS);
    expect(unclosed.calls.map((c) => c.name)).toEqual(['read_file']);
    expect(unclosed.cut).toBe(false);
  });

  it('inside a <think> block that never closes (qwen3, ollama/ollama PR#14477)', () => {
    const read = readTextCalls('<think>\nI should read the transcript first.\n<tool_call>\n{"name": "read_transcript", "arguments": {"from": 1}}\n</tool_call>', TOOLS);
    expect(read.calls.map((c) => [c.name, args(c.arguments)])).toEqual([['read_transcript', { from: 1 }]]);
    expect(read.content).toBe('');
  });

  it('Qwen3-Coder XML, values typed by the schema (InternLM/lmdeploy#3840, lmstudio-bug-tracker#2115)', () => {
    const posted =
      '<tool_call>\n<function=example_function_name>\n<parameter=example_parameter_1>\nvalue_1\n</parameter>\n<parameter=example_parameter_2>\nThis is the value for the second parameter\nthat can span\nmultiple lines\n</parameter>\n</function>\n</tool_call>';
    const read = readTextCalls(posted, TOOLS);
    expect(read.calls.map((c) => [c.name, args(c.arguments)])).toEqual([
      ['example_function_name', { example_parameter_1: 'value_1', example_parameter_2: 'This is the value for the second parameter\nthat can span\nmultiple lines' }],
    ]);
    const typed = readTextCalls('<tool_call>\n<function=read_transcript>\n<parameter=from>\n120\n</parameter>\n</function>\n</tool_call>', TOOLS);
    expect(args(typed.calls[0]!.arguments)).toEqual({ from: 120 });
  });

  it('Mistral [TOOL_CALLS][{…}] with its id (ml-explore/mlx-lm#1643)', () => {
    const read = readTextCalls('[TOOL_CALLS][{"name": "read_file", "arguments": {"path": "/tmp/test.txt"}, "id": "abcdefghi"}]', TOOLS);
    expect(read.calls).toEqual([{ name: 'read_file', arguments: '{"path":"/tmp/test.txt"}', id: 'abcdefghi' }]);
  });

  it('Mistral [TOOL_CALLS]NAME[ARGS]{…} (raullenchai/Rapid-MLX#1071, devstral)', () => {
    const read = readTextCalls('[TOOL_CALLS]web_search[ARGS]{"query": "latest AI model releases this month"}', TOOLS);
    expect(read.calls.map((c) => [c.name, args(c.arguments)])).toEqual([['web_search', { query: 'latest AI model releases this month' }]]);
    expect(read.content).toBe('');
  });

  it('Mistral without [ARGS], and with [CALL_ID] (raullenchai/Rapid-MLX#1071; Mistral Small 3.2 template)', () => {
    expect(readTextCalls('[TOOL_CALLS]web_search{"query": "latest AI model releases this month"}', TOOLS).calls.map((c) => c.name)).toEqual(['web_search']);
    expect(readTextCalls('[TOOL_CALLS]web_search[CALL_ID]a1b2c3d4e[ARGS]{"query": "x"}', TOOLS).calls).toEqual([{ name: 'web_search', arguments: '{"query": "x"}', id: 'a1b2c3d4e' }]);
  });

  it('Qwen3-Coder XML with a </parameter> missing (vllm-project/vllm#23099)', () => {
    const read = readTextCalls('<tool_call>\n<function=read_transcript>\n<parameter=from>\n5\n<parameter=to>\n9\n</function>\n</tool_call>', TOOLS);
    expect(read.calls.map((c) => args(c.arguments))).toEqual([{ from: 5, to: 9 }]);
  });

  it('gpt-oss harmony, the analysis channel not taken for text (kekzl/imp#1719)', () => {
    const posted =
      '<|channel|>analysis<|message|>We need to use the get_weather function. Provide city "Berlin".<|end|>\n<|start|>assistant<|channel|>commentary to=functions.get_weather <|constrain|>json<|message|>{"city":"Berlin"}';
    const read = readTextCalls(posted, TOOLS);
    expect(read.calls.map((c) => [c.name, args(c.arguments)])).toEqual([['get_weather', { city: 'Berlin' }]]);
    expect(read.content).toBe('');
  });
});

describe('what is not a call', () => {
  it('a call quoted in a fenced block within other text is not run', () => {
    const text = 'The model should answer like this:\n```\n<tool_call>\n{"name": "read_file", "arguments": {"path": "x.md"}}\n</tool_call>\n```\nThat is the format.';
    const read = readTextCalls(text, TOOLS);
    expect(read.calls).toEqual([]);
    expect(read.content).toBe(text);
  });

  it('a call quoted in inline code or a blockquote, in prose about the format, is not run', () => {
    const call = '<tool_call>{"name": "read_file", "arguments": {"path": "x.md"}}</tool_call>';
    for (const text of [
      `The server left \`${call}\` in the content, so the parser missed it.`,
      `Qwen wrote \`\`${call}\`\` there.`,
      `The poster quoted:\n> ${call}\nand asked why.`,
      `Llama writes \`<|python_tag|>{"name": "read_file", "parameters": {"path": "x.md"}}\` when the template is wrong.`,
    ]) {
      const read = readTextCalls(text, TOOLS);
      expect(read.calls, text).toEqual([]);
      expect(read.content, text).toBe(text);
    }
  });

  it('a fence closes only with a fence of its own kind and at least its length (CommonMark)', () => {
    const text = 'An example:\n````\n```\n<tool_call>{"name": "read_file", "arguments": {"path": "x.md"}}</tool_call>\n```\n````\nThat is all.';
    expect(readTextCalls(text, TOOLS).calls).toEqual([]);
  });

  it('a real call after inline code on an earlier line is still run', () => {
    const read = readTextCalls('I will read `x.md` now.\n<tool_call>{"name": "read_file", "arguments": {"path": "x.md"}}</tool_call>', TOOLS);
    expect(read.calls.map((c) => c.name)).toEqual(['read_file']);
    expect(read.content).toBe('I will read `x.md` now.');
  });

  it('a call naming a tool that is not offered is not run', () => {
    expect(readTextCalls('{"name": "delete_everything", "arguments": {}}', TOOLS).calls).toEqual([]);
    expect(readTextCalls('<tool_call>{"name": "rm", "arguments": {"path": "/"}}</tool_call>', TOOLS).calls).toEqual([]);
    expect(readTextCalls('[TOOL_CALLS]rm[ARGS]{"path": "/"}', TOOLS).calls).toEqual([]);
  });

  it('a call drafted inside a closed <think> block is not run', () => {
    const read = readTextCalls('<think>maybe <tool_call>{"name": "read_file", "arguments": {"path": "a"}}</tool_call></think>No call needed.', TOOLS);
    expect(read.calls).toEqual([]);
    expect(read.content).toBe('No call needed.');
  });

  it('an answer that is JSON with a name but no arguments stays text', () => {
    expect(readTextCalls('{"name": "calculator"}', TOOLS).calls).toEqual([]);
  });

  it('a call cut before its end is flagged, never repaired into a whole', () => {
    const read = readTextCalls('<tool_call>\n{"name": "read_file", "arguments": {"path": "notes/a', TOOLS);
    expect(read.calls).toEqual([]);
    expect(read.cut).toBe(true);
  });

  it('without offered tools nothing is read', () => {
    expect(readTextCalls('{"name": "calculator", "arguments": {}}', []).calls).toEqual([]);
  });
});

describe('linear time', () => {
  it('reads a megabyte of unclosed markers and brackets without blowing up', () => {
    const hostile = '<tool_call>{"name": "read_file", "arguments": {"path": "'.repeat(20_000) + '<think>'.repeat(20_000) + '[TOOL_CALLS]x'.repeat(20_000);
    const read = readTextCalls(hostile, TOOLS);
    expect(read.calls).toEqual([]);
  });
});

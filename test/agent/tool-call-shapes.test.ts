import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { ANSWER_NOTE, CUT_CALL_NOTE, runAgentLoop, type AgentLoopResult } from '../../src/agent/loop.js';
import { REPEAT_NOTE } from '../../src/agent/call-guards.js';
import { createModelClient } from '../../src/agent/model/client.js';
import type { ToolCall, ToolExecutor, ToolResult } from '../../src/agent/types.js';
import { silentLogger } from '../../src/log.js';
import { testConfig } from '../helpers/memfs.js';
import { rawChat, rawChatStream, TEXT_CALL_SHAPES, textCall } from '../helpers/model-shapes.js';
import {
  conversationItems,
  lastToolResults,
  type ScriptedServer,
  startScriptedServer,
  type Step,
  toolCallsSoFar,
  userTexts,
} from '../helpers/scripted-server.js';

/**
 * Every shape of tool call (docs/design.md §3 step 11) through the real loop, the real clients
 * and the scripted server: what the tools were asked, and what the next request carried.
 */

const SUMMARY = '## Summary\nBilling ships behind a flag.';

interface RecordingTools extends ToolExecutor {
  seen: ToolCall[];
  written: () => boolean;
}

function recordingTools(): RecordingTools {
  const seen: ToolCall[] = [];
  let written = false;
  return {
    seen,
    written: () => written,
    schemas: [
      {
        name: 'read_transcript',
        description: 'Read lines of the transcript.',
        parameters: { type: 'object', properties: { from: { type: 'integer' }, to: { type: 'integer' } } },
      },
      {
        name: 'write_summary',
        description: 'Write the summary.',
        parameters: { type: 'object', properties: { content: { type: 'string' } }, required: ['content'] },
      },
    ],
    call(call: ToolCall): Promise<ToolResult> {
      seen.push(call);
      if (call.name === 'write_summary') written = true;
      return Promise.resolve({ content: `result ${seen.length} of ${call.name}`, isError: false });
    },
  };
}

let server: ScriptedServer;
beforeEach(async () => {
  server = await startScriptedServer();
});
afterEach(async () => {
  await server.close();
});

async function run(steps: Step[], options: { api?: 'chat-completions' | 'responses'; stream?: boolean; maxTurns?: number } = {}): Promise<{ tools: RecordingTools; result: AgentLoopResult }> {
  server.script(...steps);
  const tools = recordingTools();
  const model = createModelClient(
    testConfig({ Endpoint: { BaseUrl: server.baseUrl, Model: 'test-model', Api: options.api ?? 'chat-completions', TimeoutSeconds: 20, ApiKeyEnvironmentVariable: '' } }),
  );
  const result = await runAgentLoop({
    model,
    tools,
    instructions: 'You summarize meetings.',
    firstMessage: 'Summarize the meeting.',
    maxTurns: options.maxTurns ?? 12,
    maxOutputTokens: 1000,
    retry: { attempts: 0, delayMs: 0 },
    summaryWritten: tools.written,
    summaryReminder: 'Write the summary with write_summary.',
    log: silentLogger,
    ...(options.stream ? { onText: () => undefined } : {}),
  });
  return { tools, result };
}

const structured = (name: string, args: string | object, id?: string | null): Step => ({ reply: { toolCalls: [{ name, arguments: args, ...(id !== undefined ? { id } : {}) }] } });
const done: Step = { reply: { content: 'Done.' } };
const seenArgs = (tools: RecordingTools) => tools.seen.map((c) => [c.name, JSON.parse(c.arguments) as unknown]);

describe('calls written as text are run and sent back structured (point 1)', () => {
  describe.each(Object.entries(TEXT_CALL_SHAPES))('%s', (_shape, write) => {
    it.each<'chat-completions' | 'responses'>(['chat-completions', 'responses'])('over %s', async (api) => {
      const { tools, result } = await run(
        [textCall(write('read_transcript', { from: 1, to: 40 })), textCall(write('write_summary', { content: SUMMARY })), done],
        { api },
      );
      expect(seenArgs(tools)).toEqual([
        ['read_transcript', { from: 1, to: 40 }],
        ['write_summary', { content: SUMMARY }],
      ]);
      expect(result.finalText).toBe('Done.');
      // The next request pairs up: the call in the structured form, its result under the same id.
      const second = server.modelRequests()[1]!;
      const [call] = toolCallsSoFar(second);
      expect(call).toMatchObject({ name: 'read_transcript' });
      expect(call!.id).not.toBe('');
      expect(lastToolResults(second)).toEqual([{ callId: call!.id, name: 'read_transcript', output: 'result 1 of read_transcript' }]);
      expect(JSON.stringify(conversationItems(second))).not.toMatch(/tool_call>|TOOL_CALLS|to=functions|python_tag/);
    });
  });

  it('text calls get ids of nine letters and digits (what Mistral templates accept back), never one used before', async () => {
    const mistral = TEXT_CALL_SHAPES['[TOOL_CALLS][…]']!;
    await run([textCall(mistral('read_transcript', { from: 1 })), textCall(mistral('read_transcript', { from: 2 })), structured('write_summary', { content: SUMMARY }), done]);
    const ids = toolCallsSoFar(server.modelRequests()[2]!).map((c) => c.id);
    expect(ids[0]).toBe('abcdefghi');
    expect(ids[1]).toMatch(/^[A-Za-z0-9]{9}$/);
    expect(ids[1]).not.toBe(ids[0]);
  });

  it('a call quoted in a fenced block within other text is not run', async () => {
    const quoted = `Models are told to answer like this:\n\`\`\`\n${TEXT_CALL_SHAPES['<tool_call> closed']!('read_transcript', { from: 1 })}\n\`\`\`\nI will now write.`;
    const { tools } = await run([textCall(quoted), structured('write_summary', { content: SUMMARY }), done]);
    expect(tools.seen.map((c) => c.name)).toEqual(['write_summary']);
  });

  it('a call naming a tool that is not offered is not run', async () => {
    const { tools } = await run([textCall('{"name": "delete_project", "arguments": {"path": "Projects/Alpha"}}'), structured('write_summary', { content: SUMMARY }), done]);
    expect(tools.seen.map((c) => c.name)).toEqual(['write_summary']);
  });
});

describe('broken structured calls are repaired (point 2)', () => {
  it.each([
    ['single quotes / a Python dict', "{'from': 1, 'to': 40}"],
    ['encoded twice', JSON.stringify(JSON.stringify({ from: 1, to: 40 }))],
    ['text after the object', '{"from": 1, "to": 40}\n</tool_call>'],
    ['an object, not its text', { from: 1, to: 40 }],
  ])('arguments %s', async (_label, args) => {
    const { tools } = await run([structured('read_transcript', args), structured('write_summary', { content: SUMMARY }), done]);
    expect(seenArgs(tools)[0]).toEqual(['read_transcript', { from: 1, to: 40 }]);
  });

  it('calls without id or type get ids that their results reuse; finish_reason "stop" with calls runs them', async () => {
    const calls = [
      { function: { name: 'read_transcript', arguments: '{"from": 1}' } },
      { id: '', function: { name: 'read_transcript', arguments: '{"from": 50}' } },
    ];
    const { tools } = await run([rawChat({ content: null, tool_calls: calls }, 'stop'), structured('write_summary', { content: SUMMARY }), done]);
    expect(seenArgs(tools).slice(0, 2)).toEqual([
      ['read_transcript', { from: 1 }],
      ['read_transcript', { from: 50 }],
    ]);
    const second = server.modelRequests()[1]!;
    const ids = toolCallsSoFar(second).map((c) => c.id);
    expect(ids.every((id) => id !== '')).toBe(true);
    expect(new Set(ids).size).toBe(2);
    expect(lastToolResults(second).map((r) => r.callId)).toEqual(ids);
  });

  it('a call cut by finish_reason "length" is never run half: the model is told and asked again', async () => {
    const cut: Step = { reply: { toolCalls: [{ name: 'write_summary', arguments: '{"content": "## Summary\\nBilling ships' }], finishReason: 'length' } };
    const { tools } = await run([cut, structured('write_summary', { content: SUMMARY }), done]);
    expect(seenArgs(tools)).toEqual([['write_summary', { content: SUMMARY }]]);
    expect(userTexts(server.modelRequests()[1]!).at(-1)).toBe(CUT_CALL_NOTE);
    // Roles still alternate (Gemma's and Mistral's templates refuse two user messages in a row).
    expect(conversationItems(server.modelRequests()[1]!).map((m) => m.role)).toEqual(['system', 'user', 'assistant', 'user']);
  });

  it('a whole call with finish_reason "length" is not run either (its text may be cut where it still parses)', async () => {
    const cut: Step = { reply: { toolCalls: [{ name: 'write_summary', arguments: { content: '## Summary\nBilling' } }], finishReason: 'length' } };
    const { tools } = await run([cut, structured('write_summary', { content: SUMMARY }), done]);
    expect(seenArgs(tools)).toEqual([['write_summary', { content: SUMMARY }]]);
  });

  it('a call cut again and again is not asked for to the last turn: the third cut in a row ends the run, naming the setting', async () => {
    const cut: Step = { reply: { toolCalls: [{ name: 'write_summary', arguments: '{"content": "## Summary\\nBilling ships' }], finishReason: 'length' } };
    const failed = run([cut, cut, cut, cut, cut, cut], { maxTurns: 12 });
    await expect(failed).rejects.toMatchObject({ kind: 'cut-calls', message: expect.stringContaining('ContextWindow.MaxOutputTokens') });
    expect(server.modelRequests()).toHaveLength(3);
  });

  it('cuts that are not in a row are each asked again', async () => {
    const cut: Step = { reply: { toolCalls: [{ name: 'write_summary', arguments: '{"content": "## Summary\\nBilling ships' }], finishReason: 'length' } };
    const { tools } = await run([cut, cut, structured('read_transcript', { from: 1, to: 5 }), cut, cut, structured('write_summary', { content: SUMMARY }), done]);
    expect(seenArgs(tools).map(([name]) => name)).toEqual(['read_transcript', 'write_summary']);
  });

  it('a text call cut before its end is not repaired into a whole', async () => {
    const { tools } = await run([textCall('<tool_call>\n{"name": "write_summary", "arguments": {"content": "## Summ', { finishReason: 'length' }), structured('write_summary', { content: SUMMARY }), done]);
    expect(seenArgs(tools)).toEqual([['write_summary', { content: SUMMARY }]]);
    expect(userTexts(server.modelRequests()[1]!).at(-1)).toBe(CUT_CALL_NOTE);
  });

  it('in a stream, parallel calls all numbered index 0 are told apart by their ids (ollama/ollama#15457)', async () => {
    const stream = rawChatStream([
      { tool_calls: [{ index: 0, id: 'call_a', type: 'function', function: { name: 'read_transcript', arguments: '{"from": ' } }] },
      { tool_calls: [{ index: 0, function: { arguments: '1}' } }] },
      { tool_calls: [{ index: 0, id: 'call_b', type: 'function', function: { name: 'read_transcript', arguments: '{"from": 50}' } }] },
    ]);
    const { tools } = await run([stream, structured('write_summary', { content: SUMMARY }), done], { stream: true });
    expect(seenArgs(tools).slice(0, 2)).toEqual([
      ['read_transcript', { from: 1 }],
      ['read_transcript', { from: 50 }],
    ]);
    expect(lastToolResults(server.modelRequests()[1]!).map((r) => r.callId)).toEqual(['call_a', 'call_b']);
  });

  it('in a stream, index 0 calls without ids are told apart by a new name once the arguments are whole; the id only in the first chunk joins the rest', async () => {
    const stream = rawChatStream([
      { tool_calls: [{ index: 0, function: { name: 'read_transcript', arguments: '{"from": 1}' } }] },
      { tool_calls: [{ index: 0, function: { name: 'read_transcript', arguments: '{"from": 50}' } }] },
      { tool_calls: [{ index: 1, id: 'only_here', function: { name: 'read_transcript', arguments: '{"from"' } }] },
      { tool_calls: [{ index: 1, function: { arguments: ': 90}' } }] },
    ]);
    const { tools } = await run([stream, structured('write_summary', { content: SUMMARY }), done], { stream: true });
    expect(seenArgs(tools).slice(0, 3)).toEqual([
      ['read_transcript', { from: 1 }],
      ['read_transcript', { from: 50 }],
      ['read_transcript', { from: 90 }],
    ]);
    expect(tools.seen[2]!.id).toBe('only_here');
  });
});

describe('thinking never reaches the text or a call (point 3)', () => {
  it('an answer that is all reasoning (content null, `reasoning`) is asked again once with the instruction to answer', async () => {
    const { tools, result } = await run([
      structured('write_summary', { content: SUMMARY }),
      rawChat({ content: null, reasoning: 'The user wants a summary; I wrote it. Let me think about the closing words.' }),
      done,
    ]);
    expect(tools.seen.map((c) => c.name)).toEqual(['write_summary']);
    expect(userTexts(server.modelRequests()[2]!).at(-1)).toBe(ANSWER_NOTE);
    expect(result.finalText).toBe('Done.');
  });

  it.each<'chat-completions' | 'responses'>(['chat-completions', 'responses'])('over %s, reasoning alone (reasoning_content / a reasoning item) is asked again once', async (api) => {
    const { result } = await run([structured('write_summary', { content: SUMMARY }), { reply: { reasoning: 'Thinking about the closing words.' } }, done], { api });
    expect(userTexts(server.modelRequests()[2]!).at(-1)).toBe(ANSWER_NOTE);
    expect(result.finalText).toBe('Done.');
  });

  it('a <think> never closed is no text: asked once, and the second all-reasoning answer ends as before', async () => {
    const { result } = await run([
      structured('write_summary', { content: SUMMARY }),
      textCall('<think>\nHmm, should I add more'),
      textCall('<think>\nStill thinking'),
    ]);
    expect(userTexts(server.modelRequests()[2]!).at(-1)).toBe(ANSWER_NOTE);
    expect(server.modelRequests()).toHaveLength(3);
    expect(result.finalText).toBe('');
  });

  it('content parts of reasoning are not text; only reasoning parts is an all-reasoning answer', async () => {
    const { result } = await run([
      structured('write_summary', { content: SUMMARY }),
      rawChat({ content: [{ type: 'reasoning', text: 'secret plan' }] }),
      rawChat({ content: [{ type: 'thinking', text: 'secret A' }, { type: 'text', text: 'The summary is written.' }] }),
    ]);
    expect(userTexts(server.modelRequests()[2]!).at(-1)).toBe(ANSWER_NOTE);
    expect(result.finalText).toBe('The summary is written.');
  });

  it('`reasoning_content`, `reasoning` and `thinking` are never taken for the answer', async () => {
    const { result } = await run([
      structured('write_summary', { content: SUMMARY }),
      rawChat({ content: '<think>secret plan</think>The summary is written.', reasoning_content: 'secret A', reasoning: 'secret B', thinking: 'secret C' }),
    ]);
    expect(result.finalText).toBe('The summary is written.');
  });
});

describe('loops (point 4)', () => {
  it('the third identical call in a row gets the earlier result and a note to move on, not another run', async () => {
    const read = () => structured('read_transcript', { from: 1, to: 40 });
    const { tools } = await run([read(), read(), structured('read_transcript', '{"to": 40, "from": 1}'), read(), structured('write_summary', { content: SUMMARY }), done]);
    expect(tools.seen.map((c) => c.name)).toEqual(['read_transcript', 'read_transcript', 'write_summary']);
    const third = lastToolResults(server.modelRequests()[3]!)[0]!;
    expect(third.output).toBe(`result 2 of read_transcript\n\n${REPEAT_NOTE}`);
    expect(lastToolResults(server.modelRequests()[4]!)[0]!.output).toContain(REPEAT_NOTE);
  });

  it('a write repeated a third time is not made again', async () => {
    const write = () => structured('write_summary', { content: SUMMARY });
    const { tools } = await run([write(), write(), write(), done]);
    expect(tools.seen.map((c) => c.name)).toEqual(['write_summary', 'write_summary']);
  });

  it('the same call with other calls between is run each time', async () => {
    const { tools } = await run([
      structured('read_transcript', { from: 1 }),
      structured('read_transcript', { from: 2 }),
      structured('read_transcript', { from: 1 }),
      structured('read_transcript', { from: 1 }),
      structured('write_summary', { content: SUMMARY }),
      done,
    ]);
    expect(tools.seen).toHaveLength(5);
  });
});

describe('arguments are bounded, and what is sent back of them (#43 point 8)', () => {
  it('a model returning a 30 MB argument every turn uploads none of it again and runs nothing with it', async () => {
    const huge = 'x'.repeat(30 * 1024 * 1024);
    const big = (): Step => structured('write_summary', { content: huge });
    const { tools } = await run([big(), big(), big(), structured('write_summary', { content: SUMMARY }), done]);
    expect(seenArgs(tools)).toEqual([['write_summary', { content: SUMMARY }]]);
    const sizes = server.modelRequests().map((r) => r.rawBody.length);
    expect(sizes).toHaveLength(5);
    expect(Math.max(...sizes)).toBeLessThan(16 * 1024);
    const refused = lastToolResults(server.modelRequests()[1]!)[0]!;
    expect(refused.output).toMatch(/^Error: the arguments of this write_summary call are \d+ bytes, over the limit/);
  });

  it('a long call that ran is sent back shortened', async () => {
    const long = `## Summary\n${'A decision was taken. '.repeat(10_000)}`;
    const { tools } = await run([structured('write_summary', { content: long }), done]);
    expect(JSON.parse(tools.seen[0]!.arguments)).toEqual({ content: long });
    const second = server.modelRequests()[1]!;
    expect(second.rawBody.length).toBeLessThan(80 * 1024);
    expect(toolCallsSoFar(second)[0]!.arguments).toMatch(/"omitted"/);
  });
});

import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { ChatCompletionsClient } from '../../../src/agent/model/chat-completions.js';
import { SUMMARY_HEADER } from '../../../src/agent/window/compaction.js';
import { conversationProblems } from '../../../src/agent/window/message-groups.js';
import { WindowBudget } from '../../../src/agent/window/window-budget.js';
import { runAgentLoop } from '../../../src/agent/loop.js';
import type { ToolExecutor } from '../../../src/agent/types.js';
import { createOpenAI } from '../../../src/agent/model/openai-sdk.js';
import { createRemoteCompactor, type RemoteCompactor, translateCompaction } from '../../../src/agent/window/remote-compaction.js';
import { ResponsesClient } from '../../../src/agent/model/responses.js';
import type { Message, ModelClient, ModelRequest } from '../../../src/agent/types.js';
import type { Settings } from '../../../src/config.js';
import type { Logger } from '../../../src/log.js';
import { testConfig } from '../../helpers/memfs.js';
import { FIRST_MESSAGE, INSTRUCTIONS, readResult, recordedConversation, TOOL_SCHEMAS, transcriptNote } from '../../helpers/long-meeting.js';
import {
  errorBody,
  type RecordedRequest,
  type ScriptedReply,
  type ScriptedServer,
  startScriptedServer,
  type Step,
} from '../../helpers/scripted-server.js';
import { capturedLogger } from '../../helpers/captured-log.js';

const NOTES = '- Read the meeting note and transcript lines 1-100: billing ships behind a flag; Alice owns the rollback plan.';
const SUMMARY = '## Summary\nQuarterly planning.\n\n## Decisions\n- Ship behind a flag.\n\n## Next steps\n- Alice: rollback plan by Friday.';
const TRANSCRIPT = transcriptNote(6000);

let server: ScriptedServer;
beforeEach(async () => {
  server = await startScriptedServer();
});
afterEach(async () => {
  await server.close();
});

function settingsFor(
  api: 'chat-completions' | 'responses',
  endpoint: Record<string, unknown> = {},
  window: Record<string, unknown> = { Tokens: 16384, MaxOutputTokens: 2048 },
): Settings {
  return testConfig({
    Endpoint: { BaseUrl: server.baseUrl, Model: 'test-model', Api: api, TimeoutSeconds: 5, ...endpoint },
    ContextWindow: window,
  }).settings;
}

function compactorFor(settings: Settings, log: Logger): RemoteCompactor {
  return createRemoteCompactor({ openai: createOpenAI(settings.Endpoint, undefined), settings, log });
}

function clientFor(settings: Settings): ModelClient {
  return settings.Endpoint.Api === 'responses'
    ? new ResponsesClient(settings.Endpoint, undefined)
    : new ChatCompletionsClient(settings.Endpoint, undefined);
}

function hasTools(req: RecordedRequest): boolean {
  const tools = (req.body as { tools?: unknown[] }).tools;
  return Array.isArray(tools) && tools.length > 0;
}

/**
 * The model: the summarizing request of local compaction (no tools) gets notes; the main
 * conversation follows `plan`, one reply per request.
 */
function scriptAgent(plan: ScriptedReply[]): void {
  server.setFallback({
    handler: (req): Step => {
      if (!hasTools(req)) return { reply: { content: NOTES, usage: null } };
      const next = plan.shift();
      return next ? { reply: next } : { status: 500, body: errorBody('the plan is over') };
    },
  });
}

/**
 * Reads the meeting note, then transcript lines 1-`to`, then writes the summary. The second
 * response reports 14,000 prompt tokens: with the transcript lines appended, the third request
 * is over the threshold of the 14,336-token budget. Lines 1-250 are also larger than the
 * target our estimate is held to, so local compaction has work to do; lines 1-100 are not.
 */
function usualPlan(to = 250): ScriptedReply[] {
  return [
    { toolCalls: [{ name: 'read_meetingnote', arguments: '{}' }], usage: { input: 2000, output: 20 } },
    { toolCalls: [{ name: 'read_transcript', arguments: JSON.stringify({ from: 1, to }) }], usage: { input: 14000, output: 20 } },
    { toolCalls: [{ name: 'write_summary', arguments: JSON.stringify({ content: SUMMARY }) }], usage: { input: 3000, output: 300 } },
    { content: 'Done.', usage: { input: 3000, output: 5 } },
  ];
}

function fakeTools(): ToolExecutor & { summary: () => boolean } {
  let written = false;
  return {
    schemas: TOOL_SCHEMAS,
    summary: () => written,
    async call(call) {
      if (call.name === 'write_summary') {
        written = true;
        return { content: 'Summary written.', isError: false };
      }
      if (call.name === 'read_transcript') {
        const { from, to } = JSON.parse(call.arguments) as { from: number; to: number };
        return { content: readResult('Meetings/Transcripts/T.md', TRANSCRIPT, from, to), isError: false };
      }
      return { content: 'Meetings/M.md (lines 1-3 of 3)\n     1\t---\n     2\ttitle: Quarterly planning\n     3\t---', isError: false };
    },
  };
}

async function run(settings: Settings, remote: RemoteCompactor | undefined, log: Logger) {
  const model = clientFor(settings);
  const tools = fakeTools();
  const context = new WindowBudget({ settings: settings.ContextWindow, api: settings.Endpoint.Api, model, remote, log });
  const result = await runAgentLoop({
    model,
    tools,
    instructions: INSTRUCTIONS,
    firstMessage: FIRST_MESSAGE,
    maxTurns: 20,
    maxOutputTokens: settings.ContextWindow.MaxOutputTokens,
    retry: { attempts: 0, delayMs: 0 },
    context,
    summaryWritten: tools.summary,
    summaryReminder: 'Write the summary.',
    log,
  });
  return { result, summaryWritten: tools.summary() };
}

const compactRequests = () => server.requests.filter((r) => r.kind === 'compact');
const mainRequests = () => server.modelRequests().filter(hasTools);

function messageItem(role: 'user' | 'assistant', text: string): object {
  return { type: 'message', role, content: [{ type: role === 'user' ? 'input_text' : 'output_text', text }] };
}

describe('translateCompaction', () => {
  it('turns message items into messages, usable with both APIs', () => {
    const answer = { object: 'response.compaction', output: [messageItem('user', 'hi'), messageItem('assistant', 'notes')] };
    for (const api of ['chat-completions', 'responses'] as const) {
      expect(translateCompaction(answer, api)).toEqual({
        messages: [
          { role: 'user', content: 'hi' },
          { role: 'assistant', content: 'notes' },
        ],
        opaque: 0,
      });
    }
  });

  it('keeps opaque compaction items for the Responses API only', () => {
    const answer = { object: 'response.compaction', output: [messageItem('user', 'hi'), { type: 'compaction', id: 'cmp_1', encrypted_content: 'ENC' }] };
    expect(translateCompaction(answer, 'responses')).toEqual({
      messages: [{ role: 'user', content: 'hi' }, { role: 'compaction', encryptedContent: 'ENC', id: 'cmp_1' }],
      opaque: 1,
    });
    expect(translateCompaction(answer, 'chat-completions')).toMatchObject({ problem: expect.stringMatching(/opaque compaction item/), permanent: true });
  });

  it('pairs function calls with their outputs and skips reasoning and system items', () => {
    const answer = {
      object: 'response.compaction',
      output: [
        { type: 'reasoning', id: 'rs_1', summary: [] },
        { type: 'message', role: 'developer', content: 'instructions again' },
        messageItem('assistant', 'Reading.'),
        { type: 'function_call', call_id: 'c1', name: 'read_transcript', arguments: '{"from":1}' },
        { type: 'function_call_output', call_id: 'c1', output: 'lines' },
      ],
    };
    expect(translateCompaction(answer, 'chat-completions')).toEqual({
      messages: [
        { role: 'assistant', content: 'Reading.', toolCalls: [{ id: 'c1', name: 'read_transcript', arguments: '{"from":1}' }] },
        { role: 'tool', toolCallId: 'c1', name: 'read_transcript', content: 'lines' },
      ],
      opaque: 0,
    });
  });

  it('refuses anything else', () => {
    const problem = (answer: unknown) => (translateCompaction(answer, 'responses') as { problem?: string }).problem;
    expect(problem('text')).toMatch(/not a JSON object/);
    expect(problem({ object: 'response', output: [] })).toMatch(/not "response.compaction"/);
    expect(problem({ object: 'response.compaction' })).toMatch(/no output array/);
    expect(problem({ object: 'response.compaction', output: [] })).toMatch(/no usable output/);
    expect(problem({ object: 'response.compaction', output: [{ type: 'image_generation_call' }] })).toMatch(/unknown type/);
    expect(problem({ object: 'response.compaction', output: [{ type: 'function_call_output', call_id: 'x', output: 'y' }] })).toMatch(/answers no call/);
    expect(problem({ object: 'response.compaction', output: [{ type: 'function_call', call_id: 'x', name: 'n', arguments: '{}' }] })).toMatch(/not a well-formed/);
    expect(problem({ object: 'response.compaction', output: [{ type: 'compaction' }] })).toMatch(/no encrypted_content/);
  });
});

describe('remote compaction against the scripted server', () => {
  it('usage over the threshold leads to one compact call whose message-only answer replaces the conversation', async () => {
    const settings = settingsFor('chat-completions');
    const { log, lines } = capturedLogger();
    scriptAgent(usualPlan(100));
    server.scriptCompact({
      compaction: { output: [messageItem('user', FIRST_MESSAGE), messageItem('assistant', 'COMPACTED: read the meeting note.')] },
    });
    const { summaryWritten } = await run(settings, compactorFor(settings, log), log);
    expect(summaryWritten).toBe(true);

    expect(compactRequests()).toHaveLength(1);
    const compact = compactRequests()[0]!;
    expect(compact.path).toBe('/v1/responses/compact');
    const body = compact.body as { model: string; instructions: string; input: { type: string; role?: string }[] };
    expect(body.model).toBe('test-model');
    expect(body.instructions).toBe(INSTRUCTIONS);
    // The older part: the first message and the meeting-note read; the newest group is kept back.
    expect(body.input.map((i) => i.type)).toEqual(['message', 'function_call', 'function_call_output']);

    const after = mainRequests()[2]!.body as { messages: { role: string; content?: string | null; tool_calls?: unknown[] }[] };
    expect(after.messages.map((m) => m.role)).toEqual(['system', 'user', 'assistant', 'assistant', 'tool']);
    expect(after.messages[2]!.content).toBe('COMPACTED: read the meeting note.');
    expect(JSON.stringify(after.messages)).not.toContain('title: Quarterly planning');
    expect(lines.some((l) => l.msg === 'remote compaction')).toBe(true);
    expect(lines.some((l) => l.msg === 'compaction stage')).toBe(false);
  });

  for (const status of [404, 405]) {
    it(`a ${status} falls back to local compaction, the run succeeds, and the endpoint is not asked again`, async () => {
      const settings = settingsFor('chat-completions');
      const { log, lines } = capturedLogger();
      const remote = compactorFor(settings, log);
      server.setFallback({ status, body: errorBody('Not found') }, 'compact');
      for (let i = 0; i < 2; i++) {
        const plan = usualPlan();
        scriptAgent(plan);
        const { summaryWritten } = await run(settings, remote, log);
        expect(summaryWritten).toBe(true);
      }
      expect(compactRequests()).toHaveLength(1);
      expect(lines.filter((l) => l.msg === 'compaction stage').length).toBeGreaterThanOrEqual(2);
      const fallbacks = lines.filter((l) => l.msg === 'remote compaction not used: compacting locally' && l.level === 'warn');
      expect(fallbacks).toHaveLength(2); // once per run
      expect(fallbacks[0]!.reason).toMatch(new RegExp(`HTTP ${status}`));
    });
  }

  it('a 500 falls back to local compaction, is logged once per run, and is asked again next time', async () => {
    const settings = settingsFor('chat-completions');
    const { log, lines } = capturedLogger();
    server.setFallback({ status: 500, body: errorBody('upstream exploded', { type: 'server_error' }) }, 'compact');
    const model = clientFor(settings);
    const cm = new WindowBudget({ settings: settings.ContextWindow, api: 'chat-completions', model, remote: compactorFor(settings, log), log });
    scriptAgent([]);
    const conv = recordedConversation({ ranges: 2 });
    for (let i = 0; i < 2; i++) {
      cm.afterResponse(
        { instructions: conv.instructions, messages: [...conv.messages], tools: conv.tools, maxOutputTokens: 2048 },
        { content: '', toolCalls: [], usage: { inputTokens: 14000, outputTokens: 10 } },
      );
      await cm.beforeRequest(conv, conv.tools);
      expect(cm.lastCompaction).toMatchObject({ remote: false, fits: true });
    }
    expect(compactRequests()).toHaveLength(2);
    const warnings = lines.filter((l) => l.msg === 'remote compaction not used: compacting locally' && l.level === 'warn');
    expect(warnings).toHaveLength(1);
    expect(warnings[0]!.reason).toMatch(/HTTP 500.*upstream exploded/);
    expect(conversationProblems(conv.messages)).toEqual([]);
  });

  it('a malformed body falls back to local compaction and the run succeeds', async () => {
    const settings = settingsFor('chat-completions');
    const { log, lines } = capturedLogger();
    const plan = usualPlan();
    scriptAgent(plan);
    server.scriptCompact({ invalidJson: true });
    const { summaryWritten } = await run(settings, compactorFor(settings, log), log);
    expect(summaryWritten).toBe(true);
    expect(compactRequests()).toHaveLength(1);
    expect(lines.find((l) => l.msg === 'remote compaction not used: compacting locally')!.reason).toMatch(/not JSON/);
    expect(lines.some((l) => l.msg === 'compaction stage')).toBe(true);
  });

  it('an answer of the wrong shape falls back to local compaction', async () => {
    const settings = settingsFor('chat-completions');
    const { log, lines } = capturedLogger();
    const plan = usualPlan();
    scriptAgent(plan);
    server.scriptCompact({ status: 200, body: { object: 'response', output: [messageItem('assistant', 'hi')] } });
    const { summaryWritten } = await run(settings, compactorFor(settings, log), log);
    expect(summaryWritten).toBe(true);
    expect(lines.find((l) => l.msg === 'remote compaction not used: compacting locally')!.reason).toMatch(/not "response.compaction"/);
  });

  it('a compact endpoint that does not answer in time falls back to local compaction', async () => {
    const settings = settingsFor('chat-completions', { TimeoutSeconds: 0.3 });
    const { log, lines } = capturedLogger();
    server.scriptCompact({ hang: true });
    const conv = recordedConversation({ ranges: 2 });
    const cm = new WindowBudget({ settings: settings.ContextWindow, api: 'chat-completions', model: clientFor(settings), remote: compactorFor(settings, log), log });
    scriptAgent([]);
    cm.afterResponse(
      { instructions: conv.instructions, messages: [...conv.messages], tools: conv.tools, maxOutputTokens: 2048 },
      { content: '', toolCalls: [], usage: { inputTokens: 14000, outputTokens: 10 } },
    );
    await cm.beforeRequest(conv, conv.tools);
    expect(cm.lastCompaction).toMatchObject({ remote: false });
    expect(lines.find((l) => l.msg === 'remote compaction not used: compacting locally')!.reason).toMatch(/did not answer within/);
  });

  it('in responses mode, a compaction item is kept and sent back as input on the next request', async () => {
    const settings = settingsFor('responses');
    const { log } = capturedLogger();
    const plan = usualPlan(100);
    scriptAgent(plan);
    server.scriptCompact({
      compaction: { output: [messageItem('user', FIRST_MESSAGE), { type: 'compaction', id: 'cmp_1', encrypted_content: 'ENCRYPTED-HISTORY' }] },
    });
    const { result, summaryWritten } = await run(settings, compactorFor(settings, log), log);
    expect(summaryWritten).toBe(true);
    expect(result.conversation.messages[1]).toEqual({ role: 'compaction', encryptedContent: 'ENCRYPTED-HISTORY', id: 'cmp_1' });
    const next = mainRequests()[2]!;
    expect(next.kind).toBe('responses');
    const input = (next.body as { input: { type: string; encrypted_content?: string }[] }).input;
    expect(input.map((i) => i.type)).toEqual(['message', 'compaction', 'function_call', 'function_call_output']);
    expect(input[1]).toMatchObject({ type: 'compaction', encrypted_content: 'ENCRYPTED-HISTORY' });
  });

  it('in chat mode, a compaction item is never sent: local compaction instead, and the endpoint is not asked again', async () => {
    const settings = settingsFor('chat-completions');
    const { log, lines } = capturedLogger();
    const remote = compactorFor(settings, log);
    server.setFallback(
      { compaction: { output: [messageItem('user', FIRST_MESSAGE), { type: 'compaction', id: 'cmp_1', encrypted_content: 'ENCRYPTED-HISTORY' }] } },
      'compact',
    );
    for (let i = 0; i < 2; i++) {
      const plan = usualPlan();
      scriptAgent(plan);
      const { result, summaryWritten } = await run(settings, remote, log);
      expect(summaryWritten).toBe(true);
      expect(result.conversation.messages.some((m: Message) => m.role === 'compaction')).toBe(false);
    }
    expect(compactRequests()).toHaveLength(1);
    for (const req of server.modelRequests()) expect(req.rawBody).not.toContain('ENCRYPTED-HISTORY');
    expect(lines.find((l) => l.msg === 'remote compaction not used: compacting locally')!.reason).toMatch(/only Endpoint.Api "responses"/);
  });

  it('is not asked when there is nothing older than the newest tool calls', async () => {
    const settings = settingsFor('chat-completions');
    const { log } = capturedLogger();
    const remote = compactorFor(settings, log);
    const reasons: string[] = [];
    const conv = {
      instructions: INSTRUCTIONS,
      messages: [
        { role: 'user', content: FIRST_MESSAGE },
        { role: 'assistant', content: '', toolCalls: [{ id: 'a', name: 'read_transcript', arguments: '{}' }] },
        { role: 'tool', toolCallId: 'a', name: 'read_transcript', content: 'x' },
      ] as Message[],
    };
    expect(await remote.compact(conv, undefined, (r) => reasons.push(r))).toBeUndefined();
    expect(reasons[0]).toMatch(/nothing older/);
    expect(compactRequests()).toHaveLength(0);
  });
});

// The summarizing request of local compaction goes to the same endpoint: it must carry no tools.
describe('local summarizing request on the wire', () => {
  it('is a request without tools, answered with notes that replace older messages', async () => {
    // A long run of small reads: collapsing their results is not enough for a 4096-token window.
    const settings = settingsFor('chat-completions', {}, { Tokens: 4096, MaxOutputTokens: 512 });
    const { log } = capturedLogger();
    scriptAgent([]);
    const model = clientFor(settings);
    const cm = new WindowBudget({ settings: settings.ContextWindow, api: 'chat-completions', model, log });
    const conv = recordedConversation({ ranges: 40, linesPerRange: 10 });
    await cm.beforeRequest(conv, conv.tools);
    const summarizing = server.modelRequests().filter((r) => !hasTools(r));
    expect(summarizing.length).toBeGreaterThan(0);
    expect(conv.messages.some((m) => m.role === 'user' && m.content === `${SUMMARY_HEADER}\n${NOTES}`)).toBe(true);
    const requests = summarizing.map((r) => r.body as ModelRequest & { max_tokens?: number; max_completion_tokens?: number });
    for (const body of requests) expect(JSON.stringify(body)).not.toContain('"tools"');
  });
});

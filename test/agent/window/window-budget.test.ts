import { describe, expect, it } from 'vitest';
import { SUMMARY_HEADER } from '../../../src/agent/window/compaction.js';
import { conversationProblems } from '../../../src/agent/window/message-groups.js';
import {
  WindowBudget,
  type WindowBudgetOptions,
  contextLimitFrom,
  WindowOverflowError,
  type Conversation,
} from '../../../src/agent/window/window-budget.js';
import { runAgentLoop } from '../../../src/agent/loop.js';
import type { ToolExecutor } from '../../../src/agent/types.js';
import type { RemoteCompactor } from '../../../src/agent/window/remote-compaction.js';
import { estimateRequestTokens } from '../../../src/agent/window/tokens.js';
import {
  ModelError,
  type ModelClient,
  type ModelRequest,
  type ModelResponse,
  type ToolSchema,
} from '../../../src/agent/types.js';
import { DEFAULT_SETTINGS, resolveConfig, type Settings } from '../../../src/config.js';
import { FIRST_MESSAGE, INSTRUCTIONS, readResult, recordedConversation, TOOL_SCHEMAS, transcriptNote } from '../../helpers/long-meeting.js';
import { capturedLogger } from '../../helpers/captured-log.js';

function windowSettings(tokens: number, maxOutput: number, compaction: Partial<Settings['ContextWindow']['Compaction']> = {}): Settings['ContextWindow'] {
  return {
    Tokens: tokens,
    MaxOutputTokens: maxOutput,
    Compaction: { ...DEFAULT_SETTINGS.ContextWindow.Compaction, ...compaction },
  };
}

const NOTES = '- Transcript lines read so far: billing ships behind a flag; Alice owns the rollback plan (Friday).';

/** Answers summarizing requests (no tools) with notes; records every request. */
function notesModel(): ModelClient & { requests: ModelRequest[] } {
  const requests: ModelRequest[] = [];
  return {
    api: 'chat-completions',
    requests,
    async complete(request) {
      requests.push(request);
      return { content: NOTES, toolCalls: [] };
    },
  };
}

function manager(settings: Settings['ContextWindow'], extra: Partial<WindowBudgetOptions> = {}) {
  const { log, lines } = capturedLogger();
  const model = notesModel();
  const cm = new WindowBudget({ settings, api: 'chat-completions', model, log, ...extra });
  return { cm, lines, model };
}

function requestOf(conv: Conversation, tools: ToolSchema[] = TOOL_SCHEMAS, maxOutputTokens = 1024): ModelRequest {
  return { instructions: conv.instructions, messages: [...conv.messages], tools, maxOutputTokens };
}

function reply(usage?: { inputTokens: number; outputTokens: number }): ModelResponse {
  return { content: '', toolCalls: [{ id: 'n1', name: 'read_transcript', arguments: '{}' }], ...(usage ? { usage } : {}) };
}

function estimate(conv: Conversation, tools: ToolSchema[] = TOOL_SCHEMAS): number {
  return estimateRequestTokens({ instructions: conv.instructions, messages: conv.messages, tools });
}

describe('context tracking', () => {
  it('has a budget of Tokens − MaxOutputTokens and asks for at most MaxOutputTokens', () => {
    const { cm } = manager(windowSettings(8192, 1024));
    expect(cm.budget).toBe(7168);
    expect(cm.maxOutputTokens).toBe(1024);
  });

  it('keeps a quarter of a small configured window for the answer when MaxOutputTokens is left out, not half of it', () => {
    const settings = resolveConfig({ MeetingAssistant: { ContextWindow: { Tokens: 8192 } } }).settings.ContextWindow;
    const { cm } = manager(settings);
    expect(cm.maxOutputTokens).toBe(2048);
    expect(cm.budget).toBe(6144);
  });

  it('logs tokens, budget and the remaining ratio after each response, from the reported usage', () => {
    const { cm, lines } = manager(windowSettings(8192, 1024));
    const conv = recordedConversation({ ranges: 0 });
    expect(cm.afterResponse(requestOf(conv), reply({ inputTokens: 3000, outputTokens: 200 }))).toBe('ok');
    const line = lines.find((l) => l.msg === 'context')!;
    expect(line).toMatchObject({ tokens: 3200, budget: 7168, remaining: Math.round(((7168 - 3200) / 7168) * 1000) / 1000 });
  });

  it('uses the tokenizer estimate of the request when the endpoint reports no usage', () => {
    const { cm, lines } = manager(windowSettings(32768, 4096));
    const conv = recordedConversation({ ranges: 2 });
    cm.afterResponse(requestOf(conv), reply());
    expect(lines.find((l) => l.msg === 'context')).toMatchObject({ tokens: estimate(conv), budget: 28672, reported: false });
  });
});

describe('compaction before a request', () => {
  it('does nothing while the remaining share is above the threshold', async () => {
    const { cm, model } = manager(windowSettings(131072, 4096));
    const conv = recordedConversation({ ranges: 4 });
    const before = conv.messages.slice();
    await cm.beforeRequest(conv, TOOL_SCHEMAS);
    expect(conv.messages).toEqual(before);
    expect(model.requests).toHaveLength(0);
  });

  it('compacts in place until the remaining share is back at the threshold', async () => {
    const { cm, lines } = manager(windowSettings(16384, 2048));
    const conv = recordedConversation({ ranges: 8 });
    const first = conv.messages[0];
    const array = conv.messages;
    expect(estimate(conv)).toBeGreaterThan(cm.budget);
    await cm.beforeRequest(conv, TOOL_SCHEMAS);
    expect(conv.messages).toBe(array);
    expect(conv.messages[0]).toBe(first);
    expect(estimate(conv)).toBeLessThanOrEqual(cm.target);
    expect((cm.budget - estimate(conv)) / cm.budget).toBeGreaterThanOrEqual(0.2);
    expect(conversationProblems(conv.messages)).toEqual([]);
    expect(lines.filter((l) => l.msg === 'compaction stage').length).toBeGreaterThan(0);
  });

  it('never compacts when compaction is disabled', async () => {
    const { cm, lines } = manager(windowSettings(8192, 1024, { Enabled: false }));
    const conv = recordedConversation({ ranges: 8 });
    const before = conv.messages.slice();
    await cm.beforeRequest(conv, TOOL_SCHEMAS);
    expect(conv.messages).toEqual(before);
    expect(lines.some((l) => l.msg === 'compaction stage')).toBe(false);
  });

  it('counts reported usage plus what was appended since, even when the estimate is small', async () => {
    const calls: Conversation[] = [];
    const remote: RemoteCompactor = {
      async compact(conv) {
        calls.push({ instructions: conv.instructions, messages: conv.messages.slice() });
        return [conv.messages[0]!, { role: 'user', content: 'Compacted history.' }];
      },
    };
    const { cm } = manager(windowSettings(16384, 2048), { remote });
    const conv = recordedConversation({ ranges: 0 });
    expect(estimate(conv)).toBeLessThan(cm.target);
    const request = requestOf(conv);
    cm.afterResponse(request, reply({ inputTokens: 11000, outputTokens: 300 }));
    conv.messages.push(
      { role: 'assistant', content: '', toolCalls: [{ id: 'n1', name: 'read_transcript', arguments: '{"from":1,"to":100}' }] },
      { role: 'tool', toolCallId: 'n1', name: 'read_transcript', content: readResult('T.md', transcriptNote(), 1, 100) },
    );
    expect(cm.tokensInUse(conv, TOOL_SCHEMAS)).toBeGreaterThan(11300);
    await cm.beforeRequest(conv, TOOL_SCHEMAS);
    expect(calls).toHaveLength(1);
    expect(conv.messages).toEqual([conv.messages[0], { role: 'user', content: 'Compacted history.' }]);
    // The next request is judged by its estimate again: no second compaction.
    await cm.beforeRequest(conv, TOOL_SCHEMAS);
    expect(calls).toHaveLength(1);
  });
});

describe('silent truncation', () => {
  it('is recognised when the reported prompt tokens fall far below the estimate, and compaction fits the observed window', async () => {
    const { cm, lines } = manager(windowSettings(32768, 4096));
    const conv = recordedConversation({ ranges: 6 });
    const sent = estimate(conv);
    expect(sent).toBeGreaterThan(20000);
    expect(cm.afterResponse(requestOf(conv), reply({ inputTokens: 4096, outputTokens: 100 }))).toBe('truncated');
    const warning = lines.find((l) => l.level === 'warn')!;
    for (const setting of ['num_ctx', 'OLLAMA_CONTEXT_LENGTH', '--ctx-size', 'LM Studio', '--max-model-len', 'ContextWindow.Tokens']) {
      expect(warning.msg).toContain(setting);
    }
    expect(warning).toMatchObject({ reported: 4096, estimated: sent });

    await cm.forceCompact(conv, TOOL_SCHEMAS);
    expect(cm.window).toBe(4096);
    expect(cm.maxOutputTokens).toBe(1024);
    expect(cm.budget).toBe(3072);
    expect(estimate(conv)).toBeLessThanOrEqual(cm.target);
    expect(estimate(conv) + cm.maxOutputTokens).toBeLessThanOrEqual(4096);
    expect(conversationProblems(conv.messages)).toEqual([]);
    expect(cm.lastCompaction).toMatchObject({ reason: 'truncation', fits: true });

    // The server now sees the whole (smaller) prompt: all is well again.
    const now = estimate(conv);
    expect(cm.afterResponse(requestOf(conv), reply({ inputTokens: now - 20, outputTokens: 50 }))).toBe('ok');
  });

  it('is not claimed for placeholder usage, honest counts, or counts that leave out a cached prefix', () => {
    const { cm } = manager(windowSettings(32768, 4096));
    const conv = recordedConversation({ ranges: 4 });
    // Scripted servers and some proxies report a fixed tiny usage.
    expect(cm.afterResponse(requestOf(conv), reply({ inputTokens: 10, outputTokens: 5 }))).toBe('ok');
    // A different tokenizer counting 20 % less is not truncation.
    expect(cm.afterResponse(requestOf(conv), reply({ inputTokens: Math.floor(estimate(conv) * 0.8), outputTokens: 5 }))).toBe('ok');

    // An Ollama that reports only what it did not find in its cache: the count of the new part.
    const { cm: cached } = manager(windowSettings(32768, 4096));
    const previous = requestOf(conv);
    cached.afterResponse(previous, reply({ inputTokens: estimate(conv), outputTokens: 50 }));
    conv.messages.push(
      { role: 'assistant', content: '', toolCalls: [{ id: 'n2', name: 'read_transcript', arguments: '{"from":481,"to":520}' }] },
      { role: 'tool', toolCallId: 'n2', name: 'read_transcript', content: readResult('T.md', transcriptNote(), 481, 520) },
    );
    const appended = estimateRequestTokens({ instructions: '', tools: [], messages: conv.messages.slice(previous.messages.length) });
    expect(appended).toBeGreaterThan(1024);
    expect(appended).toBeLessThan(2048);
    expect(cached.afterResponse(requestOf(conv), reply({ inputTokens: appended + 10, outputTokens: 50 }))).toBe('ok');
  });
});

describe('forced compaction', () => {
  it('after a context-too-long 400 that names the limit, fits the conversation under it', async () => {
    const { cm } = manager(windowSettings(32768, 2048));
    const conv = recordedConversation({ ranges: 6 });
    const err = new ModelError(
      "HTTP 400 from http://x/v1/chat/completions: This model's maximum context length is 8192 tokens. However, your messages resulted in 24000 tokens.",
      { kind: 'http', status: 400 },
    );
    expect(err.contextTooLong).toBe(true);
    await cm.forceCompact(conv, TOOL_SCHEMAS, undefined, err);
    expect(cm.window).toBe(8192);
    expect(estimate(conv) + cm.maxOutputTokens).toBeLessThanOrEqual(8192);
    expect(cm.lastCompaction).toMatchObject({ reason: 'too-long', fits: true });
  });

  it('after a 400 that names no limit, asks for at most three quarters of what was refused', async () => {
    const { cm } = manager(windowSettings(65536, 4096));
    const conv = recordedConversation({ ranges: 6 });
    const before = estimate(conv);
    await cm.forceCompact(conv, TOOL_SCHEMAS, undefined, new ModelError('HTTP 400: prompt is too long', { kind: 'http', status: 400 }));
    expect(estimate(conv)).toBeLessThanOrEqual(Math.floor(before * 0.75));
    expect(conversationProblems(conv.messages)).toEqual([]);
  });

  it('fails with a reason when compaction is disabled', async () => {
    const { cm } = manager(windowSettings(8192, 1024, { Enabled: false }));
    const conv = recordedConversation({ ranges: 6 });
    cm.afterResponse(requestOf(conv), reply({ inputTokens: 4096, outputTokens: 10 }));
    await expect(cm.forceCompact(conv, TOOL_SCHEMAS)).rejects.toThrow(/compaction is disabled \(ContextWindow\.Compaction\.Enabled\)/);
  });

  it('fails with a reason when even the instructions and the newest group do not fit', async () => {
    const { cm } = manager(windowSettings(32768, 4096));
    const conv: Conversation = { instructions: 'x '.repeat(6000), messages: [{ role: 'user', content: FIRST_MESSAGE }] };
    const err = new ModelError('maximum context length is 2048 tokens', { kind: 'http', status: 400 });
    await expect(cm.forceCompact(conv, TOOL_SCHEMAS, undefined, err)).rejects.toBeInstanceOf(WindowOverflowError);
  });

  it('reads the limit from the usual server messages', () => {
    expect(contextLimitFrom(new Error("This model's maximum context length is 4096 tokens. However, you requested 5000 tokens"))).toBe(4096);
    expect(contextLimitFrom(new Error('the model is loaded with context length of only 4096 tokens'))).toBe(4096);
    const llamaCpp = Object.assign(new Error('400 the request exceeds the available context size'), {
      error: { code: 400, type: 'exceed_context_size_error', n_prompt_tokens: 9000, n_ctx: 8192 },
    });
    expect(contextLimitFrom(new ModelError('HTTP 400: the request exceeds the available context size', { kind: 'http', status: 400, cause: llamaCpp }))).toBe(8192);
    expect(contextLimitFrom(new Error('prompt is too long'))).toBeUndefined();
    expect(contextLimitFrom(undefined)).toBeUndefined();
  });
});

describe('tool results', () => {
  it('cuts a result too large for the window, naming the next range to read', () => {
    const { cm } = manager(windowSettings(8192, 1024));
    const lines = transcriptNote();
    const whole = readResult('Meetings/Transcripts/T.md', lines, 1, lines.length);
    const limited = cm.limitToolResult(whole, 'read_transcript');
    expect(estimateRequestTokens({ instructions: '', tools: [], messages: [{ role: 'user', content: limited }] })).toBeLessThan(cm.target / 2 + 50);
    // Whole lines only, the header naming the lines shown and the next line to read.
    const header = /\(lines 1-(\d+) of (\d+)\)/.exec(limited.split('\n')[0]!)!;
    expect(Number(header[2])).toBe(lines.length);
    const shown = limited.split('\n').slice(1, -1);
    expect(shown).toHaveLength(Number(header[1]));
    expect(shown.at(-1)).toBe(readResult('T', lines, Number(header[1]), Number(header[1])).split('\n')[1]);
    expect(limited.split('\n').at(-1)).toMatch(new RegExp(`Read on with read_transcript from: ${Number(header[1]) + 1}\\.`));
    expect(cm.limitToolResult('short', 'read_transcript')).toBe('short');
  });

  it('shares the room left under the target between the results of one message', async () => {
    const { cm } = manager(windowSettings(32768, 4096));
    const conv = recordedConversation({ ranges: 0 });
    await cm.beforeRequest(conv, TOOL_SCHEMAS);
    const room = cm.target - estimateRequestTokens({ ...conv, messages: conv.messages.slice(0, 1) });
    expect(cm.maxToolResultTokens()).toBe(Math.floor(room / 2));
    expect(cm.maxToolResultTokens(2)).toBe(Math.floor(room / 4));
  });
});

describe('a 3-hour meeting in an 8192-token window', () => {
  it('is read in ranges and summarized with no request over the budget', async () => {
    const lines = transcriptNote(30_000);
    expect(lines.join(' ').split(/\s+/).length).toBeGreaterThan(30_000);
    const settings = windowSettings(8192, 1024);
    const { log, lines: logLines } = capturedLogger();
    const sent: ModelRequest[] = [];
    const per = 30;
    let next = 1;
    let summaryWritten = false;
    // Reads the transcript range after range, takes notes every fourth range, then writes the summary.
    const model: ModelClient = {
      api: 'chat-completions',
      async complete(request) {
        sent.push(request);
        const usage = { inputTokens: estimateRequestTokens(request), outputTokens: 40 };
        if (request.tools.length === 0) return { content: NOTES, toolCalls: [], usage };
        const id = `call_${sent.length}`;
        const last = request.messages.at(-1);
        if (summaryWritten) return { content: 'Done.', toolCalls: [], usage };
        if (next > lines.length) {
          return { content: '', toolCalls: [{ id, name: 'write_summary', arguments: JSON.stringify({ content: '## Summary\nPlanning.\n\n## Decisions\nNone.\n\n## Next steps\nNone.' }) }], usage };
        }
        if (last?.role === 'tool' && last.name === 'read_transcript' && ((next - 1) / per) % 4 === 0) {
          return { content: '', toolCalls: [{ id, name: 'write_context', arguments: JSON.stringify({ mode: 'insert', line: 1, content: `- notes up to line ${next - 1}` }) }], usage };
        }
        const from = next;
        next += per;
        return { content: '', toolCalls: [{ id, name: 'read_transcript', arguments: JSON.stringify({ from, to: from + per - 1 }) }], usage };
      },
    };
    const cm = new WindowBudget({ settings, api: 'chat-completions', model, log });
    const tools: ToolExecutor = {
      schemas: TOOL_SCHEMAS,
      async call(call) {
        const args = JSON.parse(call.arguments) as { from: number; to: number };
        if (call.name === 'write_summary') {
          summaryWritten = true;
          return { content: 'Summary written.', isError: false };
        }
        if (call.name === 'write_context') return { content: 'Context note updated.', isError: false };
        return { content: cm.limitToolResult(readResult('Meetings/Transcripts/T.md', lines, args.from, args.to), call.name), isError: false };
      },
    };
    const result = await runAgentLoop({
      model,
      tools,
      instructions: INSTRUCTIONS,
      firstMessage: FIRST_MESSAGE,
      maxTurns: 200,
      maxOutputTokens: settings.MaxOutputTokens,
      retry: { attempts: 0, delayMs: 0 },
      context: cm,
      summaryWritten: () => summaryWritten,
      summaryReminder: 'Write the summary.',
      log,
    });
    expect(summaryWritten).toBe(true);
    expect(result.finalText).toBe('Done.');
    expect(next).toBeGreaterThan(lines.length);
    const main = sent.filter((r) => r.tools.length > 0);
    expect(main.length).toBeGreaterThan(lines.length / per);
    for (const request of sent) {
      expect(estimateRequestTokens(request)).toBeLessThanOrEqual(cm.budget);
      expect(request.maxOutputTokens).toBeLessThanOrEqual(1024);
    }
    const stages = new Set(logLines.filter((l) => l.msg === 'compaction stage').map((l) => l.stage));
    expect(stages).toContain('collapse-tool-results');
    expect(stages).toContain('summarize-older');
    expect(logLines.filter((l) => l.msg === 'context')).toHaveLength(main.length);
    // The first user message survived every compaction.
    expect(result.conversation.messages[0]).toEqual({ role: 'user', content: FIRST_MESSAGE });
    expect(conversationProblems(result.conversation.messages)).toEqual([]);
    expect(result.conversation.messages.some((m) => m.role === 'user' && m.content.startsWith(SUMMARY_HEADER))).toBe(true);
  });
});


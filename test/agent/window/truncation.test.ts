import { describe, expect, it } from 'vitest';
import { WindowBudget, type Conversation } from '../../../src/agent/window/window-budget.js';
import { estimateRequestTokens } from '../../../src/agent/window/tokens.js';
import { windowShownByCut } from '../../../src/agent/window/truncation.js';
import { ModelError, type ModelClient, type ModelRequest, type ModelResponse } from '../../../src/agent/types.js';
import { DEFAULT_SETTINGS, type Settings } from '../../../src/config.js';
import { capturedLogger } from '../../helpers/captured-log.js';
import { FIRST_MESSAGE, INSTRUCTIONS, readResult, TOOL_SCHEMAS, transcriptNote } from '../../helpers/long-meeting.js';

/**
 * Issue 12: silent truncation judged from the server's own counts (how they grow from one
 * request to the next, or a count far below what a server that told its window keeps), never
 * from how its tokenizer compares with ours; one suspicion per run at most; the server's told
 * window and its refusals size the requests.
 */

function setup(tokens: number, maxOutput: number, serverWindow?: number) {
  const { log, lines } = capturedLogger();
  const model: ModelClient = { api: 'chat-completions', complete: async () => ({ content: 'notes', toolCalls: [] }) };
  const settings: Settings['ContextWindow'] = { Tokens: tokens, MaxOutputTokens: maxOutput, Compaction: { ...DEFAULT_SETTINGS.ContextWindow.Compaction } };
  const cm = new WindowBudget({
    settings,
    api: 'chat-completions',
    model,
    log,
    ...(serverWindow !== undefined ? { serverWindow: async () => serverWindow } : {}),
  });
  return { cm, lines };
}

const TRANSCRIPT = 'Meetings/Transcripts/T.md';

/** A conversation that reads the transcript range after range, as a run does. */
function reader(lines: readonly string[], per: number) {
  const conv: Conversation = { instructions: INSTRUCTIONS, messages: [{ role: 'user', content: FIRST_MESSAGE }] };
  let next = 1;
  let id = 0;
  return {
    conv,
    done: () => next > lines.length,
    request: (): ModelRequest => ({ instructions: conv.instructions, messages: [...conv.messages], tools: TOOL_SCHEMAS, maxOutputTokens: 1024 }),
    /** The answer to the last request is acted on: its call and the read result join the conversation. */
    readNext() {
      const from = next;
      const to = Math.min(lines.length, from + per - 1);
      next = to + 1;
      const callId = `c${++id}`;
      conv.messages.push(
        { role: 'assistant', content: '', toolCalls: [{ id: callId, name: 'read_transcript', arguments: JSON.stringify({ from, to }) }] },
        { role: 'tool', toolCallId: callId, name: 'read_transcript', content: readResult(TRANSCRIPT, lines, from, to) },
      );
    },
  };
}

const answer = (inputTokens: number): ModelResponse => ({
  content: '',
  toolCalls: [{ id: 'x', name: 'read_transcript', arguments: '{}' }],
  usage: { inputTokens, outputTokens: 20 },
});

describe('silent truncation judged by the server’s own counts', () => {
  it('raises no alarm for a 1,500-line transcript read whole in a 131,072 window by a server counting 0.78× our estimate', async () => {
    const lines = transcriptNote(40_000).slice(0, 1500);
    expect(lines).toHaveLength(1500);
    const { cm, lines: log } = setup(131072, 4096, 131072);
    const run = reader(lines, 200);
    let requests = 0;
    for (;;) {
      await cm.beforeRequest(run.conv, TOOL_SCHEMAS);
      const request = run.request();
      requests++;
      const verdict = cm.afterResponse(request, answer(Math.round(estimateRequestTokens(request) * 0.78)));
      expect(verdict, `request ${requests}`).toBe('ok');
      if (run.done()) break;
      run.readNext();
    }
    expect(requests).toBe(9);
    expect(cm.window).toBe(131072);
    expect(log.some((l) => l.level === 'warn')).toBe(false);
  });

  it('suspects a count that stays flat while the conversation grew, once; then trusts the server for the rest of the run', () => {
    const lines = transcriptNote(20_000);
    const { cm, lines: log } = setup(32768, 4096);
    const run = reader(lines, 200);
    run.readNext();
    const first = run.request();
    expect(cm.afterResponse(first, answer(estimateRequestTokens(first)))).toBe('ok');
    run.readNext();
    const second = run.request();
    // Ollama keeps the first 4 tokens and the tail, half its window: the count falls (to half
    // of the first request's; a count about the size of what was appended may be one that
    // leaves out a cached prefix, see the test below).
    const kept = Math.floor(estimateRequestTokens(first) / 2);
    expect(cm.afterResponse(second, answer(kept))).toBe('truncated');
    const warning = log.find((l) => l.level === 'warn')!;
    expect(warning.msg).toMatch(/silently cut/);
    expect(warning.msg).toMatch(/OLLAMA_CONTEXT_LENGTH/);
    expect(warning.msg).toMatch(/trusted/);

    // The same pattern again later in the run is taken at the server's word.
    run.readNext();
    const third = run.request();
    expect(cm.afterResponse(third, answer(kept))).toBe('ok');
  });

  it('suspects the very same count again while the request grew (issue 31 point 5: a server keeping 8,192 of a 32,768 window, read in 300-line ranges), and shrinks the window to it with one warning', async () => {
    const { cm, lines: log } = setup(32768, 4096);
    const run = reader(transcriptNote(20_000), 300);
    run.readNext();
    const first = run.request();
    expect(estimateRequestTokens(first)).toBeGreaterThan(8192);
    // The first count alone proves nothing: 8,192 for some 11,000 is within what tokenizers disagree by.
    expect(cm.afterResponse(first, answer(8192))).toBe('ok');
    run.readNext();
    // Compaction rewrote the conversation in between (the old result collapsed): not "the same
    // conversation, grown", so the growth test does not apply; the count is the sign.
    run.conv.messages.splice(0, run.conv.messages.length, ...run.conv.messages.map((m) => ({ ...m })));
    const second = run.request();
    expect(estimateRequestTokens(second) - estimateRequestTokens(first)).toBeGreaterThan(2000);
    expect(cm.afterResponse(second, answer(8192))).toBe('truncated');
    await cm.forceCompact(run.conv, TOOL_SCHEMAS);
    expect(cm.window).toBe(8192);
    const warnings = log.filter((l) => l.level === 'warn');
    expect(warnings).toHaveLength(1);
    expect(warnings[0]!.msg).toMatch(/the same 8192 as the request before, for about \d+ sent after about \d+/);
    expect(warnings[0]!.msg).toMatch(/Raise the server's context length \(Ollama: OLLAMA_CONTEXT_LENGTH.*, or lower MeetingAssistant\.ContextWindow\.Tokens to 8192/);
  });

  it('raises no alarm when a server counting only the tokens it did not find in its cache reports the same count twice (two reads of much the same size)', () => {
    // Several Ollama versions count only the uncached part: what was appended since the request
    // before. Two 200-line reads of a transcript are some 3,000 tokens each; that two of them
    // count the very same is a coincidence of a run, not a cut (a false alarm discards an
    // answer and shrinks the window to that count, DESIGN §3 step 8).
    const { cm, lines: log } = setup(32768, 4096);
    const run = reader(transcriptNote(20_000), 200);
    run.readNext();
    const first = run.request();
    expect(cm.afterResponse(first, answer(estimateRequestTokens(first)))).toBe('ok');
    run.readNext();
    const second = run.request();
    run.readNext();
    const third = run.request();
    const appended = estimateRequestTokens(third) - estimateRequestTokens(second);
    expect(appended).toBeGreaterThan(1024);
    expect(Math.abs(estimateRequestTokens(second) - estimateRequestTokens(first) - appended)).toBeLessThan(appended * 0.3);
    expect(cm.afterResponse(second, answer(appended))).toBe('ok');
    expect(cm.afterResponse(third, answer(appended))).toBe('ok');
    expect(log.filter((l) => l.level === 'warn')).toEqual([]);
    expect(cm.window).toBe(32768);
  });

  it('suspects a count far below what a server that told its window would keep', async () => {
    const lines = transcriptNote(20_000);
    const { cm } = setup(32768, 4096, 16384);
    const run = reader(lines, 200);
    run.readNext();
    run.readNext();
    await cm.beforeRequest(run.conv, TOOL_SCHEMAS);
    const request = run.request();
    const sent = estimateRequestTokens(request);
    expect(sent).toBeLessThan(16384);
    expect(cm.afterResponse(request, answer(Math.floor(sent * 0.3)))).toBe('truncated');
  });

  it('does not take the counts of a server that reports only the prompt tokens not in its cache for truncation, at any size', () => {
    // Some Ollama versions: after the first request, each count is what was added since the
    // previous one (about 8,000 tokens for 200 lines), the cached prefix left out.
    for (const ratio of [0.78, 1.0, 1.2]) {
      const { cm } = setup(32768, 4096);
      const run = reader(transcriptNote(20_000), 200);
      let previous: ModelRequest | undefined;
      for (let i = 0; i < 5; i++) {
        run.readNext();
        const request = run.request();
        const uncached = previous ? estimateRequestTokens(request) - estimateRequestTokens(previous) : estimateRequestTokens(request);
        expect(uncached).toBeGreaterThan(2048);
        expect(cm.afterResponse(request, answer(Math.round(uncached * ratio))), `ratio ${ratio}, request ${i + 1}`).toBe('ok');
        previous = request;
      }
      expect(cm.window).toBe(32768);
    }
    // Ollama's own cut of 4,096 (2,050 kept) stays a cut even when about that much was appended.
    const { cm } = setup(32768, 4096);
    const run = reader(transcriptNote(20_000), 50);
    run.readNext();
    const first = run.request();
    expect(cm.afterResponse(first, answer(estimateRequestTokens(first)))).toBe('ok');
    run.readNext();
    const second = run.request();
    const appended = estimateRequestTokens(second) - estimateRequestTokens(first);
    expect(Math.abs(2050 - appended)).toBeLessThan(appended * 0.3);
    expect(cm.afterResponse(second, answer(2050))).toBe('truncated');
  });

  it('does not take a count that grows as much as the conversation, at any tokenizer ratio from 0.6 to 1.3, for truncation', () => {
    for (const ratio of [0.6, 0.78, 1.0, 1.3]) {
      const { cm } = setup(65536, 4096);
      const run = reader(transcriptNote(20_000), 150);
      for (let i = 0; i < 8; i++) {
        run.readNext();
        const request = run.request();
        expect(cm.afterResponse(request, answer(Math.round(estimateRequestTokens(request) * ratio))), `ratio ${ratio}, request ${i + 1}`).toBe('ok');
      }
    }
  });
});

describe('the window a silent cut shows', () => {
  it("is twice what Ollama kept of a round window (its first 4 tokens plus half), else the count itself, never below a request taken whole", () => {
    // Ollama keeps 4 + (W - 4) / 2 of a window W.
    expect(windowShownByCut(2050, 32768)).toEqual({ window: 4096, guess: true });
    expect(windowShownByCut(4098, 32768)).toEqual({ window: 8192, guess: true });
    // A second cut at the same count, the inferred window in use: the server keeps no more than that.
    expect(windowShownByCut(2050, 4096)).toEqual({ window: 2050, guess: false });
    // A server that keeps its whole window reports a round count: that is its window.
    expect(windowShownByCut(4096, 32768)).toEqual({ window: 4096, guess: false });
    expect(windowShownByCut(3000, 32768, 3500)).toEqual({ window: 3500, guess: false });
  });

  it("learns 4,096 from Ollama's 2,050-token cut; a server that really keeps only 2,050 shows it with its next cut, then is trusted", async () => {
    const lines = transcriptNote(20_000);
    const { cm, lines: log } = setup(32768, 4096);
    const run = reader(lines, 60);
    run.readNext();
    const first = run.request();
    expect(estimateRequestTokens(first)).toBeLessThan(4096);
    expect(cm.afterResponse(first, answer(estimateRequestTokens(first)))).toBe('ok');
    run.readNext();
    const second = run.request();
    expect(estimateRequestTokens(second)).toBeGreaterThan(4096);
    expect(cm.afterResponse(second, answer(2050))).toBe('truncated');
    await cm.forceCompact(run.conv, TOOL_SCHEMAS);
    expect(cm.window).toBe(4096);
    expect(log.find((l) => l.level === 'warn')!.msg).toMatch(/Ollama's cut of a 4096-token window keeps 2050.*trusted/);

    // The same 2,050 again for a larger request: the server keeps no more than that.
    run.readNext();
    const third = run.request();
    expect(estimateRequestTokens(third)).toBeGreaterThan(2050 + 256);
    expect(cm.afterResponse(third, answer(2050))).toBe('truncated');
    await cm.forceCompact(run.conv, TOOL_SCHEMAS).catch(() => undefined);
    expect(cm.window).toBe(2050);
    // No third lesson: the window is the server's own count now.
    run.readNext();
    expect(cm.afterResponse(run.request(), answer(2050))).toBe('ok');
  });
});

describe('the window the server told', () => {
  it('sizes requests to it and shrinks the output reserve to a quarter of it', async () => {
    const { cm, lines } = setup(32768, 4096, 4096);
    const conv: Conversation = { instructions: INSTRUCTIONS, messages: [{ role: 'user', content: FIRST_MESSAGE }] };
    await cm.beforeRequest(conv, TOOL_SCHEMAS);
    expect(cm.window).toBe(4096);
    expect(cm.maxOutputTokens).toBe(1024);
    expect(cm.budget).toBe(3072);
    expect(lines.find((l) => String(l.msg).startsWith('context window '))).toMatchObject({ window: 4096, configured: 32768, serverWindow: 4096 });
  });

  it('keeps ContextWindow.Tokens and MaxOutputTokens when the server has more, or tells nothing', async () => {
    for (const told of [65536, undefined]) {
      const { cm } = setup(32768, 4096, told);
      await cm.prepare();
      expect(cm.window).toBe(32768);
      expect(cm.maxOutputTokens).toBe(4096);
    }
  });
});

describe('a refusal teaches the window', () => {
  it("llama.cpp's exceed_context_size_error: n_ctx becomes the window, aimed in the server's own count", async () => {
    const { cm } = setup(32768, 4096);
    const run = reader(transcriptNote(20_000), 200);
    for (let i = 0; i < 4; i++) run.readNext();
    const before = estimateRequestTokens(run.request());
    const counted = Math.round(before * 1.2);
    const body = { code: 400, message: 'the request exceeds the available context size, try increasing it', type: 'exceed_context_size_error', n_prompt_tokens: counted, n_ctx: 8192 };
    const err = new ModelError('HTTP 400: the request exceeds the available context size, try increasing it', {
      kind: 'http',
      status: 400,
      cause: Object.assign(new Error('400 the request exceeds the available context size'), { error: body }),
    });
    expect(err.contextTooLong).toBe(true);
    await cm.forceCompact(run.conv, TOOL_SCHEMAS, undefined, err);
    expect(cm.window).toBe(8192);
    expect(cm.maxOutputTokens).toBe(2048);
    // What the server would count of the next request, plus the output reserve, fits n_ctx.
    expect(Math.round(estimateRequestTokens(run.request()) * 1.2) + cm.maxOutputTokens).toBeLessThanOrEqual(8192);
  });
});

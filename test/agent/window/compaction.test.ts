import { describe, expect, it } from 'vitest';
import {
  collapseToolResults,
  compactLocally,
  dropOldestGroups,
  keepLastUserTurns,
  type LocalCompactionOptions,
  shortenRecentResults,
  shortenToolResult,
  type StageInput,
  stageContext,
  STAGES,
  StageUndone,
  SUMMARY_HEADER,
  summarizeOlder,
} from '../../../src/agent/window/compaction.js';
import { conversationProblems, groupMessages } from '../../../src/agent/window/message-groups.js';
import { countTokens, estimateRequestTokens, fixedTokens, messagesTokens } from '../../../src/agent/window/tokens.js';
import type { Message, ModelClient, ModelRequest, ModelResponse } from '../../../src/agent/types.js';
import { readResult, recordedConversation, transcriptNote } from '../../helpers/long-meeting.js';
import { capturedLogger } from '../../helpers/captured-log.js';

/** A model that answers every request with `answer` (or throws it) and records the requests. */
function fakeModel(answer: string | Error): ModelClient & { requests: ModelRequest[] } {
  const requests: ModelRequest[] = [];
  return {
    api: 'chat-completions',
    requests,
    async complete(request: ModelRequest): Promise<ModelResponse> {
      requests.push(request);
      if (answer instanceof Error) throw answer;
      return { content: answer, toolCalls: [], usage: { inputTokens: 100, outputTokens: 20 }, finishReason: 'stop' };
    },
  };
}

const NOTES =
  '- Read the meeting note, user notes, glossary and transcript lines 1-480.\n- Billing ships behind a flag; Alice owns the rollback plan (Friday).\n- Still to read: lines 481 onwards.';

function conversation(ranges = 8) {
  return recordedConversation({ ranges });
}

function total(conv: { instructions: string; tools: Parameters<typeof fixedTokens>[0]['tools'] }, messages: Message[]): number {
  return estimateRequestTokens({ instructions: conv.instructions, tools: conv.tools, messages });
}

function ctxFor(conv: ReturnType<typeof conversation>, target: number, extra: Partial<LocalCompactionOptions> = {}): StageInput {
  return stageContext(conv, { target, tools: conv.tools, log: capturedLogger().log, ...extra });
}

/** The most recent group of `messages`, as objects. */
function lastGroup(messages: Message[]): Message[] {
  const g = groupMessages(messages).at(-1)!;
  return messages.slice(g.start, g.end);
}

/** Every group of `after` appears whole in `before` (same objects, or the same call with shortened results). */
function expectGroupsWhole(after: Message[]): void {
  expect(conversationProblems(after)).toEqual([]);
}

describe('groups', () => {
  it('keeps an assistant message with all its tool results together, the first user message outside', () => {
    const { messages } = conversation(2);
    const groups = groupMessages(messages);
    expect(groups[0]!.start).toBe(1);
    expect(groups.at(-1)!.end).toBe(messages.length);
    for (let i = 1; i < groups.length; i++) expect(groups[i]!.start).toBe(groups[i - 1]!.end);
    // read_usernotes and read_glossary were asked for in one message: one group of three.
    const both = groups.find((g) => g.end - g.start === 3)!;
    expect(messages.slice(both.start, both.end).map((m) => m.role)).toEqual(['assistant', 'tool', 'tool']);
  });

  it('reports a result without its call and a call without its result', () => {
    const call: Message = { role: 'assistant', content: '', toolCalls: [{ id: 'a', name: 'read_transcript', arguments: '{}' }] };
    const result: Message = { role: 'tool', toolCallId: 'a', name: 'read_transcript', content: 'x' };
    expect(conversationProblems([{ role: 'user', content: 'hi' }, call, result])).toEqual([]);
    expect(conversationProblems([{ role: 'user', content: 'hi' }, result])).toHaveLength(1);
    expect(conversationProblems([{ role: 'user', content: 'hi' }, call, { role: 'user', content: 'go on' }])).toHaveLength(1);
  });
});

describe('stage: collapse old tool results', () => {
  it('replaces old results by placeholders naming the tool and its arguments; tokens go down; the newest group is untouched', async () => {
    const conv = conversation();
    const before = total(conv, conv.messages);
    const out = await collapseToolResults(conv.messages, ctxFor(conv, fixedTokens(conv)));
    const after = total(conv, out);
    expect(after).toBeLessThan(before / 3);
    expect(out[0]).toBe(conv.messages[0]);
    expect(lastGroup(out)).toEqual(lastGroup(conv.messages));
    expect(out).toHaveLength(conv.messages.length);
    const placeholders = out.filter((m) => m.role === 'tool' && m.content.startsWith('[Result of '));
    expect(placeholders.length).toBeGreaterThan(5);
    expect(out.some((m) => m.role === 'tool' && m.content.startsWith('[Result of read_transcript({"from":121,"to":240}) removed'))).toBe(true);
    expectGroupsWhole(out);
  });

  it('stops as soon as the target is met: oldest first', async () => {
    const conv = conversation();
    const before = total(conv, conv.messages);
    const out = await collapseToolResults(conv.messages, ctxFor(conv, before - 1));
    const changed = out.filter((m, i) => m !== conv.messages[i]);
    expect(changed).toHaveLength(1);
    expect(changed[0]).toMatchObject({ role: 'tool', name: 'read_meetingnote' });
  });
});

describe('stage: summarize older messages', () => {
  it('replaces the older part by one summary from the model, asked without tools and within the limit', async () => {
    const conv = conversation();
    const model = fakeModel(NOTES);
    const before = total(conv, conv.messages);
    const ctx = ctxFor(conv, Math.floor(before / 3), { model, renderLimit: 3000 });
    const out = await summarizeOlder(conv.messages, ctx);
    expect(total(conv, out)).toBeLessThan(before / 3);
    expect(out[0]).toBe(conv.messages[0]);
    expect(out[1]).toEqual({ role: 'user', content: `${SUMMARY_HEADER}\n${NOTES}` });
    expect(lastGroup(out)).toEqual(lastGroup(conv.messages));
    expectGroupsWhole(out);
    // Everything after the summary is the unchanged tail of the conversation.
    const tail = out.slice(2);
    expect(conv.messages.slice(conv.messages.length - tail.length)).toEqual(tail);

    expect(model.requests).toHaveLength(1);
    const request = model.requests[0]!;
    expect(request.tools).toEqual([]);
    expect(request.messages).toHaveLength(1);
    expect(request.messages[0]!.role).toBe('user');
    expect(estimateRequestTokens(request)).toBeLessThanOrEqual(3000 + countTokens(request.instructions) + 64);
    // The history it condensed includes the tool results as text.
    expect((request.messages[0] as { content: string }).content).toContain('Result of read_transcript');
  });

  it('leaves the conversation as it was when the model call fails', async () => {
    const conv = conversation();
    const ctx = ctxFor(conv, 2000, { model: fakeModel(new Error('HTTP 500 from the endpoint')) });
    await expect(summarizeOlder(conv.messages, ctx)).rejects.toBeInstanceOf(StageUndone);
    const copy = conv.messages.slice();
    const { log, lines } = capturedLogger();
    const report = await compactLocally(conv, {
      target: 2000,
      tools: conv.tools,
      log,
      model: fakeModel(new Error('HTTP 500 from the endpoint')),
      stages: ['summarize-older', 'drop-oldest-groups'],
    });
    expect(report.stages.map((s) => s.stage)).toEqual(['summarize-older', 'drop-oldest-groups']);
    expect(report.stages[0]!.undone).toMatch(/HTTP 500/);
    expect(report.stages[0]!.after).toBe(report.stages[0]!.before);
    expect(lines.some((l) => l.level === 'warn' && l.msg.includes('undone'))).toBe(true);
    // The next stage worked on the original messages.
    expect(conv.messages[0]).toBe(copy[0]);
    expect(lastGroup(conv.messages)).toEqual(lastGroup(copy));
    expectGroupsWhole(conv.messages);
  });
});

describe('stage: keep the last four user turns', () => {
  it('keeps the first message, earlier summaries and the last four turns, cutting between groups', async () => {
    const conv = conversation();
    const summary: Message = { role: 'user', content: `${SUMMARY_HEADER}\n${NOTES}` };
    const messages = [conv.messages[0]!, summary, ...conv.messages.slice(1)];
    const out = await keepLastUserTurns(messages, ctxFor(conv, 0));
    expect(out[0]).toBe(messages[0]);
    expect(out[1]).toBe(summary);
    expect(total(conv, out)).toBeLessThan(total(conv, messages));
    const turns = groupMessages(out).filter((g) => {
      const head = out[g.start]!;
      return head.role === 'assistant' && (head.toolCalls?.length ?? 0) > 0;
    });
    expect(turns).toHaveLength(4);
    expect(out.slice(2)).toEqual(messages.slice(messages.length - (out.length - 2)));
    expectGroupsWhole(out);
  });
});

describe('stage: drop the oldest groups', () => {
  it('drops whole groups from the oldest until the request fits, keeping the first message', async () => {
    const conv = conversation();
    const before = total(conv, conv.messages);
    const target = Math.floor(before * 0.6);
    const out = await dropOldestGroups(conv.messages, ctxFor(conv, target));
    expect(total(conv, out)).toBeLessThanOrEqual(target);
    expect(out[0]).toBe(conv.messages[0]);
    // What is kept is the newest part, contiguous and unchanged.
    expect(out.slice(1)).toEqual(conv.messages.slice(conv.messages.length - (out.length - 1)));
    // …and no more was dropped than needed: one group back would not fit.
    const groups = groupMessages(conv.messages);
    const firstKept = groups.findIndex((g) => g.start === conv.messages.length - (out.length - 1));
    const oneMore = [conv.messages[0]!, ...conv.messages.slice(groups[firstKept - 1]!.start)];
    expect(total(conv, oneMore)).toBeGreaterThan(target);
    expectGroupsWhole(out);
  });

  it('never drops the most recent group', async () => {
    const conv = conversation();
    const out = await dropOldestGroups(conv.messages, ctxFor(conv, 0));
    expect(out).toEqual([conv.messages[0], ...lastGroup(conv.messages)]);
  });
});

describe('stage: shorten the results that are left', () => {
  it('cuts an enormous newest result at a line, saying which line to read next', async () => {
    const lines = transcriptNote();
    const whole = readResult('Meetings/Transcripts/T.md', lines, 1, lines.length);
    const conv = conversation(0);
    const messages: Message[] = [
      conv.messages[0]!,
      { role: 'assistant', content: '', toolCalls: [{ id: 'big', name: 'read_transcript', arguments: '{}' }] },
      { role: 'tool', toolCallId: 'big', name: 'read_transcript', content: whole },
    ];
    const target = fixedTokens(conv) + 3000;
    const out = await shortenRecentResults(messages, ctxFor(conv, target));
    expect(total(conv, out)).toBeLessThanOrEqual(target);
    expect(out).toHaveLength(3);
    const result = out[2] as { content: string };
    expect(result.content.startsWith('Meetings/Transcripts/T.md (lines 1-')).toBe(true);
    const shown = [...result.content.matchAll(/^\s*(\d+)\t/gm)].map((m) => Number(m[1]));
    const last = shown.at(-1)!;
    expect(result.content).toContain(`Shown up to line ${last} of ${lines.length}`);
    expect(result.content).toContain(`from: ${last + 1}`);
    expectGroupsWhole(out);
  });

  it('leaves results that fit alone', () => {
    expect(shortenToolResult('small', 100, 'search')).toBe('small');
  });
});

describe('compactLocally', () => {
  it('runs only the first stage when it is enough', async () => {
    const conv = conversation();
    const before = total(conv, conv.messages);
    const { log, lines } = capturedLogger();
    const report = await compactLocally(conv, { target: before - 100, tools: conv.tools, log, model: fakeModel(NOTES) });
    expect(report.stages.map((s) => s.stage)).toEqual(['collapse-tool-results']);
    expect(report.fits).toBe(true);
    expect(report.after).toBe(total(conv, conv.messages));
    const stageLines = lines.filter((l) => l.msg === 'compaction stage');
    expect(stageLines).toEqual([expect.objectContaining({ stage: 'collapse-tool-results', before, after: report.after })]);
  });

  it('goes on to the summary when collapsing is not enough, and stops there', async () => {
    const conv = conversation();
    const collapsed = await collapseToolResults(conv.messages, ctxFor(conv, 0));
    const target = total(conv, collapsed) - 200;
    const model = fakeModel(NOTES);
    const report = await compactLocally(conv, { target, tools: conv.tools, log: capturedLogger().log, model });
    expect(report.stages.map((s) => s.stage)).toEqual(['collapse-tool-results', 'summarize-older']);
    expect(report.fits).toBe(true);
    expect(model.requests).toHaveLength(1);
  });

  it('runs every stage in order, none raising the tokens, when nothing less is enough', async () => {
    const conv = conversation();
    // The newest group is a very large read, and the summary call fails: every stage is needed.
    const lines = transcriptNote();
    conv.messages.push(
      { role: 'assistant', content: '', toolCalls: [{ id: 'big', name: 'read_transcript', arguments: '{"from":1,"to":400}' }] },
      { role: 'tool', toolCallId: 'big', name: 'read_transcript', content: readResult('Meetings/Transcripts/T.md', lines, 1, 400) },
    );
    const first = conv.messages[0];
    const newest = lastGroup(conv.messages);
    const { log, lines: logLines } = capturedLogger();
    const target = fixedTokens(conv) + 2000;
    const report = await compactLocally(conv, { target, tools: conv.tools, log, model: fakeModel(new Error('model offline')) });
    expect(report.stages.map((s) => s.stage)).toEqual(STAGES);
    expect(report.fits).toBe(true);
    for (const stage of report.stages) expect(stage.after).toBeLessThanOrEqual(stage.before);
    for (let i = 1; i < report.stages.length; i++) expect(report.stages[i]!.before).toBe(report.stages[i - 1]!.after);
    expect(logLines.filter((l) => l.msg === 'compaction stage').map((l) => l.stage)).toEqual(STAGES);
    expect(conv.messages[0]).toBe(first);
    // The newest group is still there as a whole: its call, and its result (shortened).
    expect(conv.messages).toHaveLength(1 + newest.length);
    expect(conv.messages[1]).toBe(newest[0]);
    expect((conv.messages[2] as { content: string }).content).toContain('Read the rest with read_transcript');
    expectGroupsWhole(conv.messages);
  });

  it('keeps the conversation valid for any target', async () => {
    const base = conversation();
    const full = total(base, base.messages);
    for (let share = 0.05; share < 1; share += 0.1) {
      const conv = conversation();
      const first = conv.messages[0];
      const target = Math.floor(full * share);
      const report = await compactLocally(conv, { target, tools: conv.tools, log: capturedLogger().log, model: fakeModel(NOTES) });
      expect(conv.messages[0]).toBe(first);
      expect(conversationProblems(conv.messages)).toEqual([]);
      expect(report.after).toBe(total(conv, conv.messages));
      expect(report.after).toBeLessThan(full);
      expect(messagesTokens(lastGroup(conv.messages))).toBeGreaterThan(0);
      if (share > 0.2) expect(report.fits).toBe(true);
    }
  });
});

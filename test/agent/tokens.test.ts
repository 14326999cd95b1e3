import { countTokens as exactCount } from 'gpt-tokenizer/encoding/cl100k_base';
import { describe, expect, it } from 'vitest';
import {
  countTokens,
  estimateRequestTokens,
  fixedTokens,
  messageTokens,
  toolsTokens,
  truncateToTokens,
} from '../../src/agent/tokens.js';
import type { Message } from '../../src/agent/types.js';
import { exactTemplateTokens, INSTRUCTIONS, recordedConversation, TOOL_SCHEMAS, transcriptLines } from '../helpers/long-meeting.js';

describe('countTokens', () => {
  it('counts with the cl100k_base encoding', () => {
    expect(countTokens('')).toBe(0);
    expect(countTokens('hello world')).toBe(2);
    const text = transcriptLines(500).join('\n');
    expect(countTokens(text)).toBe(exactCount(text));
  });

  it('reads special-token text in a transcript as plain text instead of throwing', () => {
    expect(countTokens('he said <|endoftext|> and left')).toBeGreaterThan(5);
  });
});

describe('truncateToTokens', () => {
  it('keeps the first tokens and leaves short text alone', () => {
    const text = transcriptLines(400).join('\n');
    const cut = truncateToTokens(text, 50);
    expect(countTokens(cut)).toBeLessThanOrEqual(50);
    expect(text.startsWith(cut)).toBe(true);
    expect(truncateToTokens('short text', 50)).toBe('short text');
  });
});

describe('estimateRequestTokens', () => {
  const base = { instructions: INSTRUCTIONS, messages: [{ role: 'user', content: 'Summarize.' }] as Message[], tools: [] };

  it('counts the instructions, every message, tool calls, tool results and the tool schemas', () => {
    const empty = estimateRequestTokens(base);
    expect(empty).toBeGreaterThan(countTokens(INSTRUCTIONS) + countTokens('Summarize.'));

    const withTools = estimateRequestTokens({ ...base, tools: TOOL_SCHEMAS });
    expect(withTools - empty).toBe(toolsTokens(TOOL_SCHEMAS));
    expect(toolsTokens(TOOL_SCHEMAS)).toBeGreaterThan(countTokens(JSON.stringify(TOOL_SCHEMAS.map((t) => t.parameters))));

    const args = JSON.stringify({ from: 1, to: 200, comment: 'a fairly long argument text to count' });
    const call: Message = { role: 'assistant', content: '', toolCalls: [{ id: 'c1', name: 'read_transcript', arguments: args }] };
    const result: Message = { role: 'tool', toolCallId: 'c1', name: 'read_transcript', content: transcriptLines(300).join('\n') };
    const full = estimateRequestTokens({ ...base, messages: [...base.messages, call, result] });
    expect(full - empty).toBe(messageTokens(call) + messageTokens(result));
    expect(messageTokens(call)).toBeGreaterThan(countTokens(args) + countTokens('read_transcript'));
    expect(messageTokens(result)).toBeGreaterThan(countTokens(result.content));
  });

  it('counts an opaque compaction item by its size', () => {
    const item: Message = { role: 'compaction', encryptedContent: 'x'.repeat(4000) };
    expect(messageTokens(item)).toBeGreaterThanOrEqual(1000);
  });

  it('errs on the safe side of the exact count of the request as a chat template renders it, by under 5 %', () => {
    for (const ranges of [0, 2, 10]) {
      const conv = recordedConversation({ ranges });
      const estimate = estimateRequestTokens(conv);
      const exact = exactTemplateTokens(conv, countTokens);
      expect(estimate).toBeGreaterThanOrEqual(exact);
      expect((estimate - exact) / exact).toBeLessThan(0.05);
    }
  });

  it('separates what compaction cannot change', () => {
    const conv = recordedConversation({ ranges: 2 });
    expect(fixedTokens(conv)).toBe(estimateRequestTokens({ ...conv, messages: [] }));
  });
});

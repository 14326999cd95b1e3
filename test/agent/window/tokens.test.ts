import { countTokens as exactCount } from 'gpt-tokenizer/encoding/cl100k_base';
import { describe, expect, it } from 'vitest';
import {
  countTokens,
  estimateRequestTokens,
  fixedTokens,
  messageTokens,
  pieces,
  toolsTokens,
  truncateToTokens,
} from '../../../src/agent/window/tokens.js';
import type { Message } from '../../../src/agent/types.js';
import { exactTemplateTokens, INSTRUCTIONS, recordedConversation, TOOL_SCHEMAS, transcriptLines } from '../../helpers/long-meeting.js';

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

describe('hostile sizes (issue #24 point 8: a line of 6,000,000 characters overflowed the stack)', () => {
  it.each([
    ['one character', 'a'.repeat(6_000_000)],
    ['letters, digits and punctuation', 'ab1-'.repeat(1_500_000)],
    ['CJK', '会議'.repeat(3_000_000)],
    ['emoji (surrogate pairs)', '😀'.repeat(3_000_000)],
  ])('a 6,000,000-character line without a space (%s) is counted and truncated', (_name, line) => {
    const n = countTokens(line);
    expect(n).toBeGreaterThan(0);
    expect(truncateToTokens(line, 10).length).toBeGreaterThan(0);
  });

  it('a long text with spaces is cut into pieces of bounded length that together are the text', () => {
    const text = 'word '.repeat(1_000_000);
    const parts = pieces(text);
    expect(parts.join('')).toBe(text);
    expect(Math.max(...parts.map((p) => p.length))).toBeLessThanOrEqual(16 * 1024 + 8);
    // Cut before a space: every piece after the first starts with one, as the tokenizer groups them.
    expect(parts.slice(1).every((p) => p.startsWith(' '))).toBe(true);
    // "word", then " word" each, then the last space: the count of the uncut text.
    expect(countTokens(text)).toBe(1_000_001);
  });

  it('never cuts between the halves of a surrogate pair', () => {
    const parts = pieces('😀'.repeat(1000));
    expect(parts.every((p) => !/[\uD800-\uDBFF]$/.test(p))).toBe(true);
  });
});

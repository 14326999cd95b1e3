import { describe, expect, it } from 'vitest';
import { AgentError } from '../../../src/agent/loop.js';
import { ToolsRefusedError } from '../../../src/agent/model/tools-refused.js';
import { ModelError } from '../../../src/agent/types.js';
import { countTokens } from '../../../src/agent/window/tokens.js';
import { causeAdvice, toollessCause } from '../../../src/meeting/without-tools/cause.js';
import { cutToTokens } from '../../../src/meeting/without-tools/materials.js';
import { answerText, splitTitle, toollessShape } from '../../../src/meeting/without-tools/request.js';

describe('answerText: the summary, never the reasoning', () => {
  it.each([
    ['closed think first', '<think>I should list the decisions.</think>\n## Summary\nDone.', '## Summary\nDone.'],
    ['thinking tag', '<thinking>hmm</thinking>## Summary\nDone.', '## Summary\nDone.'],
    ['orphan close (Qwen3 template put <think> into the prompt)', 'reasoning here</think>\n## Summary\nDone.', '## Summary\nDone.'],
    ['a block opened later and never closed', '## Summary\nDone.\n<think>wait, was it Friday', '## Summary\nDone.'],
    ['all reasoning, never closed', '<think>The meeting was about', ''],
    ['fenced as markdown', '```markdown\n## Summary\nDone.\n```', '## Summary\nDone.'],
    ['a preamble line before the first heading', 'Here is the summary of the meeting:\n\n## Summary\nDone.', '## Summary\nDone.'],
    ['a preamble before a fenced summary', 'Sure! Here it is:\n```markdown\n## Summary\nDone.\n```', '## Summary\nDone.'],
    ['a first sentence that is the summary stays', 'The team met: all agreed.\nNext week more.', 'The team met: all agreed.\nNext week more.'],
    ['a fence inside is kept', '## Summary\nDone.\n```text\nx\n```\n## Decisions\nNone.', '## Summary\nDone.\n```text\nx\n```\n## Decisions\nNone.'],
  ])('%s', (_, content, expected) => {
    expect(answerText(content)).toBe(expected);
  });
});

describe('splitTitle', () => {
  it('takes a leading Title line, plain, bold or as a heading', () => {
    expect(splitTitle('Title: Release sync\n\n## Summary\nx')).toEqual({ title: 'Release sync', body: '## Summary\nx' });
    expect(splitTitle('**Title:** Release sync\n## Summary\nx')).toEqual({ title: 'Release sync', body: '## Summary\nx' });
    expect(splitTitle('# Title: Release sync\n## Summary\nx')).toEqual({ title: 'Release sync', body: '## Summary\nx' });
  });
  it('leaves a body without one as it is', () => {
    expect(splitTitle('## Summary\nTitle: not a title line here')).toEqual({ body: '## Summary\nTitle: not a title line here' });
  });
});

describe('cutToTokens', () => {
  const text = Array.from({ length: 200 }, (_, i) => `- Term ${i}: its spelling`).join('\n');
  it('keeps whole lines within the budget and says how many were left out', () => {
    const cut = cutToTokens(text, 120);
    expect(countTokens(cut)).toBeLessThanOrEqual(120);
    expect(cut).toMatch(/^- Term 0: its spelling\n/);
    expect(cut).toMatch(/\n\(… \d+ more lines not shown: the window has no room for them\)$/);
  });
  it('a text that fits is kept whole; no room at all gives nothing', () => {
    expect(cutToTokens('short\n', 100)).toBe('short');
    expect(cutToTokens(text, 5)).toBe('');
  });
});

describe('why a run goes without tools', () => {
  it('only a refusal or a text-only model; any other failure is not a reason', () => {
    expect(toollessCause(new ToolsRefusedError('HTTP 500', 'tools param requires --jinja flag', { status: 500 }))).toEqual({ kind: 'refused', serverWords: 'tools param requires --jinja flag' });
    expect(toollessCause(new AgentError('no-tool-calls', 'text only'))).toEqual({ kind: 'text-only' });
    expect(toollessCause(new AgentError('max-turns', 'too many'))).toBeUndefined();
    expect(toollessCause(new ModelError('HTTP 500', { kind: 'http', status: 500 }))).toBeUndefined();
  });
  it('the advice matches the server', () => {
    expect(causeAdvice({ kind: 'refused', serverWords: 'tools param requires --jinja flag' })).toMatch(/llama-server with `--jinja`/);
    expect(causeAdvice({ kind: 'refused', serverWords: '"auto" tool choice requires --enable-auto-tool-choice and --tool-call-parser to be set' })).toMatch(/vLLM with `--enable-auto-tool-choice --tool-call-parser/);
    expect(causeAdvice({ kind: 'refused', serverWords: 'registry.ollama.ai/library/phi4:latest does not support tools' })).toMatch(/models tagged "tools"/);
    expect(causeAdvice({ kind: 'text-only' })).toMatch(/LM Studio: a chat template with tool support/);
  });
  it("the shape section speaks of the answer, not of write_summary", () => {
    expect(toollessShape("Summary structure (write_summary's content), exactly these sections:")).toBe('Summary structure, exactly these sections:');
  });
});

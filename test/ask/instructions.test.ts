import { describe, expect, it } from 'vitest';
import { askFirstMessage, askInstructions } from '../../src/ask/instructions.js';
import { countTokens } from '../../src/agent/window/tokens.js';
import { MEETING_TOOLS, meetingToolSchema } from '../../src/mcp/meeting-tools.js';

/** What the ask run's model is told (docs/design.md §11). */
describe('ask instructions', () => {
  it("answer in the question's language unless Agent.Language is set", () => {
    expect(askInstructions('')).toContain('Answer briefly, in the language of the question.');
    expect(askInstructions(' German ')).toContain('Answer briefly, in German.');
  });

  it('the first message is the question, then the scope when one is given', () => {
    expect(askFirstMessage('  Who?  ', { projects: [] })).toBe('Who?');
    expect(askFirstMessage('Who?', { projects: ['Alpha'], from: '2026-11-01' })).toBe('Who?\n\nOnly meetings of the project Alpha from 2026-11-01 count.');
  });

  // Sent with every request: at 4,096 tokens with 1,024 kept for the answer, what is left is for the meetings read.
  it('instructions and the four schemas take under a third of the request room of a 4,096-token window', () => {
    const fixed = countTokens(askInstructions('')) + countTokens(JSON.stringify(MEETING_TOOLS.map(meetingToolSchema)));
    expect(fixed).toBeLessThan((4096 - 1024) / 3);
  });
});

import { describe, expect, it } from 'vitest';
import { buildInstructions } from '../../src/meeting/prompt.js';

/**
 * The default prompt names only tools the conversation is offered (docs/design.md §3 step 9: a
 * model must never meet "there is no tool named …"). A meeting whose projects have no past
 * summary yet is offered the project tools and search, not the past-meeting tools.
 */
describe('the default prompt of one conversation with the project tools', () => {
  it('speaks of past summaries only when the past-meeting tools are offered', () => {
    const withoutPast = buildInstructions('', [], { projectTools: true, pastTools: false });
    expect(withoutPast).toContain('Project files');
    expect(withoutPast).not.toMatch(/past summar/i);
    const withPast = buildInstructions('', [], { projectTools: true, pastTools: true });
    expect(withPast).toMatch(/past summaries \(read-only\)/);
  });
});

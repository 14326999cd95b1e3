import { describe, expect, it } from 'vitest';
import { requestOverhead } from '../../src/agent/overhead.js';
import { buildInstructions, DEFAULT_PROMPT, PROJECT_STEP } from '../../src/agent/prompt.js';
import { summaryShapeSection } from '../../src/agent/summary-shape.js';
import { offeredTools, type ToolOffer } from '../../src/tools/offer.js';
import { TOOLS } from '../../src/tools/registry.js';

/**
 * Issue 12: the instructions and tool schemas go out with every request, so on a 4,096-token
 * window (Ollama's default) they decide whether a meeting fits. Limits of the issue: 1,800
 * (chars/4 of the JSON as sent) with every tool, 1,100 for a meeting without projects or past
 * summaries. The figures today are well under (see bench/overhead.mjs), leaving room for the
 * summary-structure section of the default prompt.
 */

const ALL: ToolOffer = { projects: true, past: true, identities: true };
const PLAIN: ToolOffer = { projects: false, past: false, identities: true };
// The built-in summary structure goes with every default prompt (issue 16); a language named by
// the meeting note adds its sentence, the longest shape without a template.
const shape = summaryShapeSection({ language: { value: 'pt-BR', source: 'meeting' }, taskFormat: 'dataview' });
const instructions = (projectTools: boolean) => buildInstructions('', [], { projectTools, shape });
const schemas = (offer: ToolOffer) => offeredTools(offer).map(({ name, description, parameters }) => ({ name, description, parameters }));

describe('the fixed overhead of a request', () => {
  it('is at most 1,800 tokens (chars/4 of the JSON as sent) with the default prompt and all nineteen tools', () => {
    const tools = schemas(ALL);
    expect(tools).toHaveLength(19);
    const overhead = requestOverhead(instructions(true), tools);
    expect(overhead.charsPerFour).toBeLessThanOrEqual(1800);
    expect(overhead.cl100k).toBeLessThanOrEqual(1650);
  });

  it('is at most 1,100 for a meeting with neither projects nor past summaries', () => {
    const tools = schemas(PLAIN);
    expect(tools.map((t) => t.name)).not.toContain('search');
    const overhead = requestOverhead(instructions(false), tools);
    expect(overhead.charsPerFour).toBeLessThanOrEqual(1100);
  });

  it('keeps every tool described, in words a small model can act on', () => {
    for (const tool of TOOLS) expect(tool.description.length, tool.name).toBeGreaterThan(10);
    // What the prompt must still say (issue 12 keeps the content): order, owners and dates,
    // decisions, no invention, read-only history, project files after the summary.
    expect(DEFAULT_PROMPT).toMatch(/First call write_summary/);
    expect(instructions(true)).toMatch(/## Decisões|## Decisions/);
    expect(instructions(true)).toMatch(/owner first, a date only when one was said/);
    expect(DEFAULT_PROMPT).toMatch(/never invent/);
    expect(DEFAULT_PROMPT).toMatch(/glossary/);
    expect(PROJECT_STEP).toMatch(/read-only/);
    expect(PROJECT_STEP).toMatch(/After the summary/);
  });

  it('leaves the project step out of the default prompt when no project or past-meeting tool is offered, never out of a configured one', () => {
    expect(buildInstructions('', [], { projectTools: false })).not.toContain(PROJECT_STEP);
    expect(buildInstructions('', [], { projectTools: false })).toMatch(/^You are Meeting Assistant[^]*\nFinally answer/);
    expect(buildInstructions('', [], { projectTools: true })).toBe(DEFAULT_PROMPT);
    expect(buildInstructions('Mine.', [], { projectTools: false })).toBe('Mine.');
  });
});

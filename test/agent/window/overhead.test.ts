import { describe, expect, it } from 'vitest';
import { requestOverhead } from '../../../src/agent/window/overhead.js';
import { buildInstructions, buildProjectInstructions, DEFAULT_PROMPT, PAST_STEP, PROJECT_PHASE_NOTE, PROJECT_PROMPT } from '../../../src/meeting/prompt.js';
import { summaryShapeSection } from '../../../src/meeting/summary-shape.js';
import { offeredTools, phasedTools, type ToolOffer } from '../../../src/tools/offered-tools.js';
import { TOOLS } from '../../../src/tools/registry.js';
import type { AnyTool } from '../../../src/tools/binding/types.js';

/**
 * Issues 12 and 21: the instructions and tool schemas go out with every request, so on a
 * 4,096-token window (Ollama's default) they decide whether a meeting fits. Issue 12's limits
 * (chars/4 of the JSON as sent): 1,800 with every tool, 1,100 for a meeting without projects
 * or past summaries. Since issue 21 no request carries all nineteen: a meeting with a project
 * folder goes in two phases (the summary with the meeting's twelve tools, then the project
 * files with seven), each well under; the figures are in bench/overhead.mjs.
 */

const ALL: ToolOffer = { projects: true, past: true, identities: true };
const PLAIN: ToolOffer = { projects: false, past: false, identities: true };
const PAST_ONLY: ToolOffer = { projects: false, past: true, identities: true };
// The built-in summary structure goes with every default prompt (issue 16); a language named by
// the meeting note adds its sentence, the longest shape without a template.
const shape = summaryShapeSection({ language: { value: 'pt-BR', source: 'meeting' }, taskFormat: 'dataview' });
const schemas = (tools: readonly AnyTool[]) => tools.map(({ name, description, parameters }) => ({ name, description, parameters }));

describe('the fixed overhead of a request', () => {
  it('summary phase of a meeting with everything: at most 1,100 (chars/4) with the default prompt and the meeting\'s twelve tools', () => {
    const { summary } = phasedTools(ALL);
    expect(summary).toHaveLength(12);
    const overhead = requestOverhead(buildInstructions('', [], { shape }), schemas(summary));
    expect(overhead.charsPerFour).toBeLessThanOrEqual(1100);
    expect(overhead.cl100k).toBeLessThanOrEqual(1000);
  });

  it('project phase: at most 850 with its prompt and its eight tools (read_transcript among them, issue 31)', () => {
    const { projects } = phasedTools(ALL);
    expect(projects).toHaveLength(8);
    const overhead = requestOverhead(buildProjectInstructions('', [], { pastTools: true }), schemas(projects!));
    expect(overhead.charsPerFour).toBeLessThanOrEqual(850);
  });

  it('a meeting with past summaries but no project folder (one phase, fifteen tools): at most 1,300', () => {
    const { summary, projects } = phasedTools(PAST_ONLY);
    expect(projects).toBeUndefined();
    expect(summary).toHaveLength(15);
    expect(requestOverhead(buildInstructions('', [], { shape, pastTools: true }), schemas(summary)).charsPerFour).toBeLessThanOrEqual(1300);
  });

  it('is at most 1,100 for a meeting with neither projects nor past summaries', () => {
    const tools = schemas(offeredTools(PLAIN));
    expect(tools.map((t) => t.name)).not.toContain('search');
    expect(requestOverhead(buildInstructions('', [], { shape }), tools).charsPerFour).toBeLessThanOrEqual(1100);
  });

  it('one conversation with all nineteen tools and the project step (the rule since issue 31): at most 1,650, a quarter of an 8,192 window with room to spare', () => {
    const tools = schemas(offeredTools(ALL));
    expect(tools).toHaveLength(19);
    const overhead = requestOverhead(buildInstructions('', [], { shape, pastTools: true, projectTools: true }), tools);
    expect(overhead.charsPerFour).toBeLessThanOrEqual(1650);
    expect(overhead.cl100k).toBeLessThanOrEqual(1500);
  });

  it('keeps every tool described, in words a small model can act on', () => {
    for (const tool of TOOLS) expect(tool.description.length, tool.name).toBeGreaterThan(10);
    // What the prompts must still say (issue 12 keeps the content): order, owners and dates,
    // decisions, no invention, read-only history, project files after the summary.
    expect(DEFAULT_PROMPT).toMatch(/Call write_summary/);
    expect(buildInstructions('', [], { shape })).toMatch(/## Decisões|## Decisions/);
    expect(buildInstructions('', [], { shape })).toMatch(/owner first, a date only when one was said/);
    expect(DEFAULT_PROMPT).toMatch(/never invent/);
    expect(DEFAULT_PROMPT).toMatch(/glossary/);
    expect(PAST_STEP).toMatch(/read-only/);
    expect(PROJECT_PROMPT).toMatch(/summary is written/);
    expect(PROJECT_PROMPT).toMatch(/read-only/);
    expect(PROJECT_PROMPT).toMatch(/write_projectfile/);
  });

  it('names only tools the conversation has: the past step only with the past-meeting tools, never in a configured prompt', () => {
    expect(buildInstructions('', [])).toBe(DEFAULT_PROMPT);
    expect(DEFAULT_PROMPT).not.toMatch(/projectfile|past_project|search/);
    expect(buildInstructions('', [], { pastTools: true })).toMatch(/^You are Meeting Assistant[^]*\n4\. Past summaries are read-only[^]*\nFinally answer/);
    expect(buildInstructions('Mine.', [], { pastTools: true })).toBe('Mine.');
    // With the project tools in the same conversation, the project step says both: read first if useful, write after the summary.
    expect(buildInstructions('', [], { pastTools: true, projectTools: true })).toMatch(/\n4\. Project files and past summaries \(read-only\)[^\n]*After the summary[^\n]*write_projectfile[^]*\nFinally answer/);
    expect(buildInstructions('Mine.', [], { projectTools: true })).toBe('Mine.');
    // The project phase names no tool of the summary's but read_transcript, which it is offered (issue 31).
    expect(PROJECT_PROMPT).not.toMatch(/write_summary|write_context|read_meetingnote/);
    expect(PROJECT_PROMPT).toMatch(/read_transcript/);
    expect(buildProjectInstructions('Mine.', [])).toBe(`Mine.\n\n${PROJECT_PHASE_NOTE}`);
  });
});

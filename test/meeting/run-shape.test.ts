import { describe, expect, it } from 'vitest';
import { PHASES_ABOVE_SHARE, runShape } from '../../src/meeting/run-shape.js';
import { fixedTokens } from '../../src/agent/window/tokens.js';
import { MIN_AGENT_ROOM, REPLY_RESERVE } from '../../src/meeting/long-transcript/notes-pass.js';
import { buildInstructions } from '../../src/meeting/prompt.js';
import { offeredTools } from '../../src/tools/offered-tools.js';

/**
 * Issue 31: one conversation with every offered tool is the rule; phases only where the
 * instructions and every offered schema would take more than a quarter of the window
 * (docs/design.md §3 step 9).
 */
const ALL = offeredTools({ projects: true, past: true, identities: true }).map(({ name, description, parameters }) => ({ name, description, parameters }));
const agents = [
  { project: 'Alpha', content: 'Alpha is the billing service. Record decisions in Overview.md under "## Decisions", newest last.' },
  { project: 'Beta', content: 'Beta is the platform team (databases, Kubernetes). Keep Roadmap.md short.' },
];
const whole = { instructions: buildInstructions('', agents, { pastTools: true, projectTools: true }), tools: ALL };

describe('the shape of a run', () => {
  it('goes in phases at 4,096, saying so with the window and the reason', () => {
    const shape = runShape(4096, whole, true);
    expect(shape.phased).toBe(true);
    expect(shape.reason).toMatch(/^4,096-token window: the summary first, then the project files \(the instructions and the 19 tools' schemas take 1,\d{3} tokens, more than a quarter of the window\)$/);
  });

  it.each([8192, 32_768, 131_072])('is one conversation with all nineteen tools at %i', (window) => {
    const shape = runShape(window, whole, true);
    expect(shape.phased).toBe(false);
    expect(shape.reason).toContain('one conversation with all 19 offered tools');
  });

  it('splits exactly above a quarter of the window', () => {
    const fixed = fixedTokens(whole);
    expect(runShape(fixed / PHASES_ABOVE_SHARE, whole, true).phased).toBe(false);
    expect(runShape(fixed / PHASES_ABOVE_SHARE - 4, whole, true).phased).toBe(true);
  });

  it('is one conversation whatever the window when there is no project phase to split off', () => {
    const shape = runShape(2048, whole, false);
    expect(shape.phased).toBe(false);
    expect(shape.reason).toContain('no project phase to split off');
  });
});

describe('the request room', () => {
  it('goes in phases when one conversation would leave the agent less than its least room, whatever its share of the window', () => {
    const fixed = fixedTokens(whole);
    const carried = fixed + 150;
    expect(runShape(8192, whole, true, { target: carried + REPLY_RESERVE + MIN_AGENT_ROOM, carried }).phased).toBe(false);
    const shape = runShape(8192, whole, true, { target: carried + REPLY_RESERVE + MIN_AGENT_ROOM - 1, carried });
    expect(shape.phased).toBe(true);
    expect(shape.reason).toMatch(/^8,192-token window: the summary first, then the project files \(.*leaving under 512 of the [\d,]+-token request room\)$/);
    // Without a project phase there is nothing to split off.
    expect(runShape(8192, whole, false, { target: carried, carried }).phased).toBe(false);
  });
});

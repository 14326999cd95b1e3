import { describe, expect, it } from 'vitest';
import { AgentError } from '../../src/agent/loop.js';
import { type PhasedRunOptions, runAgentPhases, summaryForRoom } from '../../src/meeting/phases.js';
import type { RunProgress } from '../../src/agent/progress.js';
import { countTokens } from '../../src/agent/window/tokens.js';
import type { ModelRequest, ModelResponse, ToolCall, ToolExecutor } from '../../src/agent/types.js';
import { silentLogger } from '../../src/log.js';

/**
 * Issue 21: a run in phases (src/meeting/phases.ts). The summary phase with the meeting's tools
 * ends once the summary is written; the project phase is a new conversation with only its own
 * tools and the summary handed on; both count against one Agent.MaxTurns.
 */

type Reply = Pick<ModelResponse, 'content' | 'toolCalls'>;
const calls = (...names: string[]): Reply => ({ content: '', toolCalls: names.map((name, i) => ({ id: `c${name}${i}`, name, arguments: '{}' })) });
const say = (content: string): Reply => ({ content, toolCalls: [] });

/** A model answering from a script, recording what each request carried. */
function scriptedModel(replies: Reply[]) {
  const requests: ModelRequest[] = [];
  return {
    requests,
    client: {
      api: 'chat-completions' as const,
      async complete(request: ModelRequest): Promise<ModelResponse> {
        requests.push({ ...request, messages: [...request.messages] });
        const reply = replies.shift();
        if (!reply) throw new Error('the script ran out');
        return { ...reply, usage: { inputTokens: 100, outputTokens: 10 } };
      },
    },
  };
}

/** Tools by name; write_summary sets the run's summary. */
function toolSet(names: string[], state: { summary?: string }): ToolExecutor {
  return {
    schemas: names.map((name) => ({ name, description: `the ${name} tool`, parameters: { type: 'object', properties: {} } })),
    async call(call: ToolCall) {
      if (!names.includes(call.name)) return { content: `Error: there is no tool named "${call.name}".`, isError: true };
      if (call.name === 'write_summary') state.summary = '## Summary\nShipped.\n## Decisions\n- Ship.';
      return { content: `${call.name} done`, isError: false };
    },
  };
}

const MEETING_TOOLS = ['read_transcript', 'override_speaker', 'write_summary'];
const PROJECT_TOOLS = ['read_projectfile', 'write_projectfile'];

function options(replies: Reply[], extra: Partial<PhasedRunOptions> & { stale?: () => string | undefined } = {}) {
  const state: { summary?: string } = {};
  const model = scriptedModel(replies);
  const progress: RunProgress[] = [];
  const opts: PhasedRunOptions = {
    model: model.client,
    tools: toolSet(MEETING_TOOLS, state),
    instructions: 'Summarize.',
    firstMessage: 'Summarize this meeting.',
    maxTurns: 10,
    maxOutputTokens: 1000,
    retry: { attempts: 0, delayMs: 0 },
    summaryWritten: () => state.summary !== undefined,
    summaryReminder: 'Write the summary.',
    summaryIssue: () => extra.stale?.(),
    log: silentLogger,
    onProgress: (event) => progress.push(event),
    projects: {
      tools: toolSet(PROJECT_TOOLS, state),
      instructions: 'Update the project files.',
      firstMessage: (summary) => `Update the projects.\n<summary>\n${summary}\n</summary>`,
    },
    summary: () => state.summary,
    ...extra,
  };
  return { opts, model, progress };
}

const toolsOf = (request: ModelRequest) => request.tools.map((t) => t.name);

describe('a run in phases', () => {
  it('carries only the phase\'s tools in each request; the project phase starts anew from the summary as written', async () => {
    const { opts, model } = options([calls('read_transcript'), calls('write_summary'), calls('read_projectfile'), calls('write_projectfile'), say('Done.')]);
    const result = await runAgentPhases(opts);
    expect(result.turns).toBe(5);
    expect(model.requests.map(toolsOf)).toEqual([MEETING_TOOLS, MEETING_TOOLS, PROJECT_TOOLS, PROJECT_TOOLS, PROJECT_TOOLS]);
    // The summary phase ended right after the call that wrote it: no closing answer was asked for.
    const third = model.requests[2]!;
    expect(third.instructions).toBe('Update the project files.');
    expect(third.messages).toEqual([{ role: 'user', content: 'Update the projects.\n<summary>\n## Summary\nShipped.\n## Decisions\n- Ship.\n</summary>' }]);
    expect(result.finalText).toBe('Done.');
  });

  it('keeps the summary phase going while the written summary still has something to fix', async () => {
    let writes = 0;
    const { opts, model } = options([calls('write_summary'), calls('read_transcript'), calls('write_summary'), calls('write_projectfile'), say('Done.')], {
      stale: () => (writes === 1 ? 'The summary you wrote is not finished: use names instead of "Speaker 2".' : undefined),
    });
    const tools = opts.tools;
    opts.tools = { schemas: tools.schemas, call: async (call) => ((writes += call.name === 'write_summary' ? 1 : 0), tools.call(call)) };
    await runAgentPhases(opts);
    // The first summary was stale: the phase went on until the second one.
    expect(model.requests.map(toolsOf)).toEqual([MEETING_TOOLS, MEETING_TOOLS, MEETING_TOOLS, PROJECT_TOOLS, PROJECT_TOOLS]);
  });

  it('shares Agent.MaxTurns: the turns go on from the summary phase\'s, and the limit counts both', async () => {
    const { opts, model, progress } = options([calls('read_transcript'), calls('write_summary'), calls('read_projectfile'), calls('read_projectfile')], { maxTurns: 3 });
    await expect(runAgentPhases(opts)).rejects.toThrow(AgentError);
    expect(model.requests).toHaveLength(3);
    expect(progress.filter((p) => p.kind === 'turn').map((p) => (p as { turn: number }).turn)).toEqual([1, 2, 3]);
  });

  it('summary written on the last turn Agent.MaxTurns allows: the run fails saying the project files were left, no request sent for them', async () => {
    const { opts, model } = options([calls('read_transcript'), calls('write_summary')], { maxTurns: 2 });
    await expect(runAgentPhases(opts)).rejects.toThrow(/the summary was written, but Agent\.MaxTurns \(2\) left no request to update the project files/);
    expect(model.requests).toHaveLength(2);
  });

  it('without a project phase is one conversation, ended by the model\'s closing answer as before', async () => {
    const { opts, model } = options([calls('write_summary'), say('Done.')], { projects: undefined });
    const result = await runAgentPhases(opts);
    expect(result.turns).toBe(2);
    expect(model.requests.map(toolsOf)).toEqual([MEETING_TOOLS, MEETING_TOOLS]);
  });

  it('hands on a summary longer than the window allows cut at a whole line, saying so', async () => {
    const { opts, model } = options([calls('write_summary'), say('Done.')], { room: { target: 200 } });
    const long = Array.from({ length: 120 }, (_, i) => `- Decision ${i + 1}: the billing release ships behind a feature flag.`).join('\n');
    opts.summary = () => long;
    await runAgentPhases(opts);
    const first = (model.requests[1]!.messages[0] as { content: string }).content;
    expect(first).toContain('- Decision 1: the billing');
    expect(first).not.toContain('Decision 120:');
    expect(first).toMatch(/\n\[Lines \d+-120 of the summary are not shown: they do not fit the context window\. Update the project files from what is shown\.\]\n<\/summary>$/);
  });
});

describe('summaryForRoom', () => {
  it('keeps a summary that fits as it is, and cuts a longer one at a whole line within the tokens', () => {
    const text = '## Summary\nShort.\n## Decisions\n- None.';
    expect(summaryForRoom(text, 100)).toBe(text);
    const long = Array.from({ length: 50 }, (_, i) => `Line ${i + 1} of the summary with a few words.`).join('\n');
    const cut = summaryForRoom(long, 120);
    expect(countTokens(cut)).toBeLessThanOrEqual(120);
    const kept = cut.split('\n').slice(0, -1);
    expect(long.startsWith(kept.join('\n'))).toBe(true);
    expect(cut.split('\n').at(-1)).toBe(`[Lines ${kept.length + 1}-50 of the summary are not shown: they do not fit the context window. Update the project files from what is shown.]`);
  });
});

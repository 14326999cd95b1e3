import { AgentError, type AgentLoopOptions, type AgentLoopResult, runAgentLoop } from '../agent/loop.js';
import { countTokens, fixedTokens, messagesTokens } from '../agent/window/tokens.js';
import type { ToolExecutor } from '../agent/types.js';

/**
 * A run in phases (docs/design.md §3 step 9), only where the window cannot hold one
 * conversation with every offered tool (run-shape.ts decides; without `projects` this is the
 * one conversation, the rule). A meeting bound to projects is summarized first, with the
 * meeting's own tools; once the summary is written (and has nothing left to fix), a new
 * conversation updates the project files with the project and history tools and
 * read_transcript, the summary's text handed on in its first message. Each request carries
 * only its phase's tools: on Ollama's default 4,096-token window all nineteen schemas and the
 * instructions left the transcript no room. The phases share the run's turn budget
 * (Agent.MaxTurns) and its context manager, so a window learnt in the summary phase (a cut, a
 * refusal) holds for the next.
 */

export interface ProjectPhase {
  tools: ToolExecutor;
  instructions: string;
  /** The phase's first message, given the summary as it is to be shown. */
  firstMessage(summary: string): string;
}

export interface PhasedRunOptions extends AgentLoopOptions {
  /** The phase after the summary; absent: the run is one conversation, as before phases. */
  projects?: ProjectPhase;
  /** The summary as written in this run (RunState.summaryBody). */
  summary: () => string | undefined;
  /** The request size the window allows (the context manager's target); absent: the summary is handed on whole. */
  room?: { readonly target: number };
}

/** The summary may take this share of what the project phase's fixed part leaves under the target: the rest is for reading project files. */
const SUMMARY_SHARE = 0.5;
const MIN_SUMMARY_TOKENS = 200;

export async function runAgentPhases(options: PhasedRunOptions): Promise<AgentLoopResult> {
  const { projects, summary, room, ...loop } = options;
  const first = await runAgentLoop({ ...loop, endOnceSummarized: projects !== undefined });
  if (!projects) return first;
  if (first.turns >= loop.maxTurns) {
    // The summary stays (docs/design.md §1); the run fails as any run out of turns does, saying which step they did not reach.
    throw new AgentError('max-turns', `the summary was written, but Agent.MaxTurns (${loop.maxTurns}) left no request to update the project files`);
  }
  const written = summary() ?? '';
  const shown = room ? summaryForRoom(written, summaryRoom(projects, room.target)) : written;
  loop.log.info(
    { turns: first.turns, tools: projects.tools.schemas.length, summaryCut: shown !== written },
    'summary written: updating the project files',
  );
  return runAgentLoop({
    ...loop,
    tools: projects.tools,
    instructions: projects.instructions,
    firstMessage: projects.firstMessage(shown),
    turnsBefore: first.turns,
  });
}

/** Tokens the handed-on summary may take in the project phase's first message. */
function summaryRoom(phase: ProjectPhase, target: number): number {
  const fixed = fixedTokens({ instructions: phase.instructions, tools: phase.tools.schemas });
  const frame = messagesTokens([{ role: 'user', content: phase.firstMessage('') }]);
  return Math.max(MIN_SUMMARY_TOKENS, Math.floor((target - fixed - frame) * SUMMARY_SHARE));
}

/**
 * The summary cut at a whole line to `maxTokens`, with a last line saying so: a summary longer
 * than the small window allows must not crowd out the project files it is compared with.
 */
export function summaryForRoom(summary: string, maxTokens: number): string {
  if (countTokens(summary) <= maxTokens) return summary;
  const lines = summary.split('\n');
  const note = (from: number) =>
    `[Lines ${from}-${lines.length} of the summary are not shown: they do not fit the context window. Update the project files from what is shown.]`;
  let used = countTokens(note(lines.length));
  let kept = 0;
  for (const line of lines) {
    const size = countTokens(line) + 1;
    if (used + size > maxTokens) break;
    used += size;
    kept++;
  }
  return [...lines.slice(0, kept), note(kept + 1)].join('\n');
}

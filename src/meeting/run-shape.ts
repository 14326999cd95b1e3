import { fixedTokens, messagesTokens } from '../agent/window/tokens.js';
import type { ToolExecutor, ToolSchema } from '../agent/types.js';
import type { ConversationStart, ConversationStarts } from './conversation-start.js';
import { offeredTools, phasedTools, type ToolOffer } from '../tools/offered-tools.js';
import type { AnyTool } from '../tools/binding/types.js';
import { MIN_AGENT_ROOM, REPLY_RESERVE } from './long-transcript/notes-pass.js';
import type { Logger } from '../log.js';

/**
 * One conversation or phases (docs/design.md §3 step 9). One conversation with every offered
 * tool is the rule: the agent may read a project file or last week's summary before it writes
 * this one's, and a model that does must never meet "there is no tool named …". Only when the
 * instructions and every offered schema would take more than a quarter of the window (Ollama's
 * default 4,096: the nineteen schemas alone are some 1,400 tokens) does the run go in phases,
 * the summary first, then the project files, so that the transcript keeps room to be read.
 *
 * The room is the window in use (ContextWindow.Tokens, or the smaller one the server told or
 * showed), not the compaction target: the target moves with MaxOutputTokens and Threshold,
 * and an 8,192 window must hold the whole offer whatever those say (at 8,192 all nineteen tools
 * and the instructions of a meeting with two AGENTS.md are some 1,600 tokens, a fifth). But a
 * window whose request room (the compaction target, after MaxOutputTokens) the whole
 * conversation's fixed part and first message would leave less than the agent's least room
 * (MIN_AGENT_ROOM, as the notes pass requires) cannot hold it either, whatever its share of the
 * window: Tokens 8,192 with MaxOutputTokens 6,144 leaves some 1,600 under the threshold.
 */

/** Above this share of the window, the instructions and schemas go in phases. */
export const PHASES_ABOVE_SHARE = 0.25;

export interface RunShape {
  phased: boolean;
  /** Why, for the run's one log line: "4,096-token window: the summary first, then the project files". */
  reason: string;
  /** Instructions and schemas of one conversation with every offered tool, in tokens. */
  fixed: number;
  window: number;
}

/**
 * The shape of a run, decided once, before the agent's first request, from the window known
 * then: a conversation never changes its tools (servers cache the prompt prefix, and a model
 * should not see its tools change under it). `canPhase`: there is a project phase to split off
 * (a project folder to update); without one the run is one conversation whatever the window.
 */
export function runShape(
  window: number,
  whole: { instructions: string; tools: readonly ToolSchema[] },
  canPhase: boolean,
  room?: { target: number; carried: number },
): RunShape {
  const fixed = fixedTokens(whole);
  const tokens = `${window.toLocaleString('en-US')}-token window`;
  const share = `the instructions and the ${whole.tools.length} tools' schemas take ${fixed.toLocaleString('en-US')} tokens`;
  if (!canPhase) return { phased: false, reason: `${tokens}: one conversation with all ${whole.tools.length} offered tools (no project phase to split off)`, fixed, window };
  if (fixed > window * PHASES_ABOVE_SHARE) {
    return { phased: true, reason: `${tokens}: the summary first, then the project files (${share}, more than a quarter of the window)`, fixed, window };
  }
  const left = room && room.target - room.carried - REPLY_RESERVE;
  if (left !== undefined && left < MIN_AGENT_ROOM) {
    const target = room!.target.toLocaleString('en-US');
    return { phased: true, reason: `${tokens}: the summary first, then the project files (${share}, leaving under ${MIN_AGENT_ROOM} of the ${target}-token request room)`, fixed, window };
  }
  return { phased: false, reason: `${tokens}: one conversation with all ${whole.tools.length} offered tools (${share}, at most a quarter of the window)`, fixed, window };
}

/** The tools of either shape: every offered one together, and (with a project folder) per phase. */
export interface ShapedTools {
  whole: ToolExecutor;
  phases?: { summary: ToolExecutor; projects: ToolExecutor };
}

/** A run's conversation as its shape makes it: how it starts, the tools of its (first) conversation, the project phase's. */
/** The executors of both shapes, `build` making one from a list of tools. */
export function shapedTools(offer: ToolOffer, build: (tools: AnyTool[]) => ToolExecutor): ShapedTools {
  const phases = phasedTools(offer);
  return {
    whole: build(offeredTools(offer)),
    ...(phases.projects && { phases: { summary: build(phases.summary), projects: build(phases.projects) } }),
  };
}

export interface ShapedConversation {
  shape: RunShape;
  start: ConversationStart;
  tools: ToolExecutor;
  /** Present for a run in phases. */
  projectTools?: ToolExecutor;
}

/** `room`: the window in use and its request room; `message` makes the first message as sent (a resumed run's notice). */
export function shapedConversation(
  room: { window: number; target: number },
  starts: ConversationStarts,
  tools: ShapedTools,
  message: (first: string) => string = (first) => first,
): ShapedConversation {
  const phased = starts.phased && tools.phases;
  const carried = carriedTokens({ start: starts.whole, tools: tools.whole }, message);
  const shape = runShape(room.window, { instructions: starts.whole.instructions, tools: tools.whole.schemas }, phased !== undefined, { target: room.target, carried });
  if (!shape.phased || !starts.phased || !tools.phases) return { shape, start: starts.whole, tools: tools.whole };
  return { shape, start: starts.phased, tools: tools.phases.summary, projectTools: tools.phases.projects };
}

/**
 * The run's one shape line (docs/design.md §3 step 9; the contract: "The choice and its reason
 * are logged once per run"), as a person tailing the log reads it. `notBegun`: the run ended before its conversation (in
 * the transcript's notes pass); the line is then the shape that conversation would have had, from
 * the window known at the end, said so after the reason, so that every run which knew its tools
 * says its shape, and a reader never takes it for a conversation that ran.
 */
export function logShape(log: Logger, conversation: ShapedConversation, notBegun?: string): void {
  const { shape, tools, projectTools } = conversation;
  const fields = { phased: shape.phased, window: shape.window, fixed: shape.fixed, tools: tools.schemas.length, projectPhaseTools: projectTools?.schemas.length };
  if (notBegun === undefined) log.info(fields, shape.reason);
  else log.info({ ...fields, begun: false }, `${shape.reason} — not begun: ${notBegun}`);
}

/**
 * For the notes pass's failure: the shape logged once all the same (docs/design.md §3 step 9),
 * the one the parts were sized for and the conversation would have had, marked as never begun;
 * then the failure goes on as it was.
 */
export function shapeLoggedOnFailure(log: Logger, conversationNow: () => ShapedConversation): (err: unknown) => never {
  return (err) => {
    logShape(log, conversationNow(), 'the run ended while the transcript was read into notes');
    throw err;
  };
}

/** What the conversation carries in every request besides the transcript: its instructions, schemas and first message (as `message` makes it). */
export function carriedTokens(conversation: Pick<ShapedConversation, 'start' | 'tools'>, message: (first: string) => string = (first) => first): number {
  const { instructions, firstMessage } = conversation.start;
  return fixedTokens({ instructions, tools: conversation.tools.schemas }) + messagesTokens([{ role: 'user', content: message(firstMessage) }]);
}

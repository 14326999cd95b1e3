import { AgentError } from '../../agent/loop.js';
import { isToolsRefused, MODEL_WITH_TOOLS, toolsRefusalAdvice } from '../../agent/model/tools-refused.js';
import { inertExternalText } from '../../vault/format/inert.js';

/**
 * Why a run goes without tools (docs/design.md §3 step 11, "No tools at all"): the server
 * refused a request with tools (its words kept), or the model answered in text, however
 * reminded, without calling one. Anything else is not a reason: a model that calls tools
 * properly is never moved to this path.
 */
export type ToollessCause =
  | { kind: 'refused'; serverWords: string; remembered?: boolean }
  | { kind: 'text-only' };

export function toollessCause(err: unknown): ToollessCause | undefined {
  if (isToolsRefused(err)) return { kind: 'refused', serverWords: err.serverWords };
  if (err instanceof AgentError && err.kind === 'no-tool-calls') return { kind: 'text-only' };
  return undefined;
}

/** The cause in plain words, for the context note and the log. */
export function causeSentence(cause: ToollessCause, model: string): string {
  if (cause.kind === 'refused') {
    const earlier = cause.remembered ? ' (it refused an earlier run\'s request the same way, so this run did not ask with tools again)' : '';
    return `the server refused a request with tools for the model \`${model}\`${earlier}; it said: "${inertExternalText(cause.serverWords)}"`;
  }
  return `the model \`${model}\` answered in text without calling any of the tools, even after a reminder`;
}

/** What gives the full agent (the tools: reading what it needs, project files, speaker names). */
export function causeAdvice(cause: ToollessCause): string {
  const fix =
    cause.kind === 'refused'
      ? toolsRefusalAdvice(cause.serverWords)
      : `set \`Endpoint.Model\` to ${MODEL_WITH_TOOLS}, or, when the model has it, ` +
        "the server's setting that turns its tool calls into structured calls (llama.cpp: `--jinja`; vLLM: `--enable-auto-tool-choice --tool-call-parser …`; " +
        "LM Studio: a chat template with tool support), then retry";
  return `${fix}. \`meeting-assistant doctor\` says how the model calls tools.`;
}

import { AgentError } from '../agent/loop.js';

/**
 * docs/design.md §2, "A model that does not call tools": many small local models answer in
 * text and never call a tool, so they cannot write a summary (it is written through a tool).
 * The failure report says so in plain words and what to do; the context note keeps the
 * model's last answer, so a person sees what it said instead.
 */

function textOnly(err: unknown): AgentError | undefined {
  return err instanceof AgentError && err.kind === 'no-tool-calls' ? err : undefined;
}

/** What to do about a model without tool calling: the failure report and `ask` (docs/design.md §11) say it alike. */
export const TOOL_CALLING_ADVICE =
  'Many small local models have no tool calling. Set `Endpoint.Model` to a model with tool ' +
  'calling (on Ollama, the models tagged "tools", e.g. qwen3 or llama3.1), run `meeting-assistant doctor` ' +
  '(its "tool calling" check asks the model to call one tool)';

export function noToolCallsAdvice(err: unknown, model: string): { notes: string[] } | undefined {
  if (!textOnly(err)) return undefined;
  return {
    notes: [
      `**The model \`${model}\` does not call tools.** It answered in text, even after a reminder, without ever ` +
        'calling one of the tools the assistant works with (reading the transcript, writing the summary), so it cannot ' +
        `make a summary. ${TOOL_CALLING_ADVICE}, then retry. The model's last answer is kept in the context note.`,
    ],
  };
}

/** The context note's section with the model's last answer; '' for any other failure. */
export function lastAnswerSection(err: unknown, now: Date): string {
  const e = textOnly(err);
  if (!e) return '';
  const answer = (e.lastAnswer ?? '').trim() || '(the answer was empty)';
  return `## The model's last answer (${now.toISOString()})\n\nThe model answered without calling a tool, so no summary was written. It said:\n\n${answer
    .split('\n')
    .map((line) => `> ${line}`)
    .join('\n')}`;
}

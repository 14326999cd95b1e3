import type { ScriptedReply, Step } from './scripted-server.js';

/**
 * Scripted-server modes for the shapes in which local servers and models deliver tool calls
 * (docs/design.md §3 step 11): calls written as text in the content, structured calls broken
 * in the ways servers break them, reasoning fields, and streams with the `index`/`id` quirks.
 * Each is an ordinary Step, so that scripted-server.ts needs no new route; the fixtures are
 * the strings as posted in the public issues named.
 */

/** A chat answer whose content holds a call written as text, as a server without the right parser sends it. */
export const textCall = (content: string, extra: Partial<ScriptedReply> = {}): Step => ({ reply: { content, ...extra } });

/** The shapes, each a function of the tool name and its arguments object. */
export const TEXT_CALL_SHAPES: Record<string, (name: string, args: Record<string, unknown>) => string> = {
  // ollama/ollama#12174 (qwen2.5-coder): the whole content.
  'bare JSON object': (name, args) => JSON.stringify({ name, arguments: args }),
  // Llama 3.x prompt format.
  '<|python_tag|>': (name, args) => `<|python_tag|>${JSON.stringify({ name, parameters: args })}`,
  // BerriAI/litellm#7209 (llama 3.3).
  '{"type": "function"}': (name, args) => JSON.stringify({ type: 'function', name, parameters: args }),
  // ollama/ollama#13519 (llama3.2:3b): a fenced json block.
  'fenced json': (name, args) => `\`\`\`json\n${JSON.stringify({ name, parameters: args })}\n\`\`\``,
  // Qwen / Hermes template.
  '<tool_call> closed': (name, args) => `<tool_call>\n${JSON.stringify({ name, arguments: args })}\n</tool_call>`,
  '<tool_call> unclosed in an unclosed <think>': (name, args) =>
    `<think>\nI need the transcript.\n<tool_call>\n${JSON.stringify({ name, arguments: args })}`,
  // lmstudio-bug-tracker#2115 (Qwen3-Coder on LM Studio 0.4).
  'Qwen3-Coder XML': (name, args) =>
    `<tool_call>\n<function=${name}>\n${Object.entries(args)
      .map(([k, v]) => `<parameter=${k}>\n${typeof v === 'string' ? v : JSON.stringify(v)}\n</parameter>`)
      .join('\n')}\n</function>\n</tool_call>`,
  // ml-explore/mlx-lm#1643 (Mistral Nemo, Mixtral).
  '[TOOL_CALLS][…]': (name, args) => `[TOOL_CALLS][${JSON.stringify({ name, arguments: args, id: 'abcdefghi' })}]`,
  // raullenchai/Rapid-MLX#1071 (devstral).
  '[TOOL_CALLS]NAME[ARGS]': (name, args) => `[TOOL_CALLS]${name}[ARGS]${JSON.stringify(args)}`,
  // kekzl/imp#1719 (gpt-oss).
  'gpt-oss harmony': (name, args) =>
    `<|channel|>analysis<|message|>We need to call ${name}.<|end|>\n<|start|>assistant<|channel|>commentary to=functions.${name} <|constrain|>json<|message|>${JSON.stringify(args)}<|call|>`,
};

/** A 200 chat completion written by hand: for message fields the scripted reply does not have (`reasoning`, `thinking`, odd calls). */
export function rawChat(message: Record<string, unknown>, finishReason = 'stop'): Step {
  return {
    status: 200,
    body: {
      id: 'chatcmpl-raw',
      object: 'chat.completion',
      created: 1700000000,
      model: 'test-model',
      choices: [{ index: 0, message: { role: 'assistant', ...message }, finish_reason: finishReason }],
      usage: { prompt_tokens: 10, completion_tokens: 5, total_tokens: 15 },
    },
  };
}

/** A streamed chat answer from these chunk deltas, as written (for the `index: 0` and `id`-once quirks). */
export function rawChatStream(deltas: Record<string, unknown>[], finishReason = 'tool_calls'): Step {
  const chunk = (delta: Record<string, unknown>, finish: string | null = null) =>
    `data: ${JSON.stringify({ id: 'chatcmpl-s', object: 'chat.completion.chunk', created: 1700000000, model: 'test-model', choices: [{ index: 0, delta, finish_reason: finish }] })}\n\n`;
  const body = [chunk({ role: 'assistant', content: '' }), ...deltas.map((d) => chunk(d)), chunk({}, finishReason), 'data: [DONE]\n\n'].join('');
  return { status: 200, body, headers: { 'content-type': 'text/event-stream' } };
}

import { chatRequestBody } from '../model/chat-completions.js';
import { countTokens } from './tokens.js';
import type { ToolSchema } from '../types.js';

/**
 * The fixed overhead of every request: the instructions and the tool schemas exactly as the
 * chat-completions client serializes them (the system message's text and the `tools` array).
 * Small local windows (Ollama's default 4,096) make this the figure that decides whether a
 * meeting fits at all, so a test and the benchmark watch it.
 */
export interface Overhead {
  /** Characters of the JSON as sent, divided by 4 (the usual rule of thumb; model-independent). */
  charsPerFour: number;
  /** The same JSON counted with cl100k_base. */
  cl100k: number;
}

export function requestOverhead(instructions: string, tools: readonly ToolSchema[]): Overhead {
  const body = chatRequestBody('', { instructions, messages: [], tools: [...tools], maxOutputTokens: 1 });
  const json = JSON.stringify(body.messages[0]?.content ?? '') + (body.tools ? JSON.stringify(body.tools) : '');
  return { charsPerFour: Math.ceil(json.length / 4), cl100k: countTokens(json) };
}

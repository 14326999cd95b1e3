import type { AppConfig } from '../config.js';
import { createModelClient } from '../agent/model/client.js';
import { check, type DoctorCheck } from '../agent/model/endpoint-check.js';
import { ModelError, type ModelClient } from '../agent/types.js';

/**
 * docs/design.md §2: the assistant works only through tools, and many small local models have
 * no tool calling. One small request with one tool tells whether the model calls it.
 */

const TOOL = 'confirm_check';

const FIX =
  'Set MeetingAssistant.Endpoint.Model to a model with tool calling (on Ollama, the models tagged "tools", e.g. qwen3 or llama3.1; ' +
  'ollama show <model> lists "tools" under Capabilities), then run doctor again.';

export async function checkToolCalling(config: AppConfig, model: string | undefined, client?: ModelClient): Promise<DoctorCheck> {
  const name = 'tool calling';
  if (!model) return check(name, 'skip', 'not checked: the model is not available');
  const modelClient = client ?? createModelClient(config);
  try {
    const answer = await modelClient.complete({
      instructions: 'You are a connection check. Answer only by calling the tool you are given.',
      messages: [{ role: 'user', content: `Call the tool ${TOOL} with word set to "ready".` }],
      tools: [
        {
          name: TOOL,
          description: 'Confirms that the check works. Always call it.',
          parameters: { type: 'object', properties: { word: { type: 'string' } }, required: ['word'] },
        },
      ],
      maxOutputTokens: 256,
    });
    if (answer.toolCalls.some((c) => c.name === TOOL)) return check(name, 'pass', `${model} called the tool it was given`);
    const said = answer.content.trim().replace(/\s+/g, ' ');
    return check(
      name,
      'fail',
      `${model} answered in text without calling the tool it was given${said ? ` ("${said.length > 80 ? `${said.slice(0, 79)}…` : said}")` : ''}: ` +
        'it cannot write summaries, which are written through tools',
      FIX,
    );
  } catch (err) {
    const message = err instanceof Error ? err.message : String(err);
    // Ollama refuses a request with tools for a model without them: "… does not support tools".
    if (err instanceof ModelError && err.kind === 'http' && /tool/i.test(message)) {
      return check(name, 'fail', `${model} refused a request with a tool: ${message}`, FIX);
    }
    return check(name, 'warn', `could not ask ${model} to call a tool: ${message}`);
  }
}

import type { AppConfig } from '../config.js';
import { createModelClient } from '../agent/model/client.js';
import { check, type DoctorCheck } from '../agent/model/endpoint-check.js';
import { isToolsRefused, MODEL_WITH_TOOLS, toolsRefusalAdvice } from '../agent/model/tools-refused.js';
import { ModelError, type ModelClient } from '../agent/types.js';

/**
 * docs/design.md §2 "Every model summarizes": one small request with one tool tells how the
 * model calls tools: structured (the full agent), written as text in its answer (the server's
 * template or parser did not turn it into a call), refused by the server, or not at all. A
 * model without structured calls still gets its meetings summarized, without tools: a warning
 * with what to change, not a failure. docs/models-and-servers.md explains each.
 */

const TOOL = 'confirm_check';

const MODEL_FIX = `Set MeetingAssistant.Endpoint.Model to ${MODEL_WITH_TOOLS} (ollama show <model> lists "tools" under Capabilities), then run doctor again.`;

const TEXT_CALL_FIX =
  "Let the server turn the model's calls into structured ones: llama.cpp, start llama-server with --jinja; vLLM, start it with " +
  '--enable-auto-tool-choice --tool-call-parser <the parser for the model> (hermes for Qwen, llama3_json for Llama 3.x, mistral for Mistral); ' +
  "LM Studio, a chat template with tool support for the model; Ollama, a model whose template has tools. Then run doctor again.";

const WITHOUT_TOOLS = 'its meetings are summarized without tools (no project files, speaker names or dictionary updated)';

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
    const called = answer.toolCalls.some((c) => c.name === TOOL);
    // The client reads calls written as text with the agent's own reader (agent/model/answers/text-calls.ts)
    // and flags them: one reader, so doctor tells exactly what a run will make of the answer.
    if (called && answer.callsAsText === undefined) return check(name, 'pass', `${model} called the tool it was given, as a structured call: the full agent`);
    const said = answer.content.trim().replace(/\s+/g, ' ');
    const quoted = said ? ` ("${said.length > 80 ? `${said.slice(0, 79)}…` : said}")` : '';
    if (called) {
      return check(
        name,
        'warn',
        `${model} wrote its call as text in the answer (${answer.callsAsText})${quoted} instead of a structured call: the server's chat template or ` +
          'tool-call parser did not turn it into one. The daemon reads such calls from the text (the full agent), but a structured call is surer',
        TEXT_CALL_FIX,
      );
    }
    return check(name, 'warn', `${model} answered in text without calling the tool it was given${quoted}: ${WITHOUT_TOOLS}`, MODEL_FIX);
  } catch (err) {
    const message = err instanceof Error ? err.message : String(err);
    if (isToolsRefused(err)) {
      const fix = toolsRefusalAdvice(err.serverWords);
      return check(name, 'warn', `the server refused a request with a tool for ${model}: "${err.serverWords}"; ${WITHOUT_TOOLS}`, `${fix[0]!.toUpperCase()}${fix.slice(1)}.`);
    }
    // A refusal in words not known yet: still about the tools, still the model's fix.
    if (err instanceof ModelError && err.kind === 'http' && /tool/i.test(message)) {
      return check(name, 'warn', `${model} refused a request with a tool: ${message}`, MODEL_FIX);
    }
    return check(name, 'warn', `could not ask ${model} to call a tool: ${message}`);
  }
}

import { ModelError } from '../types.js';

/**
 * docs/design.md §3 step 11, "No tools at all": a server that refuses a request because it
 * carries tools says so in its first answer. Such an answer is recognised here, once, from the
 * server's own words, and never retried as a server fault (llama.cpp answers it with a 500):
 * the next try would be refused alike. The pipeline then summarizes without tools.
 */

/**
 * The refusals as servers word them (quoted from their issue trackers):
 * - Ollama (400): `registry.ollama.ai/library/gemma3:4b does not support tools`; also
 *   `{"error":"… does not support tools"}` on its native routes, and Unsloth Studio's
 *   "the template does not support tools";
 * - vLLM without its flags (400): `"auto" tool choice requires --enable-auto-tool-choice and
 *   --tool-call-parser to be set`, and the same words for `tool_choice: "required"`;
 * - llama.cpp without `--jinja` (500): `tools param requires --jinja flag`; older builds:
 *   `Unsupported param: tools`;
 * - their kin: "does not support function calling", "tool calling is not supported",
 *   "tools are not supported".
 */
const REFUSALS: readonly RegExp[] = [
  /does not support tools\b/i,
  /tool[ _]choice requires --enable-auto-tool-choice/i,
  /--enable-auto-tool-choice and --tool-call-parser/i,
  /tools param requires --jinja/i,
  /unsupported param(?:eter)?:? ['"`]?tools\b/i,
  /does not support (?:tool|function)[ _-]?call(?:ing|s)?\b/i,
  /\b(?:tool|function)[ _-]?call(?:ing|s)? (?:is |are )?not supported\b/i,
  /\btools (?:are |is )?not supported\b/i,
];

/** Statuses a refusal comes with: a bad request (Ollama, vLLM), or a 500/501 (llama.cpp). */
const REFUSAL_STATUSES = new Set([400, 422, 500, 501]);

/** Whether an error answer (status and the server's message) says the server will not take tools. */
export function isToolsRefusal(status: number | undefined, body: string): boolean {
  if (status === undefined || !REFUSAL_STATUSES.has(status)) return false;
  return REFUSALS.some((pattern) => pattern.test(body));
}

/**
 * The server refused a request because it carried tools. Not transient (a retry gets the same
 * refusal); `serverWords` is the server's message as it said it, for the context note and doctor.
 */
export class ToolsRefusedError extends ModelError {
  constructor(
    message: string,
    readonly serverWords: string,
    options: { status: number; cause?: unknown },
  ) {
    super(message, { kind: 'http', status: options.status, cause: options.cause });
  }

  override get transient(): boolean {
    return false;
  }
}

export function isToolsRefused(err: unknown): err is ToolsRefusedError {
  return err instanceof ToolsRefusedError;
}

/** The model to choose for the agent's tools: said wherever a model without them is (doctor, the context note, `ask`). */
export const MODEL_WITH_TOOLS = 'a model with tool calling (on Ollama, the models tagged "tools", e.g. qwen3 or llama3.1)';

/**
 * What gives the full agent, for a refusal in the server's words (docs/models-and-servers.md):
 * the setting that server needs, or a model with tool calling. Said by the context note of a
 * summary made without tools and by `doctor`.
 */
export function toolsRefusalAdvice(serverWords: string): string {
  if (/--jinja|unsupported param/i.test(serverWords)) {
    return 'start llama-server with `--jinja` (it reads the model\'s own chat template, which knows its tool calls), then retry';
  }
  if (/--enable-auto-tool-choice|--tool-call-parser/i.test(serverWords)) {
    return 'start vLLM with `--enable-auto-tool-choice --tool-call-parser <the parser for the model>` (e.g. `hermes` for Qwen, `llama3_json` for Llama 3.x, `mistral` for Mistral), then retry';
  }
  return `set \`Endpoint.Model\` to ${MODEL_WITH_TOOLS} (\`ollama show <model>\` lists "tools" under Capabilities; on LM Studio, a model whose chat template supports tools), then retry`;
}

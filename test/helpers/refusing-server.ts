import type { RecordedRequest, Step } from './scripted-server.js';

/**
 * Servers that refuse a request carrying tools, with the bodies they really send (quoted from
 * their issue trackers: docs/models-and-servers.md). A request without tools is answered by
 * `otherwise` (a tool-less summary, transcript notes), as the real server would answer it.
 */

export type RefusingKind = 'ollama' | 'ollama-native' | 'vllm' | 'llama.cpp' | 'llama.cpp-old' | 'unsloth';

export const REFUSALS: Record<RefusingKind, { status: number; body: object; words: string }> = {
  // ollama/ollama#6027, picobot#6: the OpenAI-compatible route.
  ollama: {
    status: 400,
    body: { error: { message: 'registry.ollama.ai/library/gemma3:4b does not support tools', type: 'api_error', param: null, code: null } },
    words: 'registry.ollama.ai/library/gemma3:4b does not support tools',
  },
  // ollama/ollama#14795: `{"error":"…"}` as a string.
  'ollama-native': {
    status: 400,
    body: { error: 'registry.ollama.ai/library/Qwen3.5:0.8b does not support tools' },
    words: 'registry.ollama.ai/library/Qwen3.5:0.8b does not support tools',
  },
  // langchain4j#3475: vLLM's own error shape (`object: "error"`, no `error` wrapper).
  vllm: {
    status: 400,
    body: { object: 'error', message: '"auto" tool choice requires --enable-auto-tool-choice and --tool-call-parser to be set', type: 'BadRequestError', param: null, code: 400 },
    words: '"auto" tool choice requires --enable-auto-tool-choice and --tool-call-parser to be set',
  },
  // ramalama#988, QwenLM issue 44: llama-server without --jinja.
  'llama.cpp': {
    status: 500,
    body: { error: { code: 500, message: 'tools param requires --jinja flag', type: 'server_error' } },
    words: 'tools param requires --jinja flag',
  },
  // llama.cpp#10920: builds before the Jinja templates.
  'llama.cpp-old': {
    status: 500,
    body: { error: { code: 500, message: 'Unsupported param: tools', type: 'server_error' } },
    words: 'Unsupported param: tools',
  },
  // unsloth#10314: a GGUF whose template has no tools.
  unsloth: {
    status: 400,
    body: { error: { message: 'The loaded model chat template does not support tools', type: 'invalid_request_error', param: 'tools', code: null } },
    words: 'The loaded model chat template does not support tools',
  },
};

/** Whether a recorded model request offered tools (either wire API). */
export function offersTools(req: RecordedRequest): boolean {
  const tools = (req.body as { tools?: unknown[] } | undefined)?.tools;
  return Array.isArray(tools) && tools.length > 0;
}

/** A step that refuses every request with tools as `kind` does, and answers the others with `otherwise`. */
export function refusingTools(kind: RefusingKind, otherwise: Step | ((req: RecordedRequest) => Step | Promise<Step>)): Step {
  const { status, body } = REFUSALS[kind];
  return {
    handler: (req) => (offersTools(req) ? { status, body } : typeof otherwise === 'function' ? otherwise(req) : otherwise),
  };
}

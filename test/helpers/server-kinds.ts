import { estimateRequestTokens } from '../../src/agent/window/tokens.js';
import type { Message, ToolCall, ToolSchema } from '../../src/agent/types.js';

/**
 * How the local servers people run behave at the edge of their context window, for the
 * scripted server (scripted-server.ts, option `emulate`). Each kind answers its own info
 * route (at the server root, without `/v1`) and treats an over-long prompt its own way:
 *
 * - `ollama`: `GET /api/ps` (context_length of the loaded model), `POST /api/show`,
 *   `POST /api/generate` with an empty prompt loads the model; a longer prompt is cut
 *   silently to its first 4 tokens plus the tail, about half the window, and
 *   `usage.prompt_tokens` reports the kept tokens;
 * - `llama.cpp`: `GET /props` (`default_generation_settings.n_ctx`); refuses with a 400
 *   `exceed_context_size_error` carrying `n_ctx` and `n_prompt_tokens`;
 * - `lm-studio`: `GET /api/v0/models` (`loaded_context_length`); answers 200 with an error body;
 * - `vllm`: `max_model_len` in `GET /v1/models`; refuses with OpenAI's 400 wording;
 * - `rolling`: tells nothing; keeps the newest `window` tokens of a longer prompt (a rolling
 *   window: the front dropped) and reports `window` as the prompt's size, every time.
 *
 * The server counts a request as our tokenizer's estimate times `tokenRatio` (real tokenizers
 * disagree: 0.78 is typical of other languages, code, numbers and timestamps).
 */

export type ServerKindName = 'ollama' | 'llama.cpp' | 'lm-studio' | 'vllm' | 'rolling';

export interface ServerEmulation {
  kind: ServerKindName;
  /** The context window the server really has. */
  window: number;
  /** Server tokens per token of our estimate; default 1. */
  tokenRatio?: number;
  /** False: the info routes answer 404, the server tells nothing. Default true. */
  tellsWindow?: boolean;
  /** Ollama, LM Studio: the model is loaded at start. Default false for Ollama, true for LM Studio. */
  loaded?: boolean;
  /** The model's training maximum, reported by /api/show and LM Studio; default 131072. */
  modelMax?: number;
}

/** What the emulated server makes of one model request. */
export type Admission =
  | { kind: 'fits'; promptTokens: number }
  | { kind: 'cut'; promptTokens: number; sent: number }
  | { kind: 'refused'; status: number; body: object; sent: number };

export class EmulatedServer {
  readonly options: ServerEmulation;
  loaded: boolean;
  /** Requests of the model queue cut or refused, in order. */
  readonly overflows: Admission[] = [];

  constructor(options: ServerEmulation) {
    this.options = options;
    this.loaded = options.loaded ?? options.kind !== 'ollama';
  }

  /** The answer to an info route, or undefined for a route this kind does not serve. */
  info(method: string, path: string, model: string): { status: number; body: object } | undefined {
    const { kind, window } = this.options;
    const max = this.options.modelMax ?? 131072;
    const tells = this.options.tellsWindow !== false;
    if (kind === 'ollama') {
      if (method === 'POST' && path === '/api/generate') {
        this.loaded = true;
        return { status: 200, body: { model, created_at: new Date().toISOString(), response: '', done: true, done_reason: 'load' } };
      }
      if (!tells) return undefined;
      if (method === 'GET' && path === '/api/ps') {
        return { status: 200, body: { models: this.loaded ? [{ name: model, model, size: 1, context_length: window }] : [] } };
      }
      if (method === 'POST' && path === '/api/show') {
        return { status: 200, body: { parameters: 'temperature 0.6', model_info: { 'general.architecture': 'qwen3', 'qwen3.context_length': max } } };
      }
    }
    if (kind === 'llama.cpp' && tells && method === 'GET' && path === '/props') {
      return { status: 200, body: { default_generation_settings: { n_ctx: window }, total_slots: 1, model_path: model } };
    }
    if (kind === 'lm-studio' && tells && method === 'GET' && path === '/api/v0/models') {
      const entry = { id: model, object: 'model', type: 'llm', state: this.loaded ? 'loaded' : 'not-loaded', max_context_length: max };
      return { status: 200, body: { object: 'list', data: [this.loaded ? { ...entry, loaded_context_length: window } : entry] } };
    }
    return undefined;
  }

  /** Extra fields of this kind's `/v1/models` entries. */
  modelEntry(): Record<string, unknown> {
    return this.options.kind === 'vllm' && this.options.tellsWindow !== false ? { max_model_len: this.options.window } : {};
  }

  /** How the server takes a model request (chat completions or responses body). */
  admit(kind: 'chat' | 'responses', body: unknown): Admission {
    const { window } = this.options;
    const conversation = requestAsConversation(kind, body);
    const sent = Math.round(estimateRequestTokens(conversation) * (this.options.tokenRatio ?? 1));
    const maxTokens = numberField(body, kind === 'chat' ? 'max_tokens' : 'max_output_tokens') ?? 0;
    let admission: Admission = { kind: 'fits', promptTokens: sent };
    switch (this.options.kind) {
      case 'ollama':
        if (sent > window) admission = { kind: 'cut', promptTokens: 4 + Math.floor((window - 4) / 2), sent };
        break;
      case 'rolling':
        if (sent > window) admission = { kind: 'cut', promptTokens: window, sent };
        break;
      case 'llama.cpp':
        if (sent > window) {
          admission = {
            kind: 'refused',
            status: 400,
            sent,
            body: {
              error: {
                code: 400,
                message: 'the request exceeds the available context size, try increasing it',
                type: 'exceed_context_size_error',
                n_prompt_tokens: sent,
                n_ctx: window,
              },
            },
          };
        }
        break;
      case 'lm-studio':
        if (sent > window) {
          admission = {
            kind: 'refused',
            status: 200,
            sent,
            body: {
              error:
                `Trying to keep the first ${sent} tokens when context the overflows. However, the model is loaded with context length of only ` +
                `${window} tokens, which is not enough. Try to load the model with a larger context length, or provide a shorter input`,
            },
          };
        }
        break;
      case 'vllm':
        if (sent + maxTokens > window) {
          admission = {
            kind: 'refused',
            status: 400,
            sent,
            body: {
              object: 'error',
              message:
                `This model's maximum context length is ${window} tokens. However, you requested ${sent + maxTokens} tokens ` +
                `(${sent} in the messages, ${maxTokens} in the completion). Please reduce the length of the messages or completion.`,
              type: 'BadRequestError',
              param: null,
              code: 400,
            },
          };
        }
        break;
    }
    if (admission.kind !== 'fits') this.overflows.push(admission);
    return admission;
  }
}

function numberField(body: unknown, key: string): number | undefined {
  const value = typeof body === 'object' && body !== null ? (body as Record<string, unknown>)[key] : undefined;
  return typeof value === 'number' ? value : undefined;
}

/** A request body (either wire shape) as our conversation model, for the tokenizer estimate. */
export function requestAsConversation(
  kind: 'chat' | 'responses',
  rawBody: unknown,
): { instructions: string; messages: Message[]; tools: ToolSchema[] } {
  const body = (rawBody ?? {}) as Record<string, any>;
  const messages: Message[] = [];
  let instructions = '';
  const tools: ToolSchema[] = (body.tools ?? []).map((t: any) =>
    t.function
      ? { name: t.function.name, description: t.function.description ?? '', parameters: t.function.parameters ?? {} }
      : { name: t.name, description: t.description ?? '', parameters: t.parameters ?? {} },
  );
  const text = (c: unknown): string =>
    typeof c === 'string' ? c : Array.isArray(c) ? c.map((p: any) => p?.text ?? '').join('') : '';
  if (kind === 'chat') {
    for (const m of (body.messages ?? []) as any[]) {
      if (m.role === 'system') instructions = text(m.content);
      else if (m.role === 'user') messages.push({ role: 'user', content: text(m.content) });
      else if (m.role === 'assistant') {
            const toolCalls: ToolCall[] = (m.tool_calls ?? []).map((c: any) => ({
          id: c.id,
          name: c.function.name,
          arguments: c.function.arguments,
        }));
        messages.push({ role: 'assistant', content: text(m.content), ...(toolCalls.length ? { toolCalls } : {}) });
      } else if (m.role === 'tool') messages.push({ role: 'tool', toolCallId: m.tool_call_id, name: '', content: text(m.content) });
    }
  } else {
    instructions = body.instructions ?? '';
    for (const item of (body.input ?? []) as any[]) {
      if (item.type === 'function_call') {
        messages.push({ role: 'assistant', content: '', toolCalls: [{ id: item.call_id, name: item.name, arguments: item.arguments }] });
      } else if (item.type === 'function_call_output') {
        messages.push({ role: 'tool', toolCallId: item.call_id, name: '', content: text(item.output) });
      } else if (item.type === 'compaction') {
        messages.push({ role: 'compaction', encryptedContent: item.encrypted_content });
      } else messages.push({ role: item.role === 'assistant' ? 'assistant' : 'user', content: text(item.content) });
    }
  }
  return { instructions, messages, tools };
}

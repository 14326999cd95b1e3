import type OpenAI from 'openai';
import type {
  ChatCompletionCreateParamsNonStreaming,
  ChatCompletionMessageParam,
  ChatCompletionTool,
} from 'openai/resources/chat/completions';
import { createOpenAI } from './openai-sdk.js';
import { hasReasoningField, settleAnswer } from './answers/answer-calls.js';
import { exchangeStreamed } from './streamed-answer.js';
import type { Message, ModelClient, ModelRequest, ModelResponse, ToolSchema } from '../types.js';
import {
  CallIds,
  errorAnswer,
  errorNormalizingFetch,
  type Endpoint,
  type ExchangeCall,
  type ModelClientOptions,
  exchange,
  isObject,
  type JsonObject,
  parseUsage,
  requestOptions,
} from './exchange.js';

/**
 * `POST /chat/completions`: the API that OpenAI, Azure OpenAI, Ollama, vLLM, LM Studio,
 * llama.cpp's server and OpenRouter all speak.
 */
export class ChatCompletionsClient implements ModelClient {
  readonly api = 'chat-completions' as const;
  readonly #sdk: OpenAI;
  readonly #context: ExchangeCall;
  readonly #ids = new CallIds();

  constructor(endpoint: Endpoint, apiKey: string | undefined, options: ModelClientOptions = {}) {
    const sdk = options.sdk ?? createOpenAI(endpoint, apiKey);
    // Our fetch replaces the instance's own: error bodies are normalized (see errorNormalizingFetch).
    this.#sdk = sdk.withOptions({ fetch: errorNormalizingFetch() });
    this.#context = { endpoint, hasKey: !!apiKey, apiKey, path: '/chat/completions', ...(options.clock && { clock: options.clock }) };
  }

  async complete(request: ModelRequest): Promise<ModelResponse> {
    const body = chatRequestBody(this.#context.endpoint.Model, request);
    const { onText } = request;
    if (!onText) {
      const answer = await exchange(this.#context, request.signal, (signal) =>
        this.#sdk.chat.completions.create(body, requestOptions(signal, this.#context)).asResponse(),
      );
      return this.#parse(answer, request.tools);
    }
    // `include_usage`: the last chunk carries the counts the window budget reads (docs/design.md §3 step 5).
    const streamed = { ...body, stream: true as const, stream_options: { include_usage: true } };
    const { answer, unshown } = await exchangeStreamed(this.#context, request.signal, this.api, onText, (signal) =>
      this.#sdk.chat.completions.create(streamed, requestOptions(signal, this.#context)).asResponse(),
    );
    const response = this.#parse(answer, request.tools);
    const rest = unshown(response.content);
    if (rest !== '') onText(rest);
    return response;
  }

  #parse(answer: JsonObject, tools: readonly ToolSchema[]): ModelResponse {
    const choice: unknown = Array.isArray(answer.choices) ? answer.choices[0] : undefined;
    if (!isObject(choice) || !isObject(choice.message)) throw errorAnswer(this.#context, answer);
    const message = choice.message;
    const rawCalls = (Array.isArray(message.tool_calls) ? message.tool_calls.filter(isObject) : []).map((call) => {
      const fn = isObject(call.function) ? call.function : {};
      return { id: typeof call.id === 'string' ? call.id : undefined, name: fn.name, arguments: fn.arguments };
    });
    // `reasoning_content`, `reasoning`, `thinking` (DeepSeek, vLLM, llama.cpp, Ollama) are never read as text.
    const response: ModelResponse = settleAnswer(contentText(message.content), rawCalls, tools, this.#ids, hasReasoning(message));
    const usage = parseUsage(answer.usage);
    if (usage) response.usage = usage;
    if (typeof choice.finish_reason === 'string') response.finishReason = choice.finish_reason;
    return response;
  }
}

/** The request body; exported so tests and the token estimate can see exactly what is sent. */
export function chatRequestBody(model: string, request: ModelRequest): ChatCompletionCreateParamsNonStreaming {
  const body: ChatCompletionCreateParamsNonStreaming = {
    model,
    messages: [{ role: 'system', content: request.instructions }, ...request.messages.map(toChatMessage)],
    // `max_tokens`, not `max_completion_tokens`: it is what Ollama, llama.cpp and vLLM read.
    max_tokens: request.maxOutputTokens,
  };
  if (request.tools.length > 0) body.tools = request.tools.map(toChatTool);
  return body;
}

function toChatMessage(message: Message): ChatCompletionMessageParam {
  switch (message.role) {
    case 'user':
      return { role: 'user', content: message.content };
    case 'assistant': {
      const calls = message.toolCalls ?? [];
      if (calls.length === 0) return { role: 'assistant', content: message.content };
      return {
        role: 'assistant',
        // Several servers reject an empty string next to tool calls; null is the schema's "no text".
        content: message.content === '' ? null : message.content,
        tool_calls: calls.map((call) => ({
          id: call.id,
          type: 'function',
          function: { name: call.name, arguments: call.arguments },
        })),
      };
    }
    case 'tool':
      return { role: 'tool', tool_call_id: message.toolCallId, content: message.content };
    case 'compaction':
      throw new Error(
        'A remote compaction item cannot be sent over the chat-completions API (only Endpoint.Api "responses" accepts it); ' +
          'the compaction step must not keep it in this mode.',
      );
  }
}

function toChatTool(tool: ToolSchema): ChatCompletionTool {
  return {
    type: 'function',
    function: { name: tool.name, description: tool.description, parameters: tool.parameters },
  };
}

/** Text of `content`: a string, null, or (some servers) an array of text parts. */
function contentText(content: unknown): string {
  if (typeof content === 'string') return content;
  if (Array.isArray(content)) {
    return content
      .map((part) => (isObject(part) && typeof part.text === 'string' && !isReasoningPart(part) ? part.text : ''))
      .join('');
  }
  return '';
}

/** A content part of reasoning (`thinking`, `reasoning`: Magistral, some proxies): never text (docs/design.md §3 step 11). */
function isReasoningPart(part: JsonObject): boolean {
  return part.type === 'thinking' || part.type === 'reasoning' || part.type === 'reasoning_content';
}

/** Reasoning in a field of the message or in a part of its content. */
function hasReasoning(message: JsonObject): boolean {
  return hasReasoningField(message) || (Array.isArray(message.content) && message.content.some((part) => isObject(part) && isReasoningPart(part)));
}

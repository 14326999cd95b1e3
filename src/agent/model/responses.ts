import type OpenAI from 'openai';
import type {
  FunctionTool,
  ResponseCreateParamsNonStreaming,
  ResponseInputItem,
} from 'openai/resources/responses/responses';
import { createOpenAI } from './openai-sdk.js';
import { settleAnswer } from './answers/answer-calls.js';
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
  invalidResponse,
  isObject,
  type JsonObject,
  parseUsage,
  requestOptions,
} from './exchange.js';

/** `POST /responses`: OpenAI's Responses API, stateless (`store: false`, the whole input every time). */
export class ResponsesClient implements ModelClient {
  readonly api = 'responses' as const;
  readonly #sdk: OpenAI;
  readonly #context: ExchangeCall;
  readonly #ids = new CallIds();

  constructor(endpoint: Endpoint, apiKey: string | undefined, options: ModelClientOptions = {}) {
    const sdk = options.sdk ?? createOpenAI(endpoint, apiKey);
    // Our fetch replaces the instance's own: error bodies are normalized (see errorNormalizingFetch).
    this.#sdk = sdk.withOptions({ fetch: errorNormalizingFetch() });
    this.#context = { endpoint, hasKey: !!apiKey, apiKey, path: '/responses', ...(options.clock && { clock: options.clock }) };
  }

  async complete(request: ModelRequest): Promise<ModelResponse> {
    const body = responsesRequestBody(this.#context.endpoint.Model, request);
    const { onText } = request;
    if (!onText) {
      const answer = await exchange(this.#context, request.signal, (signal) =>
        this.#sdk.responses.create(body, requestOptions(signal, this.#context)).asResponse(),
      );
      return this.#parse(answer, request.tools);
    }
    const { answer, unshown } = await exchangeStreamed(this.#context, request.signal, this.api, onText, (signal) =>
      this.#sdk.responses.create({ ...body, stream: true }, requestOptions(signal, this.#context)).asResponse(),
    );
    const response = this.#parse(answer, request.tools);
    const rest = unshown(response.content);
    if (rest !== '') onText(rest);
    return response;
  }

  #parse(answer: JsonObject, tools: readonly ToolSchema[]): ModelResponse {
    if (!Array.isArray(answer.output)) throw errorAnswer(this.#context, answer);
    if (answer.status === 'failed') {
      const reason = isObject(answer.error) && typeof answer.error.message === 'string' ? answer.error.message : 'no reason given';
      throw invalidResponse(this.#context, `the response failed: ${reason}`);
    }
    const items = answer.output.filter(isObject);
    const text: string[] = [];
    const rawCalls: JsonObject[] = [];
    let reasoned = false;
    for (const item of items) {
      if (item.type === 'message' && Array.isArray(item.content)) {
        for (const part of item.content.filter(isObject)) {
          if (part.type === 'output_text' && typeof part.text === 'string') text.push(part.text);
        }
      } else if (item.type === 'function_call') {
        rawCalls.push(item);
      } else if (item.type === 'reasoning') {
        // Not part of the answer and not sent back (store: false).
        reasoned = true;
      }
    }
    const calls = rawCalls.map((call) => ({
      id: typeof call.call_id === 'string' ? call.call_id : typeof call.id === 'string' ? call.id : undefined,
      name: call.name,
      arguments: call.arguments,
    }));
    const response: ModelResponse = settleAnswer(text.join(''), calls, tools, this.#ids, reasoned);
    const usage = parseUsage(answer.usage);
    if (usage) response.usage = usage;
    const finishReason = finishReasonOf(answer, response.toolCalls.length > 0);
    if (finishReason) response.finishReason = finishReason;
    return response;
  }
}

/** The loop speaks chat's vocabulary: `length` when cut off, `tool_calls`, else `stop`. */
function finishReasonOf(answer: JsonObject, hasCalls: boolean): string | undefined {
  if (answer.status === 'incomplete') {
    const reason = isObject(answer.incomplete_details) ? answer.incomplete_details.reason : undefined;
    return reason === 'max_output_tokens' ? 'length' : typeof reason === 'string' ? reason : 'incomplete';
  }
  if (hasCalls) return 'tool_calls';
  return answer.status === 'completed' || answer.status === undefined ? 'stop' : String(answer.status);
}

/** The request body; exported so tests and the token estimate can see exactly what is sent. */
export function responsesRequestBody(model: string, request: ModelRequest): ResponseCreateParamsNonStreaming {
  const body: ResponseCreateParamsNonStreaming = {
    model,
    instructions: request.instructions,
    input: request.messages.flatMap(toInputItems),
    max_output_tokens: request.maxOutputTokens,
    // Stateless: every request carries the whole conversation, nothing is kept on the server.
    store: false,
  };
  if (request.tools.length > 0) body.tools = request.tools.map(toFunctionTool);
  return body;
}

function toInputItems(message: Message): ResponseInputItem[] {
  switch (message.role) {
    case 'user':
      return [{ type: 'message', role: 'user', content: message.content }];
    case 'assistant': {
      const items: ResponseInputItem[] = [];
      const calls = message.toolCalls ?? [];
      if (message.content !== '' || calls.length === 0) {
        items.push({ type: 'message', role: 'assistant', content: message.content });
      }
      for (const call of calls) {
        items.push({ type: 'function_call', call_id: call.id, name: call.name, arguments: call.arguments });
      }
      return items;
    }
    case 'tool':
      return [{ type: 'function_call_output', call_id: message.toolCallId, output: message.content }];
    case 'compaction':
      return [
        {
          type: 'compaction',
          encrypted_content: message.encryptedContent,
          ...(message.id !== undefined ? { id: message.id } : {}),
        },
      ];
  }
}

function toFunctionTool(tool: ToolSchema): FunctionTool {
  // docs/design.md §3 step 10: Responses function tools carry `strict`; false keeps optional arguments optional.
  return { type: 'function', name: tool.name, description: tool.description, parameters: tool.parameters, strict: false };
}

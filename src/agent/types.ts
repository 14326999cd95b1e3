import { MeetingAssistantError } from '../errors.js';
/**
 * The conversation as the agent loop sees it, independent of the wire API. The model
 * clients (chat-completions, responses) translate it to and from their formats; compaction
 * rewrites it; the loop appends to it.
 */

export interface ToolCall {
  /** The id the model gave the call (chat `tool_calls[].id`, responses `call_id`). */
  id: string;
  name: string;
  /** Raw argument text exactly as the model sent it: may be invalid JSON. */
  arguments: string;
}

/** What a tool call came back with; `isError` results start with `Error: `. */
export interface ToolResult {
  content: string;
  isError: boolean;
}

/** What the loop needs of the tools (src/tools/registry.ts implements it). */
export interface ToolExecutor {
  readonly schemas: ToolSchema[];
  call(call: ToolCall): Promise<ToolResult>;
}

export type Message =
  | { role: 'user'; content: string }
  | { role: 'assistant'; content: string; toolCalls?: ToolCall[] }
  | { role: 'tool'; toolCallId: string; name: string; content: string }
  /**
   * An opaque item from a remote compaction (`type: "compaction"`, `encrypted_content`):
   * only the responses wire API can send it back.
   */
  | { role: 'compaction'; encryptedContent: string; id?: string };

/** What compaction works on: the instructions and the messages; messages[0] is the first user message. */
export interface Conversation {
  instructions: string;
  messages: Message[];
}

export interface ToolSchema {
  name: string;
  description: string;
  /** JSON Schema of the arguments object. */
  parameters: Record<string, unknown>;
}

export interface Usage {
  inputTokens: number;
  outputTokens: number;
}

export interface ModelRequest {
  /** The system instructions (default or configured prompt, plus the AGENTS.md section). */
  instructions: string;
  messages: Message[];
  tools: ToolSchema[];
  maxOutputTokens: number;
  signal?: AbortSignal;
  /**
   * Set: the answer is asked for as a stream and its visible text handed here as it arrives
   * (docs/design.md §11); the response is the same as without. Absent: one whole answer.
   */
  onText?: (text: string) => void;
}

export interface ModelResponse {
  /** Visible text with `<think>…</think>` blocks removed. */
  content: string;
  toolCalls: ToolCall[];
  /** Absent when the endpoint does not report usage. */
  usage?: Usage;
  /** `stop`, `tool_calls`, `length`, … as reported; undefined when not. */
  finishReason?: string;
  /**
   * A tool call was begun but ends before it does (its arguments cut, a text call never
   * finished): it is not among `toolCalls` or is not to be run (docs/design.md §3 step 11).
   */
  cutCall?: true;
  /**
   * The calls were written as text in the content, not sent as `tool_calls`: the shape they
   * came in (`<tool_call>`, `a JSON object`, …; text-calls.ts), for `doctor` and the log.
   */
  callsAsText?: string;
  /** No text and no call, only reasoning (a think block, `reasoning_content`): the model is asked to answer. */
  reasoningOnly?: true;
}

/** One wire API behind one interface; retries live outside (agent/model/retry.ts). */
export interface ModelClient {
  readonly api: 'chat-completions' | 'responses';
  complete(request: ModelRequest): Promise<ModelResponse>;
}

export type ModelErrorKind = 'http' | 'network' | 'timeout' | 'aborted' | 'invalid-response';

/** A failed model request, classified for the retry policy and the failure report. */
export class ModelError extends MeetingAssistantError {
  readonly kind: ModelErrorKind;
  readonly status: number | undefined;
  /** Server-requested wait (Retry-After / retry-after-ms), in milliseconds. */
  readonly retryAfterMs: number | undefined;
  /** Requests made for this step, filled in by the retry policy. */
  attempts: number;
  /** An invalid answer that a later try may not repeat (a body that is not JSON at all). */
  readonly #brokenBody: boolean;

  constructor(
    message: string,
    options: {
      kind: ModelErrorKind;
      status?: number;
      retryAfterMs?: number;
      attempts?: number;
      cause?: unknown;
      /** For `invalid-response`: the body was cut or was not JSON (a proxy, a server restarting). */
      brokenBody?: boolean;
    },
  ) {
    super(message, false, { cause: options.cause });
    this.kind = options.kind;
    this.status = options.status;
    this.retryAfterMs = options.retryAfterMs;
    this.attempts = options.attempts ?? 1;
    this.#brokenBody = options.brokenBody === true;
  }

  /**
   * Connection errors, timeouts, 408, 409, 429 and 5xx (docs/design.md §3 step 4), and a 200
   * whose body is not JSON: a proxy's page or a server restarting, which the next try may not see.
   */
  get transient(): boolean {
    if (this.kind === 'network' || this.kind === 'timeout') return true;
    if (this.kind === 'invalid-response') return this.#brokenBody;
    if (this.kind !== 'http' || this.status === undefined) return false;
    return this.status === 408 || this.status === 409 || this.status === 429 || this.status >= 500;
  }

  /** A 400 whose message says the prompt does not fit the model's context. */
  get contextTooLong(): boolean {
    return this.kind === 'http' && this.status === 400 && CONTEXT_TOO_LONG.test(this.message);
  }
}

/** The wording of OpenAI, vLLM, Ollama, llama.cpp and LM Studio for an over-long prompt. */
export const CONTEXT_TOO_LONG =
  /context[_ ]length[_ ]exceeded|maximum context length|context length|context window|too many tokens|exceeds? the (?:available )?context|prompt is too long|input is too long|n_ctx|exceed_context_size/i;

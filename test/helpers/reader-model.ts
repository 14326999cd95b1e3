import { countTokens, estimateRequestTokens } from '../../src/agent/tokens.js';
import type { Message, ToolCall, ToolSchema } from '../../src/agent/types.js';
import { createReaderModel, type ReaderModel } from './reader-model.mjs';
import type { RecordedRequest, Step } from './scripted-server.js';

/**
 * The scripted reader model (reader-model.mjs) behind the scripted server: a `handler` step
 * that answers every model request of a run, on either wire API.
 */

/** The request as our conversation model, back from either wire shape, for the tokenizer estimate. */
export function requestAsConversation(req: RecordedRequest): { instructions: string; messages: Message[]; tools: ToolSchema[] } {
  const body = req.body as Record<string, any>;
  const messages: Message[] = [];
  let instructions = '';
  const tools: ToolSchema[] = (body.tools ?? []).map((t: any) =>
    t.function
      ? { name: t.function.name, description: t.function.description ?? '', parameters: t.function.parameters ?? {} }
      : { name: t.name, description: t.description ?? '', parameters: t.parameters ?? {} },
  );
  const text = (c: unknown): string =>
    typeof c === 'string' ? c : Array.isArray(c) ? c.map((p: any) => p?.text ?? '').join('') : '';
  if (req.kind === 'chat') {
    for (const m of body.messages as any[]) {
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
    for (const item of body.input as any[]) {
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

/** Everything the model is shown, as text: the reader looks for `cat -n` lines and notes headings in it. */
function textsOf(conv: { messages: Message[] }): string[] {
  const texts: string[] = [];
  for (const m of conv.messages) {
    if (m.role === 'compaction') continue;
    texts.push(m.content);
    if (m.role === 'assistant') for (const call of m.toolCalls ?? []) texts.push(`${call.name}(${call.arguments})`);
  }
  return texts;
}

export interface ReaderOnServer {
  reader: ReaderModel;
  step: Step;
}

/**
 * A reader for a transcript whose speech lines are `first..last` (numbered over the whole
 * file). `serverWindow`: the server cuts longer prompts silently (its count: `scale` × ours).
 * `fail(request)`: a step that answers instead (an outage in the middle of the parts).
 */
export function readerOnServer(options: {
  first: number;
  last: number;
  chunk?: number;
  serverWindow?: number;
  scale?: number;
  fail?: (req: RecordedRequest, conv: ReturnType<typeof requestAsConversation>) => Step | undefined;
}): ReaderOnServer {
  const reader = createReaderModel({ ...options, countTokens });
  const step: Step = {
    handler: (req) => {
      const conv = requestAsConversation(req);
      const failure = options.fail?.(req, conv);
      if (failure) return failure;
      const reply = reader.respond({
        instructions: conv.instructions,
        texts: textsOf(conv),
        hasTools: conv.tools.length > 0,
        tokens: estimateRequestTokens(conv),
      });
      return { reply: { ...(reply.content !== undefined ? { content: reply.content } : {}), ...(reply.toolCalls ? { toolCalls: reply.toolCalls } : {}), usage: reply.usage } };
    },
  };
  return { reader, step };
}

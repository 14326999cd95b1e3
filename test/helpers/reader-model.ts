import { countTokens, estimateRequestTokens } from '../../src/agent/window/tokens.js';
import type { Message } from '../../src/agent/types.js';
import { createReaderModel, type ReaderModel } from './reader-model.mjs';
import type { RecordedRequest, Step } from './scripted-server.js';
import { requestAsConversation } from './server-kinds.js';

/**
 * The scripted reader model (reader-model.mjs) behind the scripted server: a `handler` step
 * that answers every model request of a run, on either wire API.
 */

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
  updatesProjects?: { project: string; path: string; content: string };
}): ReaderOnServer {
  const reader = createReaderModel({ ...options, countTokens });
  const step: Step = {
    handler: (req) => {
      const conv = requestAsConversation(req.kind === 'chat' ? 'chat' : 'responses', req.body);
      const failure = options.fail?.(req, conv);
      if (failure) return failure;
      const reply = reader.respond({
        instructions: conv.instructions,
        texts: textsOf(conv),
        hasTools: conv.tools.length > 0,
        tools: conv.tools.map((t) => t.name),
        tokens: estimateRequestTokens(conv),
        ...(req.admission?.kind === 'cut' ? { cut: { sent: req.admission.sent, kept: req.admission.promptTokens } } : {}),
      });
      return { reply: { ...(reply.content !== undefined ? { content: reply.content } : {}), ...(reply.toolCalls ? { toolCalls: reply.toolCalls } : {}), usage: reply.usage } };
    },
  };
  return { reader, step };
}

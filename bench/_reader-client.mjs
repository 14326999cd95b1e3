// The scripted reader model (test/helpers/reader-model.mjs) as a ModelClient of the built
// pipeline, for the long-meeting benchmarks: what the server would see of each request, and
// what it answers. Not run by bench/run.mjs itself (the name starts with "_").
//
// `refuseOver`: the server refuses a prompt it counts over this many tokens as llama.cpp's
// server does (`-c N`): a 400 `exceed_context_size_error` naming n_ctx and n_prompt_tokens.
// `onRequest(request, count)`: told of every request before it is answered, with the
// server's count of it.
import { dist } from './_lib.mjs';

const { ModelError } = await dist('agent/types.js');
const { estimateRequestTokens } = await dist('agent/window/tokens.js');

export function readerClient(reader, { scale = 1, refuseOver, onRequest } = {}) {
  let calls = 0;
  return {
    api: 'chat-completions',
    refused: 0,
    async complete(request) {
      const tokens = estimateRequestTokens(request);
      const count = Math.ceil(tokens * scale);
      onRequest?.(request, count);
      if (refuseOver !== undefined && count > refuseOver) {
        this.refused++;
        const body = {
          code: 400,
          message: 'the request exceeds the available context size, try increasing it',
          type: 'exceed_context_size_error',
          n_prompt_tokens: count,
          n_ctx: refuseOver,
        };
        throw new ModelError(`400 ${body.message}`, { kind: 'http', status: 400, cause: Object.assign(new Error(body.message), { error: body }) });
      }
      const texts = [];
      for (const m of request.messages) {
        if (m.role === 'compaction') continue;
        texts.push(m.content);
        for (const call of m.toolCalls ?? []) texts.push(`${call.name}(${call.arguments})`);
      }
      const reply = reader.respond({
        instructions: request.instructions,
        texts,
        hasTools: request.tools.length > 0,
        tools: request.tools.map((t) => t.name),
        tokens,
      });
      const toolCalls = (reply.toolCalls ?? []).map((c) => ({ id: `call_${++calls}`, name: c.name, arguments: JSON.stringify(c.arguments) }));
      return { content: reply.content ?? '', toolCalls, usage: { inputTokens: reply.usage.input, outputTokens: reply.usage.output } };
    },
  };
}

import type { ServerResponse } from 'node:http';

/**
 * The scripted server's streamed answers (`stream: true`): a whole answer, rendered as the
 * non-streamed route would have sent it, replayed as the events a real server sends — chat
 * completion chunks, or Responses API events — so that the clients' stream path meets the
 * wire format of OpenAI, Ollama, vLLM and llama.cpp.
 */

type Obj = Record<string, unknown>;

export interface StreamOptions {
  /** Pause before each text piece (default 0): lets a test see the first piece before the last. */
  pieceDelayMs?: number;
  /** The content cut into these pieces; default pieces of 8 characters. */
  pieces?: string[];
}

function piecesOf(text: string, given: string[] | undefined): string[] {
  if (given) return given;
  const out: string[] = [];
  for (let i = 0; i < text.length; i += 8) out.push(text.slice(i, i + 8));
  return out;
}

export async function sendStream(res: ServerResponse, kind: 'chat' | 'responses', whole: Obj, options: StreamOptions, wait: (ms: number) => Promise<void>): Promise<void> {
  res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache' });
  const send = (data: unknown): void => {
    if (!res.destroyed) res.write(`data: ${JSON.stringify(data)}\n\n`);
  };
  const pause = async (): Promise<void> => {
    if (options.pieceDelayMs) await wait(options.pieceDelayMs);
  };
  if (kind === 'chat') {
    const choice = (whole.choices as Obj[])[0]!;
    const message = choice.message as Obj;
    const chunk = (delta: Obj, extra: Obj = {}): Obj => ({ id: whole.id, object: 'chat.completion.chunk', created: whole.created, model: whole.model, choices: [{ index: 0, delta, finish_reason: null, ...extra }] });
    send(chunk({ role: 'assistant', content: '' }));
    for (const piece of piecesOf(typeof message.content === 'string' ? message.content : '', options.pieces)) {
      await pause();
      send(chunk({ content: piece }));
    }
    ((message.tool_calls as Obj[] | undefined) ?? []).forEach((call, index) => {
      const fn = call.function as Obj;
      const args = typeof fn.arguments === 'string' ? fn.arguments : JSON.stringify(fn.arguments);
      const half = Math.floor(args.length / 2);
      // The arguments in two pieces, as servers send them: the client must join them.
      send(chunk({ tool_calls: [{ index, ...(call.id ? { id: call.id } : {}), type: 'function', function: { name: fn.name, arguments: args.slice(0, half) } }] }));
      send(chunk({ tool_calls: [{ index, function: { arguments: args.slice(half) } }] }));
    });
    send(chunk({}, { finish_reason: choice.finish_reason }));
    if (whole.usage) send({ id: whole.id, object: 'chat.completion.chunk', created: whole.created, model: whole.model, choices: [], usage: whole.usage });
  } else {
    send({ type: 'response.created', response: { ...whole, status: 'in_progress', output: [] } });
    for (const item of whole.output as Obj[]) {
      if (item.type !== 'message') continue;
      const text = ((item.content as Obj[])[0]?.text as string | undefined) ?? '';
      for (const piece of piecesOf(text, options.pieces)) {
        await pause();
        send({ type: 'response.output_text.delta', item_id: item.id, output_index: 0, content_index: 0, delta: piece });
      }
    }
    send({ type: whole.status === 'incomplete' ? 'response.incomplete' : 'response.completed', response: whole });
  }
  if (!res.destroyed) res.end(kind === 'chat' ? 'data: [DONE]\n\n' : undefined);
}

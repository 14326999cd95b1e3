import { MeetingAssistantError } from '../../errors.js';

/**
 * Reading a streamed answer (`stream: true`, docs/design.md §11): a `text/event-stream` body
 * whose `data:` lines each hold one JSON event, ended by `data: [DONE]` or the end of the body.
 * Read under the same cap as a whole answer (src/http-io.ts), since a stream is no smaller.
 */

/** An event that is not JSON: the stream is broken (streamed-answer.ts words it for the person). */
export class EventStreamError extends MeetingAssistantError {
  constructor(message: string) {
    super(message, false);
  }
}

export async function readEventStream(
  response: Response,
  cap: number,
  tooLarge: () => Error,
  onEvent: (data: unknown) => void,
): Promise<void> {
  if (!response.body) return;
  const reader = response.body.getReader();
  const decoder = new TextDecoder();
  let size = 0;
  let buffer = '';
  let data: string[] = [];
  const dispatch = (): boolean => {
    if (data.length === 0) return false;
    const payload = data.join('\n');
    data = [];
    if (payload.trim() === '[DONE]') return true;
    try {
      onEvent(JSON.parse(payload));
    } catch (err) {
      if (err instanceof SyntaxError) throw new EventStreamError(`an event is not JSON (${JSON.stringify(payload.slice(0, 80))})`);
      throw err;
    }
    return false;
  };
  for (;;) {
    const { done, value } = await reader.read();
    if (value) {
      size += value.byteLength;
      if (size > cap) {
        await reader.cancel().catch(() => undefined);
        throw tooLarge();
      }
      buffer += decoder.decode(value, { stream: true });
    }
    if (done) buffer += `${decoder.decode()}\n\n`;
    let newline: number;
    while ((newline = buffer.indexOf('\n')) >= 0) {
      const line = buffer.slice(0, newline).replace(/\r$/, '');
      buffer = buffer.slice(newline + 1);
      if (line === '') {
        if (dispatch()) {
          await reader.cancel().catch(() => undefined);
          return;
        }
      } else if (line.startsWith('data:')) data.push(line.slice(line.startsWith('data: ') ? 6 : 5));
      // `event:`, `id:`, `retry:` and comments carry nothing the answer needs: the JSON names its own type.
    }
    if (done) return;
  }
}

import { Transform, type TransformCallback } from 'node:stream';

/**
 * stdin for the MCP server, one whole line at a time and none longer than a bound
 * (docs/design.md §10). The SDK's stdio transport closes itself when its buffer passes
 * 10 MB, and `mcp` then ended with exit 0 and "MCP server stopped", the client left without
 * a word (issue 33). Here a line is held until its newline and handed on whole; a longer one
 * is dropped as it arrives (never held past the bound) and `onTooLong` is told, with the
 * request's id when its first bytes name one, so the server can answer it with a JSON-RPC
 * error and go on serving.
 */

/** The longest message line the server takes: the SDK transport's own default buffer. */
export const MAX_MESSAGE_LINE_BYTES = 10 * 1024 * 1024;

/** How much of a line's start is kept to find its `"id"`. */
const HEAD_BYTES = 512;

export class BoundedLines extends Transform {
  readonly #max: number;
  readonly #onTooLong: (id: string | number | null) => void;
  #held: Buffer[] = [];
  #heldBytes = 0;
  /** The start of a line being dropped, to find its id in; undefined while not dropping. */
  #droppedHead: Buffer | undefined;
  /** The end of it so far: clients put `"id"` first or last. */
  #droppedTail = Buffer.alloc(0);

  constructor(maxLineBytes: number, onTooLong: (id: string | number | null) => void) {
    super();
    this.#max = maxLineBytes;
    this.#onTooLong = onTooLong;
  }

  override _transform(chunk: Buffer, _encoding: BufferEncoding, done: TransformCallback): void {
    let start = 0;
    while (start < chunk.length) {
      const newline = chunk.indexOf(10, start);
      const end = newline === -1 ? chunk.length : newline;
      this.#take(chunk.subarray(start, end));
      if (newline === -1) break;
      this.#endLine();
      start = newline + 1;
    }
    done();
  }

  override _flush(done: TransformCallback): void {
    if (this.#droppedHead) this.#endLine();
    else if (this.#heldBytes > 0) this.push(Buffer.concat(this.#held));
    done();
  }

  #take(part: Buffer): void {
    if (this.#droppedHead) {
      this.#droppedTail = Buffer.concat([this.#droppedTail, part.subarray(-HEAD_BYTES)]).subarray(-HEAD_BYTES);
      return;
    }
    if (this.#heldBytes + part.length <= this.#max) {
      this.#held.push(part);
      this.#heldBytes += part.length;
      return;
    }
    const line = Buffer.concat([...this.#held, part]);
    this.#droppedHead = Buffer.from(line.subarray(0, HEAD_BYTES));
    this.#droppedTail = Buffer.from(line.subarray(-HEAD_BYTES));
    this.#held = [];
    this.#heldBytes = 0;
  }

  #endLine(): void {
    if (this.#droppedHead) {
      const id = idOf(this.#droppedHead, 'first') ?? idOf(this.#droppedTail, 'last');
      this.#droppedHead = undefined;
      this.#droppedTail = Buffer.alloc(0);
      this.#onTooLong(id);
      return;
    }
    this.#held.push(Buffer.from('\n'));
    this.push(Buffer.concat(this.#held));
    this.#held = [];
    this.#heldBytes = 0;
  }
}

/**
 * The `"id"` of a JSON-RPC request from a piece of its line, else null: in its start, the
 * `"id"` key of the message object itself (depth 1, so not one among the params' arguments);
 * in its end, an `"id"` that is the object's last key (the TypeScript SDK writes it last).
 */
export function idOf(piece: Buffer, which: 'first' | 'last'): string | number | null {
  const text = piece.toString('utf8');
  if (which === 'last') return valueOf(/[{,]\s*"id"\s*:\s*(-?\d{1,15}|"(?:[^"\\]|\\.){0,200}")\s*\}\s*$/.exec(text)?.[1]);
  let depth = 0;
  for (let i = 0; i < text.length; i++) {
    const c = text[i];
    if (c === '"') {
      const end = endOfString(text, i);
      if (end === -1) return null;
      if (depth === 1 && end === i + 3 && text.slice(i, end + 1) === '"id"') {
        const value = valueOf(/^\s*:\s*(-?\d{1,15}|"(?:[^"\\]|\\.){0,200}")/.exec(text.slice(end + 1, end + 220))?.[1]);
        if (value !== null) return value;
      }
      i = end;
    } else if (c === '{' || c === '[') depth++;
    else if (c === '}' || c === ']') depth--;
  }
  return null;
}

/** The index of the quote closing the string that opens at `start`, -1 when the piece ends first. */
function endOfString(text: string, start: number): number {
  for (let i = start + 1; i < text.length; i++) {
    if (text[i] === '\\') i++;
    else if (text[i] === '"') return i;
  }
  return -1;
}

function valueOf(json: string | undefined): string | number | null {
  if (json === undefined) return null;
  try {
    return JSON.parse(json) as string | number;
  } catch {
    return null;
  }
}

/** The JSON-RPC error answering a line that was too long (-32600: Invalid Request). */
export function tooLongAnswer(id: string | number | null, maxLineBytes: number): string {
  return `${JSON.stringify({ jsonrpc: '2.0', id, error: { code: -32600, message: `the message is longer than the ${maxLineBytes} bytes this server reads in one line; it was dropped` } })}\n`;
}

import type { ToolCall, ToolExecutor, ToolResult } from './types.js';

/**
 * What the loop checks before it runs a call and sends it back (docs/design.md §3 step 11 and
 * §4): arguments over a bound are not run and not echoed (a model returning 30 MB of arguments
 * every turn must not upload them again with every request); large arguments that did run are
 * echoed shortened; the same call with the same arguments a third time in a row is answered
 * with its earlier result and a note to move on instead of being run again (a write repeated
 * is not made again).
 */

/** Arguments larger than this are refused (a tool reads no file over Agent.MaxFileBytes; no call needs a megabyte). */
export const MAX_ARGUMENT_BYTES = 1024 * 1024;
/** Arguments sent back in the conversation beyond this are replaced by a note: the tool has them, the model wrote them. */
export const MAX_ECHOED_ARGUMENT_BYTES = 64 * 1024;
/** The third identical call in a row is not run. */
const REPEATS_RUN = 2;

export const REPEAT_NOTE =
  'Note: this is the same call with the same arguments as your last ones, so it was not run again; its result is above. ' +
  'Do not repeat it: use what you have, make a different call, or finish.';

export class CallGuards {
  readonly #maxBytes: number;
  readonly #maxEchoBytes: number;
  #last: { key: string; count: number; result: ToolResult } | undefined;

  constructor(maxArgumentBytes = MAX_ARGUMENT_BYTES) {
    this.#maxBytes = Math.min(maxArgumentBytes, MAX_ARGUMENT_BYTES);
    this.#maxEchoBytes = Math.min(this.#maxBytes, MAX_ECHOED_ARGUMENT_BYTES);
  }

  /** The calls as they are kept in the conversation and sent back: long arguments replaced by a short valid object. */
  echo(calls: readonly ToolCall[]): ToolCall[] {
    return calls.map((call) => {
      const bytes = Buffer.byteLength(call.arguments);
      if (bytes <= this.#maxEchoBytes) return call;
      const omitted = bytes > this.#maxBytes ? 'not run: over the limit' : 'shortened in the conversation; the call had them whole';
      return { ...call, arguments: JSON.stringify({ omitted: `${bytes} bytes of arguments (${omitted})` }) };
    });
  }

  async run(call: ToolCall, tools: ToolExecutor): Promise<ToolResult> {
    const bytes = Buffer.byteLength(call.arguments);
    if (bytes > this.#maxBytes) {
      this.#last = undefined;
      return {
        content:
          `Error: the arguments of this ${call.name} call are ${bytes} bytes, over the limit of ${this.#maxBytes}; it was not run. ` +
          'Send much shorter arguments: write long text in several smaller calls.',
        isError: true,
      };
    }
    const key = `${call.name}\u0000${canonical(call.arguments)}`;
    if (this.#last?.key === key) {
      this.#last.count++;
      if (this.#last.count > REPEATS_RUN) return { content: `${this.#last.result.content}\n\n${REPEAT_NOTE}`, isError: this.#last.result.isError };
    } else {
      this.#last = undefined;
    }
    const result = await tools.call(call);
    this.#last = { key, count: this.#last?.count ?? 1, result };
    return result;
  }
}

/** The same arguments written with other spacing or key order are the same call. */
function canonical(args: string): string {
  try {
    return JSON.stringify(sortKeys(JSON.parse(args)));
  } catch {
    return args;
  }
}

function sortKeys(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(sortKeys);
  if (typeof value !== 'object' || value === null) return value;
  return Object.fromEntries(
    Object.keys(value)
      .sort()
      .map((key) => [key, sortKeys((value as Record<string, unknown>)[key])]),
  );
}

/**
 * The visible part of a streamed answer, piece by piece: what stripThinking (strip-thinking.ts)
 * removes from a whole answer — `<think>…</think>` blocks, the blank start — is held back
 * here while it streams, so that a person never sees a reasoning model's chain of thought
 * scroll past. A tag split across two pieces is held until it can be told apart.
 *
 * A tool call written as text (text-calls.ts, docs/design.md §3 step 11) is not text either:
 * from a call marker on, nothing more is shown, and an answer that starts like a call object
 * (`{`, a fence) is held to its end. `suppressed` then says so, and the client hands on the
 * text of the settled answer instead, once it is known.
 */
const OPEN = /<think(?:ing)?>/i;
const CLOSE = /<\/think(?:ing)?>/i;
const THINK_TAGS = ['<think>', '<thinking>', '</think>', '</thinking>'];
const CALL_MARKERS = ['<tool_call>', '[TOOL_CALLS]', '<|python_tag|>', '<|channel|>', '<|start|>'];
const TAGS = [...THINK_TAGS, ...CALL_MARKERS];
const LONGEST_TAG = Math.max(...TAGS.map((tag) => tag.length));

export class VisibleText {
  #pending = '';
  #state: 'start' | 'think' | 'text' | 'call' = 'start';
  #suppressed = false;

  /** True once part of the answer was held back as a possible tool call written as text. */
  get suppressed(): boolean {
    return this.#suppressed;
  }

  /** The visible text this piece completes ('' while it is held back). */
  push(piece: string): string {
    if (this.#state === 'call') return '';
    this.#pending += piece;
    let out = '';
    for (;;) {
      if (this.#state === 'start') {
        this.#pending = this.#pending.replace(/^\s+/, '');
        if (this.#pending === '' || isTagPrefix(this.#pending) || isCallStartPrefix(this.#pending)) return out;
        const open = OPEN.exec(this.#pending);
        if (open?.index === 0) {
          this.#pending = this.#pending.slice(open[0].length);
          this.#state = 'think';
        } else if (startsLikeCall(this.#pending)) {
          return out + this.#toCall();
        } else this.#state = 'text';
      } else if (this.#state === 'think') {
        const close = CLOSE.exec(this.#pending);
        if (!close) {
          // Only a close tag's beginning can matter; the thought itself is dropped.
          this.#pending = this.#pending.slice(Math.max(0, this.#pending.lastIndexOf('<')));
          if (!isTagPrefix(this.#pending)) this.#pending = '';
          return out;
        }
        this.#pending = this.#pending.slice(close.index + close[0].length);
        this.#state = 'start';
      } else {
        const open = OPEN.exec(this.#pending);
        const marker = firstMarker(this.#pending);
        if (marker >= 0 && (!open || marker < open.index)) {
          out += this.#pending.slice(0, marker);
          return out + this.#toCall();
        }
        if (open) {
          out += this.#pending.slice(0, open.index);
          this.#pending = this.#pending.slice(open.index + open[0].length);
          this.#state = 'think';
          continue;
        }
        const held = heldTail(this.#pending);
        out += this.#pending.slice(0, this.#pending.length - held);
        this.#pending = this.#pending.slice(this.#pending.length - held);
        return out;
      }
    }
  }

  /** What was held back at the end of the answer and turned out to be text. */
  end(): string {
    const rest = this.#state === 'text' ? this.#pending : '';
    this.#pending = '';
    return rest;
  }

  #toCall(): string {
    this.#state = 'call';
    this.#suppressed = true;
    this.#pending = '';
    return '';
  }
}

function isTagPrefix(text: string): boolean {
  const lower = text.toLowerCase();
  return TAGS.some((tag) => tag.toLowerCase().startsWith(lower) && lower.length < tag.length);
}

/** A start that may still become a fence (one or two backticks or tildes). */
function isCallStartPrefix(text: string): boolean {
  return /^(?:`{1,2}|~{1,2})$/.test(text);
}

/** The whole answer may be one call object: bare, or alone in a fenced block. */
function startsLikeCall(text: string): boolean {
  return text.startsWith('{') || text.startsWith('```') || text.startsWith('~~~') || CALL_MARKERS.some((marker) => text.startsWith(marker));
}

function firstMarker(text: string): number {
  let first = -1;
  for (const marker of CALL_MARKERS) {
    const at = text.indexOf(marker);
    if (at >= 0 && (first < 0 || at < first)) first = at;
  }
  return first;
}

/** How many characters at the end may be the beginning of a tag or marker (held until the next piece). */
function heldTail(text: string): number {
  for (let k = Math.min(LONGEST_TAG - 1, text.length); k > 0; k--) {
    if (isTagPrefix(text.slice(text.length - k))) return k;
  }
  return 0;
}

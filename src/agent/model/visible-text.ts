/**
 * The visible part of a streamed answer, piece by piece: what stripThinking (strip-thinking.ts)
 * removes from a whole answer — `<think>…</think>` blocks, the blank start — is held back
 * here while it streams, so that a person never sees a reasoning model's chain of thought
 * scroll past. A tag split across two pieces is held until it can be told apart.
 */
const OPEN = /<think(?:ing)?>/i;
const CLOSE = /<\/think(?:ing)?>/i;
const TAGS = ['<think>', '<thinking>', '</think>', '</thinking>'];

export class VisibleText {
  #pending = '';
  #state: 'start' | 'think' | 'text' = 'start';

  /** The visible text this piece completes ('' while it is held back). */
  push(piece: string): string {
    this.#pending += piece;
    let out = '';
    for (;;) {
      if (this.#state === 'start') {
        this.#pending = this.#pending.replace(/^\s+/, '');
        if (this.#pending === '' || isTagPrefix(this.#pending)) return out;
        const open = OPEN.exec(this.#pending);
        if (open?.index === 0) {
          this.#pending = this.#pending.slice(open[0].length);
          this.#state = 'think';
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
        if (open) {
          out += this.#pending.slice(0, open.index);
          this.#pending = this.#pending.slice(open.index + open[0].length);
          this.#state = 'think';
          continue;
        }
        const lt = this.#pending.lastIndexOf('<');
        const held = lt >= 0 && isTagPrefix(this.#pending.slice(lt)) ? lt : this.#pending.length;
        out += this.#pending.slice(0, held);
        this.#pending = this.#pending.slice(held);
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
}

function isTagPrefix(text: string): boolean {
  const lower = text.toLowerCase();
  return TAGS.some((tag) => tag.startsWith(lower) && lower.length < tag.length);
}

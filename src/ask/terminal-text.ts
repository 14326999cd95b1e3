import { TerminalFilter } from '../vault/format/terminal-text.js';

/**
 * What `ask` prints, made safe for a terminal and for a reader (docs/design.md §11, issue 43):
 * the answer and the meeting titles are text a model or a note wrote, so
 *
 * - control characters and escape sequences go (vault/format/terminal-text.ts);
 * - a line of the answer that looks like the sources block (`Sources:`, or `- [[` at the start
 *   of a line) is indented by two spaces, so the block printed after the answer is the only one
 *   at the margin and a model cannot forge it.
 *
 * Both work on a stream: a sequence or a line start split across the pieces is handled whole.
 */

export const SOURCES_HEADER = 'Sources:';

const FORGEABLE = [SOURCES_HEADER, '- [['];

/** Indents the answer's lines that would look like the sources block (see above), on a stream. */
export class ForgedLineGuard {
  /** The start of the current line while it may still become a forgeable prefix; undefined once decided. */
  #head: string | undefined = '';

  push(text: string): string {
    let out = '';
    for (const ch of text) {
      if (this.#head === undefined) {
        out += ch;
        if (ch === '\n') this.#head = '';
        continue;
      }
      const head = this.#head + ch;
      if (ch === '\n') {
        out += head;
        this.#head = '';
      } else if (FORGEABLE.some((f) => head.startsWith(f))) {
        out += `  ${head}`;
        this.#head = undefined;
      } else if (FORGEABLE.some((f) => f.startsWith(head))) {
        this.#head = head;
      } else {
        out += head;
        this.#head = undefined;
      }
    }
    return out;
  }

  end(): string {
    const rest = this.#head ?? '';
    this.#head = '';
    return rest;
  }
}

/** The answer printed in pieces: each piece filtered, the line starts guarded. */
export function answerPrinter(write: (text: string) => void): { push(text: string): void; end(): void } {
  const filter = new TerminalFilter();
  const guard = new ForgedLineGuard();
  return {
    push: (text) => {
      const out = guard.push(filter.push(text));
      if (out !== '') write(out);
    },
    end: () => {
      const out = guard.end();
      if (out !== '') write(out);
    },
  };
}

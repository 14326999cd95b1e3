/**
 * What `ask` prints, made safe for a terminal and for a reader (docs/design.md §11, issue 43):
 * the answer and the meeting titles are text a model or a note wrote, so
 *
 * - control characters go: escape sequences whole (CSI `ESC [ … final`, OSC/DCS/APC/PM strings
 *   up to BEL or `ESC \`, two-byte ones; their 8-bit forms too), every other C0 control but
 *   `\n` and `\t` (a `\r` could overwrite a line), DEL, the C1 controls, and the bidirectional
 *   overrides that reorder what is shown;
 * - a line of the answer that looks like the sources block (`Sources:`, or `- [[` at the start
 *   of a line) is indented by two spaces, so the block printed after the answer is the only one
 *   at the margin and a model cannot forge it.
 *
 * Both work on a stream: a sequence or a line start split across the pieces is handled whole.
 */

/** The header of the sources block; the answer cannot print it at the margin. */
export const SOURCES_HEADER = 'Sources:';

const FORGEABLE = [SOURCES_HEADER, '- [['];

/** An unterminated escape string (an OSC title, a DCS) is dropped up to this many characters, then text shows again. */
const MAX_SEQUENCE = 4096;

type State = 'text' | 'esc' | 'csi' | 'string' | 'string-esc';

/** Control characters and escape sequences out of a stream of text. */
export class TerminalFilter {
  #state: State = 'text';
  #dropped = 0;

  push(chunk: string): string {
    let out = '';
    for (const ch of chunk) {
      const code = ch.codePointAt(0)!;
      switch (this.#state) {
        case 'text':
          if (code === 0x1b) this.#state = 'esc';
          else if (code === 0x9b) this.#enter('csi');
          else if (code === 0x90 || code === 0x9d || code === 0x9e || code === 0x9f || code === 0x98) this.#enter('string');
          else if (!isControl(code)) out += ch;
          break;
        case 'esc':
          if (ch === '[') this.#enter('csi');
          else if (ch === ']' || ch === 'P' || ch === 'X' || ch === '^' || ch === '_') this.#enter('string');
          // Any other byte ends a two-byte sequence (ESC c, ESC 7 …); a control after ESC is dropped with it.
          else this.#state = 'text';
          break;
        case 'csi':
          if ((code >= 0x40 && code <= 0x7e) || this.#tooLong()) this.#state = 'text';
          break;
        case 'string':
          if (code === 0x07 || code === 0x9c || this.#tooLong()) this.#state = 'text';
          else if (code === 0x1b) this.#state = 'string-esc';
          break;
        case 'string-esc':
          this.#state = ch === '\\' ? 'text' : 'string';
          break;
      }
    }
    return out;
  }

  #enter(state: State): void {
    this.#state = state;
    this.#dropped = 0;
  }

  #tooLong(): boolean {
    return ++this.#dropped > MAX_SEQUENCE;
  }
}

function isControl(code: number): boolean {
  if (code === 0x0a || code === 0x09) return false;
  return code < 0x20 || (code >= 0x7f && code <= 0x9f) || (code >= 0x202a && code <= 0x202e) || (code >= 0x2066 && code <= 0x2069);
}

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

/** A whole text (a title, an answer printed in one piece) safe for the terminal. */
export function terminalSafe(text: string): string {
  return new TerminalFilter().push(text);
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

/**
 * Text others wrote, made safe for a terminal (docs/design.md §11, issue 43): control characters
 * go, escape sequences whole (CSI `ESC [ … final`, OSC/DCS/APC/PM strings up to BEL or `ESC \`,
 * two-byte ones; their 8-bit forms too), every other C0 control but `\n` and `\t` (a `\r` could
 * overwrite a line), DEL, the C1 controls, and the bidirectional overrides that reorder what is
 * shown. Works on a stream: a sequence split across the pieces is handled whole. Used by `ask`,
 * `status`, readable log lines and the calendar's reading.
 */

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

/** A whole text (a title, an answer printed in one piece) safe for the terminal. */
export function terminalSafe(text: string): string {
  return new TerminalFilter().push(text);
}


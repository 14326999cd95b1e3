/**
 * Text as lines, the way every reader of notes counts them: the tools that show files to the
 * model, and the agent when it reads a long transcript in parts. Both number lines alike, so
 * a line number in the agent's notes is the one `read_*` tools show.
 */

/** The lines of a text: `\n` or `\r\n` separated, a final newline ends the last line. */
export function splitLines(text: string): string[] {
  if (text === '') return [];
  const lines = text.split(/\r?\n/);
  if (lines[lines.length - 1] === '') lines.pop();
  return lines;
}

/** `cat -n`: the number right-aligned in six columns, a tab, the text. */
export function catLine(n: number, text: string): string {
  return `${String(n).padStart(6, ' ')}\t${text}`;
}

/** The line ending a text uses (its first), `\n` for a text without one. */
export function eolOf(text: string): '\n' | '\r\n' {
  const nl = text.indexOf('\n');
  return nl > 0 && text[nl - 1] === '\r' ? '\r\n' : '\n';
}

/** Lines joined into a text that ends with a line ending (empty for no lines). */
export function joinLines(lines: readonly string[], eol: string): string {
  return lines.length === 0 ? '' : lines.join(eol) + eol;
}

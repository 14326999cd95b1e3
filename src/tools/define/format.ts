/**
 * How read tools show text to the model: a header `<path> (lines A-B of N)` and the lines as
 * `cat -n` prints them. Ranges are clamped to the file and never fail; a result longer than
 * the per-result budget is cut at a line boundary with a note on how to read the rest.
 */

import { catLine } from '../../vault/format/lines.js';
import type { ToolBinding } from '../binding/types.js';

export const DEFAULT_MAX_RESULT_CHARS = 60_000;

/** The per-result character budget of a run (the pipeline derives it from the context window). */
export function resultBudget(ctx: Pick<ToolBinding, 'maxResultChars'>): number {
  return ctx.maxResultChars ?? DEFAULT_MAX_RESULT_CHARS;
}

export interface ReadRange {
  from?: number | undefined;
  to?: number | undefined;
}

export interface FormatOptions {
  maxChars?: number;
  /** What the lines are, for notes to the model: `file` (default), `note body`. */
  what?: string;
}

/**
 * Format `lines` (numbered from 1) for the model, clamping `from`/`to` to the text: `from`
 * below 1 reads from 1, `to` past the end reads to the end, an empty range is a note.
 */
export function formatRead(label: string, lines: readonly string[], range: ReadRange, options: FormatOptions = {}): string {
  const total = lines.length;
  const what = options.what ?? 'file';
  if (total === 0) return `${label} (lines 0-0 of 0): the ${what} is empty.`;
  const from = Math.max(1, range.from ?? 1);
  const to = Math.min(total, range.to ?? total);
  if (from > to) {
    const asked = `${range.from ?? 1}-${range.to ?? total}`;
    return `${label} (lines 0-0 of ${total}): no lines in the requested range ${asked}; the ${what} has lines 1-${total}.`;
  }
  const maxChars = options.maxChars ?? DEFAULT_MAX_RESULT_CHARS;
  const header = `${label} (lines ${from}-${to} of ${total})`;
  const out: string[] = [header];
  let size = header.length + 1;
  for (let n = from; n <= to; n++) {
    const line = catLine(n, lines[n - 1] ?? '');
    // Leave room for the note so the whole result stays within the budget.
    if (size + line.length + 1 > maxChars - 200 && n > from) {
      out[0] = `${label} (lines ${from}-${n - 1} of ${total})`;
      out.push(`[cut: the result is limited to about ${maxChars} characters; read the rest with from=${n} to=${to}]`);
      return out.join('\n');
    }
    out.push(n === from && line.length > maxChars - 200 ? `${line.slice(0, maxChars - 300)} [line cut]` : line);
    size += line.length + 1;
  }
  return out.join('\n');
}

/** Cut any result to the budget at a line boundary (for results other than reads). */
export function capResult(text: string, maxChars: number): string {
  if (text.length <= maxChars) return text;
  const budget = Math.max(0, maxChars - 200);
  const cut = text.lastIndexOf('\n', budget);
  const kept = text.slice(0, cut > 0 ? cut : budget);
  const shown = kept.split('\n').length;
  const total = text.split('\n').length;
  return `${kept}\n[cut: showing ${shown} of ${total} lines; narrow the request to see the rest]`;
}

import { collapsedResult, shortenToolResult } from './compaction.js';
import { countTokens, MESSAGE_OVERHEAD, messageTokens } from './tokens.js';
import type { Message } from '../types.js';

/**
 * Reads sized to the room (issue: three-hour meetings on small windows): a read that does not
 * fit returns as many whole lines as fit, its header saying which lines they are, so the model
 * goes on from the right line instead of getting a handful of lines and a cut one. The room is
 * what is left once the results the model has already answered are collapsed, as compaction's
 * first stage will do before the next request.
 */

/** `<path> (lines A-B of N)` */
const READ_HEADER = /^(.*) \(lines (\d+)-(\d+) of (\d+)\)$/;
const NUMBERED = /^\s*(\d+)\t/;
/** Room for the line that says where to go on. */
const NOTE_TOKENS = 48;

/**
 * A read result cut to `maxTokens` at a whole line, the header's range narrowed to the lines
 * shown and a last line naming the next `from`. Other results (and reads whose first line
 * alone is over) are shortened as compaction shortens them.
 */
export function fitReadResult(content: string, maxTokens: number, tool: string): string {
  if (countTokens(content) <= maxTokens) return content;
  const lines = content.split('\n');
  const header = READ_HEADER.exec(lines[0] ?? '');
  if (!header || !NUMBERED.test(lines[1] ?? '')) return shortenToolResult(content, maxTokens, tool);
  const [, label, from, to, total] = header;
  const room = maxTokens - NOTE_TOKENS - countTokens(lines[0]!) - 1;
  let used = 0;
  let last: number | undefined;
  let kept = 1;
  for (let i = 1; i < lines.length; i++) {
    const numbered = NUMBERED.exec(lines[i]!);
    if (!numbered) break;
    const size = countTokens(lines[i]!) + 1;
    if (used + size > room) break;
    used += size;
    last = Number(numbered[1]);
    kept = i + 1;
  }
  if (last === undefined) return shortenToolResult(content, maxTokens, tool);
  const next = last + 1;
  return [
    `${label} (lines ${from}-${last} of ${total})`,
    ...lines.slice(1, kept),
    `[Lines ${next}-${to} are not shown: they do not fit the context window now. Read on with ${tool} from: ${next}.]`,
  ].join('\n');
}

/** A placeholder names the tool and its arguments (clipped): about this many tokens. */
function placeholderTokens(tool: string): number {
  return MESSAGE_OVERHEAD + countTokens(collapsedResult(tool, '{"from":1000,"to":1400}', 10000)) + 24;
}

/**
 * Tokens `messages` take once every tool result among them is a one-line placeholder: what
 * stays of the conversation after compaction's first stage.
 */
export function keptAfterCollapse(messages: readonly Message[]): number {
  let total = 0;
  for (const message of messages) {
    if (message.role !== 'tool') total += messageTokens(message);
    else total += Math.min(messageTokens(message), placeholderTokens(message.name));
  }
  return total;
}

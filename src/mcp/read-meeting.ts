import { z } from 'zod';
import { formatRead } from '../tools/define/format.js';
import { ToolError } from '../tools/errors.js';
import { readConfinedText } from '../vault/files/real-place.js';
import { parseNote } from '../vault/format/frontmatter.js';
import { splitLines } from '../vault/format/lines.js';
import { locateMeeting } from './locate.js';
import { defineMcpTool } from './tool.js';

/** Larger than the agent's per-result budget: an MCP client's model usually has a large window. */
const MAX_READ_CHARS = 100_000;

/**
 * `read_meeting` (docs/design.md §10): a meeting's summary, transcript or notes, numbered as
 * the agent's read tools show them (tools/define/format.ts): the summary and transcript whole,
 * frontmatter included; the notes are the meeting note's body, line 1 its first line.
 */
export const readMeeting = defineMcpTool({
  name: 'read_meeting',
  description: "A meeting's summary (default), transcript or the notes typed during it, with line numbers.",
  shape: {
    meeting: z.string().min(1).describe('The meeting note or its summary: vault path (as list_meetings gives it) or [[link]].'),
    part: z.enum(['summary', 'transcript', 'notes']).optional().describe('summary (default), transcript, or notes.'),
    from: z.number().int().optional().describe('First line to show (1-based).'),
    to: z.number().int().optional().describe('Last line to show (inclusive).'),
  },
  async handler(args, { index, vault, onRead }) {
    const located = await locateMeeting(index, args.meeting);
    const part = args.part ?? 'summary';
    const range = { from: args.from, to: args.to };
    if (part === 'notes') {
      if (!located.meeting) throw new ToolError(`no meeting note belongs to ${JSON.stringify(args.meeting)}, so there are no notes to read.`);
      const text = await readConfinedText(vault, located.meeting.abs);
      if (text === undefined) throw new ToolError(`the meeting note ${located.meeting.rel} is gone.`);
      const { body } = parseNote(text, located.meeting.rel);
      onRead?.(located.meeting.rel);
      return formatRead(located.meeting.rel, splitLines(body), range, { maxChars: MAX_READ_CHARS, what: 'note body' });
    }
    const abs = part === 'summary' ? located.summaryPath : located.transcriptPath;
    // Links in a meeting note are vault content anyone may write: the read is confined (docs/design.md §10).
    const text = abs === undefined ? undefined : await readConfinedText(vault, abs);
    if (abs === undefined || text === undefined) {
      const other = part === 'summary' ? 'transcript' : 'summary';
      throw new ToolError(`${JSON.stringify(args.meeting)} has no ${part}${abs ? ` (${vault.rel(abs)} does not exist)` : ''} yet; try part "${other}" or "notes".`);
    }
    onRead?.(vault.rel(abs));
    return formatRead(vault.rel(abs), splitLines(text), range, { maxChars: MAX_READ_CHARS });
  },
});

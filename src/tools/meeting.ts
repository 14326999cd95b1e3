import { FrontmatterError, type ParsedNote, parseNote, replaceBody, updateFrontmatter } from '../vault/frontmatter.js';
import { joinContextBody, splitContextBody } from '../vault/context.js';
import { isFailureReportText, renderSummaryNote } from '../vault/summary.js';
import { UNCHANGED } from '../vault/update.js';
import { defineTool } from './define.js';
import { ToolError } from './errors.js';
import { nameArgument } from './args.js';
import { formatRead, resultBudget, splitLines } from './format.js';
import { eolOf, joinLines, readTextFile } from './read.js';
import { rememberSeen, requireUnchangedSinceSeen } from './seen.js';
import type { ToolContext } from './types.js';

/**
 * The meeting's own notes: reading the meeting note, user notes, transcript, context note and
 * glossary; editing the attendees; writing the summary and the agent's notebook (the context
 * note's body).
 */

const RANGE = {
  from: { type: 'integer', description: 'First line to read (1-based, inclusive). Omit to start at line 1.' },
  to: { type: 'integer', description: 'Last line to read (inclusive). Omit to read to the end.' },
} as const;

const READ_FORMAT =
  'The result starts with `<path> (lines A-B of N)`, then each line as `number<TAB>text`. Without from/to the whole text is returned; a range is clamped to the text.';

async function readRequired(ctx: ToolContext, abs: string, what: string): Promise<string> {
  const text = await readTextFile(ctx.vault, abs);
  if (text === undefined) throw new ToolError(`the ${what} ${ctx.vault.rel(abs)} does not exist.`);
  return text;
}

function parse(ctx: ToolContext, text: string, abs: string, what: string): ParsedNote {
  try {
    return parseNote(text, ctx.vault.rel(abs));
  } catch (err) {
    if (err instanceof FrontmatterError) throw new ToolError(`the ${what}'s frontmatter does not parse (${err.message}), so it is not edited.`);
    throw err;
  }
}

export const readMeetingnote = defineTool({
  name: 'read_meetingnote',
  description: `Reads this meeting's note (the hub), frontmatter included: title, times, attendees, projects, links, and the notes the user typed. ${READ_FORMAT} Line numbers count over the whole file.`,
  params: { ...RANGE },
  async handler(args, ctx) {
    const abs = ctx.meeting.meetingPath;
    const text = await readRequired(ctx, abs, 'meeting note');
    return formatRead(ctx.vault.rel(abs), splitLines(text), args, { maxChars: resultBudget(ctx) });
  },
});

export const readTranscript = defineTool({
  name: 'read_transcript',
  description: `Reads this meeting's transcript note, frontmatter included. Speech lines look like \`[timestamp] Speaker: text\`. ${READ_FORMAT} Line numbers count over the whole file; for a long transcript read it in ranges.`,
  params: { ...RANGE },
  async handler(args, ctx) {
    const abs = ctx.meeting.transcriptPath;
    const text = await readRequired(ctx, abs, 'transcript');
    return formatRead(ctx.vault.rel(abs), splitLines(text), args, { maxChars: resultBudget(ctx) });
  },
});

export const readUsernotes = defineTool({
  name: 'read_usernotes',
  description: `Reads the notes the user typed during the meeting: the meeting note's body, without its frontmatter. ${READ_FORMAT} Line 1 is the first line after the frontmatter.`,
  params: { ...RANGE },
  async handler(args, ctx) {
    const abs = ctx.meeting.meetingPath;
    const note = parse(ctx, await readRequired(ctx, abs, 'meeting note'), abs, 'meeting note');
    return formatRead(ctx.vault.rel(abs), splitLines(note.body), args, { maxChars: resultBudget(ctx), what: 'note body' });
  },
});

export const readContext = defineTool({
  name: 'read_context',
  description: `Reads your notebook for this meeting: the body of the assistant context note (its frontmatter belongs to the daemon). ${READ_FORMAT} Line 1 is the first line after the frontmatter, as write_context counts.`,
  params: { ...RANGE },
  async handler(args, ctx) {
    const abs = ctx.meeting.contextPath;
    const text = await readTextFile(ctx.vault, abs);
    const { notebook } = splitContextBody(text === undefined ? '' : parse(ctx, text, abs, 'context note').body);
    rememberSeen(ctx, abs, notebook);
    return formatRead(ctx.vault.rel(abs), splitLines(notebook), args, { maxChars: resultBudget(ctx), what: 'note body' });
  },
});

export const readGlossary = defineTool({
  name: 'read_glossary',
  description: `Reads the glossary (terms, names and abbreviations of this team; read-only). A missing glossary reads as empty. ${READ_FORMAT}`,
  params: { ...RANGE },
  async handler(args, ctx) {
    const abs = ctx.vault.layout.files.glossary;
    const text = (await readTextFile(ctx.vault, abs)) ?? '';
    return formatRead(ctx.vault.rel(abs), splitLines(text), args, { maxChars: resultBudget(ctx) });
  },
});

/** A name as written in a frontmatter list: `[[Alice]]` and `[[People/Alice|Alice]]` name Alice. */
function personName(value: string): string {
  const link = /^\[\[([^\]|#]*)(?:[#|][^\]]*)?\]\]$/.exec(value.trim());
  const name = link ? link[1]!.split('/').pop()! : value;
  return name.trim().toLowerCase();
}

function attendeeList(value: unknown): string[] {
  if (Array.isArray(value)) return value.filter((v) => v !== null && v !== undefined).map(String);
  if (typeof value === 'string' && value.trim() !== '') return value.split(',').map((s) => s.trim()).filter(Boolean);
  return [];
}

async function editAttendees(ctx: ToolContext, edit: (current: string[]) => string[] | string): Promise<string> {
  const abs = ctx.meeting.meetingPath;
  await readRequired(ctx, abs, 'meeting note');
  const outcome: { answer: string | string[] } = { answer: '' };
  // Applied to the note as it is at the moment of writing: a person's edit meanwhile is kept.
  await ctx.audit.update(abs, (current) => {
    if (current === undefined) throw new ToolError(`the meeting note ${ctx.vault.rel(abs)} does not exist.`);
    const note = parse(ctx, current, abs, 'meeting note');
    const answer = edit(attendeeList(note.data.attendees));
    outcome.answer = answer;
    if (typeof answer === 'string') return UNCHANGED;
    return updateFrontmatter(current, { attendees: answer }, ctx.vault.rel(abs));
  });
  const final = outcome.answer;
  if (typeof final === 'string') return final;
  ctx.meeting.attendees = final;
  return `Attendees are now: ${final.join(', ') || '(none)'}.`;
}

export const addAttendee = defineTool({
  name: 'add_attendee',
  description:
    "Adds a person to the meeting note's `attendees` (unless already listed, compared without regard to case). Use it when the transcript shows someone took part who is not listed. The change is recorded and shown to the user.",
  params: { name: { type: 'string', required: true, nonEmpty: true, description: 'The person\'s name as it should appear, e.g. "Alice Martin".' } },
  async handler(args, ctx) {
    const name = nameArgument(args.name, 'name');
    return editAttendees(ctx, (current) =>
      current.some((a) => personName(a) === personName(name)) ? `${name} is already an attendee; nothing changed.` : [...current, name],
    );
  },
});

export const removeAttendee = defineTool({
  name: 'remove_attendee',
  description:
    "Removes a person from the meeting note's `attendees` (compared without regard to case). Use it when someone is listed who did not take part. The change is recorded and shown to the user.",
  params: { name: { type: 'string', required: true, nonEmpty: true, description: 'The attendee to remove, as listed.' } },
  async handler(args, ctx) {
    const name = nameArgument(args.name, 'name');
    return editAttendees(ctx, (current) => {
      const kept = current.filter((a) => personName(a) !== personName(name));
      if (kept.length === current.length) {
        throw new ToolError(`${JSON.stringify(name)} is not an attendee. Attendees: ${current.join(', ') || '(none)'}.`);
      }
      return kept;
    });
  },
});

/** A model sometimes starts the body with a frontmatter of its own; the daemon writes that part. */
function stripFrontmatter(content: string): string {
  try {
    const note = parseNote(content);
    return note.hasFrontmatter ? note.body.replace(/^(\r?\n)+/, '') : content;
  } catch {
    return content;
  }
}

export const writeSummary = defineTool({
  name: 'write_summary',
  description:
    "Writes THIS meeting's summary note: `content` is the Markdown body (## Summary, ## Decisions, ## Next steps); the daemon writes the frontmatter. " +
    'This is the only way to write the current summary; call it again to replace what you wrote. Past meetings\' summaries are read-only history and cannot be written. ' +
    '`title` is used only when the meeting note has no title.',
  params: {
    content: { type: 'string', required: true, nonEmpty: true, description: 'The summary body in Markdown, without frontmatter.' },
    title: { type: 'string', description: 'A title for the meeting, used only when the meeting note has none.' },
  },
  async handler(args, ctx) {
    const abs = ctx.meeting.summaryPath;
    const title = args.title?.trim().replace(/[\r\n]+/g, ' ');
    if (!ctx.meeting.title && title) ctx.run.agentTitle = title;
    const body = stripFrontmatter(args.content);
    if (body.trim() === '') throw new ToolError('the summary is empty; write the summary body in content.');
    const note = renderSummaryNote(ctx.vault, ctx.meeting, body, ctx.meeting.title ? {} : { agentTitle: ctx.run.agentTitle });
    // A good summary being regenerated, or a note a person put there, is kept in .trash/ (DESIGN section 1).
    const firstWrite = !ctx.run.summaryWritten;
    await ctx.vault.replace(abs, note, (existing) => firstWrite && !isFailureReportText(existing));
    ctx.run.summaryWritten = true;
    return `Wrote the summary note ${ctx.vault.rel(abs)} (${splitLines(body).length} lines).`;
  },
});

export const writeContext = defineTool({
  name: 'write_context',
  description:
    'Edits your notebook for this meeting, the body of the assistant context note (the frontmatter is kept as it is). ' +
    'mode "overwrite": the body becomes content; "replace": lines from-to (inclusive) become content (empty content deletes them); "insert": content goes before line `line` (line count + 1 appends). ' +
    'Line 1 is the first line after the frontmatter, as read_context shows. The record of external changes below your notebook is kept as it is. ' +
    'A replace or insert on a notebook someone else changed since you last read it is refused: read_context again first.',
  params: {
    content: { type: 'string', required: true, description: 'The text to write.' },
    mode: { type: 'string', required: true, enum: ['overwrite', 'replace', 'insert'], description: 'overwrite | replace | insert' },
    from: { type: 'integer', description: 'replace: first line (1-based, inclusive).' },
    to: { type: 'integer', description: 'replace: last line (inclusive).' },
    line: { type: 'integer', description: 'insert: insert before this line.' },
  },
  async handler(args, ctx) {
    const { mode } = args;
    if (mode === 'overwrite' && (args.from !== undefined || args.to !== undefined || args.line !== undefined)) {
      throw new ToolError('mode "overwrite" replaces the whole body and takes no from/to/line; use mode "replace" for a range.');
    }
    if (mode === 'replace' && (args.from === undefined || args.to === undefined || args.line !== undefined)) {
      throw new ToolError('mode "replace" needs from and to (an inclusive line range) and no line.');
    }
    if (mode === 'insert' && (args.line === undefined || args.from !== undefined || args.to !== undefined)) {
      throw new ToolError('mode "insert" needs line (insert before it) and no from/to.');
    }
    const abs = ctx.meeting.contextPath;
    let done = '';
    let notebookAfter = '';
    // Applied to the note as it is at the moment of writing (the daemon updates its frontmatter
    // during the run); only the notebook is edited, the audit record below it is kept.
    await ctx.vault.update(abs, (text) => {
      if (text === undefined) throw new ToolError(`the context note ${ctx.vault.rel(abs)} does not exist.`);
      const note = parse(ctx, text, abs, 'context note');
      const { notebook, record } = splitContextBody(note.body);
      if (mode !== 'overwrite') requireUnchangedSinceSeen(ctx, abs, notebook, 'read_context', 'the context note body');
      const edited = editLines(splitLines(notebook), splitLines(args.content), args);
      done = edited.done;
      const body = joinContextBody(joinLines(edited.lines, eolOf(text)), record, eolOf(text));
      notebookAfter = splitContextBody(body).notebook;
      return replaceBody(text, body);
    });
    rememberSeen(ctx, abs, notebookAfter);
    return `${done} of the context note body; it now has ${splitLines(notebookAfter).length} lines.`;
  },
});

/** A write_context edit of the notebook's lines; a range outside them is a ToolError. */
function editLines(
  lines: string[],
  added: string[],
  args: { mode: string; from?: number; to?: number; line?: number },
): { lines: string[]; done: string } {
  if (args.mode === 'overwrite') return { lines: added, done: 'Replaced the notebook' };
  if (args.mode === 'replace') {
    const from = args.from!;
    const to = args.to!;
    if (from < 1 || to < from || to > lines.length) {
      throw new ToolError(`the range ${from}-${to} is outside the context body, which has ${lines.length} lines (valid: 1 <= from <= to <= ${lines.length}).`);
    }
    return { lines: [...lines.slice(0, from - 1), ...added, ...lines.slice(to)], done: `Replaced lines ${from}-${to}` };
  }
  const at = args.line!;
  if (at < 1 || at > lines.length + 1) {
    throw new ToolError(`cannot insert before line ${at}: the context body has ${lines.length} lines (valid: 1 to ${lines.length + 1}).`);
  }
  return { lines: [...lines.slice(0, at - 1), ...added, ...lines.slice(at - 1)], done: `Inserted ${added.length} lines before line ${at}` };
}

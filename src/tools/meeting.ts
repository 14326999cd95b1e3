import { FrontmatterError, type ParsedNote, parseNote, replaceBody, updateFrontmatter } from '../vault/frontmatter.js';
import { renderSummaryNote } from '../vault/summary.js';
import { countActionItems } from '../vault/summary-sections.js';
import { defineTool } from './define.js';
import { ToolError } from './errors.js';
import { nameArgument } from './args.js';
import { formatRead, resultBudget, splitLines } from './format.js';
import { eolOf, joinLines, readTextFile } from './read.js';
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
    const body = text === undefined ? '' : parse(ctx, text, abs, 'context note').body;
    return formatRead(ctx.vault.rel(abs), splitLines(body), args, { maxChars: resultBudget(ctx), what: 'note body' });
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
  // Re-read now: a person may have edited the note since the run started.
  const text = await readRequired(ctx, abs, 'meeting note');
  const note = parse(ctx, text, abs, 'meeting note');
  const result = edit(attendeeList(note.data.attendees));
  if (typeof result === 'string') return result;
  await ctx.audit.write(abs, updateFrontmatter(text, { attendees: result }, ctx.vault.rel(abs)));
  ctx.meeting.attendees = result;
  return `Attendees are now: ${result.join(', ') || '(none)'}.`;
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

function isFailureReport(text: string): boolean {
  try {
    return parseNote(text).data.status === 'failed';
  } catch {
    return false;
  }
}

/** A model sometimes starts the body with a frontmatter of its own; the daemon writes that part. */
function stripFrontmatter(content: string): string {
  try {
    const note = parseNote(content);
    return note.hasFrontmatter ? note.body.replace(/^(\r?\n)+/, '') : content;
  } catch {
    return content;
  }
}

/**
 * A label `override_speaker` mapped to a name in this run must not stay in the summary: people
 * read "Bob", not "Speaker 2". Matched as a whole word, in any case.
 */
function refuseSpeakerLabels(body: string, names: Map<string, string> | undefined): void {
  for (const [label, name] of names ?? []) {
    if (mentionsWord(body, label)) {
      throw new ToolError(`the summary still says ${JSON.stringify(label)}, whom you identified as ${JSON.stringify(name)}; write the name instead and call write_summary again.`);
    }
  }
}

function mentionsWord(text: string, word: string): boolean {
  const hay = text.toLowerCase();
  const needle = word.toLowerCase();
  const wordChar = (c: string | undefined) => c !== undefined && /[\p{L}\p{N}_]/u.test(c);
  for (let i = hay.indexOf(needle); i >= 0; i = hay.indexOf(needle, i + 1)) {
    if (!wordChar(hay[i - 1]) && !wordChar(hay[i + needle.length])) return true;
  }
  return false;
}

export const writeSummary = defineTool({
  name: 'write_summary',
  description:
    "Writes THIS meeting's summary note: `content` is the Markdown body, in the structure the instructions give; the daemon writes the frontmatter. " +
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
    refuseSpeakerLabels(body, ctx.run.speakerNames);
    // A good summary being regenerated, or a note a person put there, is kept in .trash/ (DESIGN section 1).
    if (!ctx.run.summaryWritten) {
      const existing = await ctx.vault.readIfExists(abs);
      if (existing !== undefined && !isFailureReport(existing)) await ctx.vault.copyToTrash(abs);
    }
    const actionItems = countActionItems(body, ctx.settings.Agent.TaskFormat);
    const note = renderSummaryNote(ctx.vault, ctx.meeting, body, {
      ...(ctx.meeting.title ? {} : { agentTitle: ctx.run.agentTitle }),
      ...(actionItems === undefined ? {} : { actionItems }),
    });
    await ctx.vault.write(abs, note);
    ctx.run.summaryWritten = true;
    const items = actionItems === undefined ? '' : `, ${actionItems} action item${actionItems === 1 ? '' : 's'}`;
    return `Wrote the summary note ${ctx.vault.rel(abs)} (${splitLines(body).length} lines${items}).`;
  },
});

export const writeContext = defineTool({
  name: 'write_context',
  description:
    'Edits your notebook for this meeting, the body of the assistant context note (the frontmatter is kept as it is). ' +
    'mode "overwrite": the body becomes content; "replace": lines from-to (inclusive) become content (empty content deletes them); "insert": content goes before line `line` (line count + 1 appends). ' +
    'Line 1 is the first line after the frontmatter, as read_context shows.',
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
    // Re-read at the moment of writing: the daemon updates the frontmatter during the run.
    const text = await readRequired(ctx, abs, 'context note');
    const note = parse(ctx, text, abs, 'context note');
    const eol = eolOf(text);
    const lines = splitLines(note.body);
    const added = splitLines(args.content);
    let body: string;
    let done: string;
    if (mode === 'overwrite') {
      body = joinLines(added, eol);
      done = 'Replaced the notebook';
    } else if (mode === 'replace') {
      const from = args.from!;
      const to = args.to!;
      if (from < 1 || to < from || to > lines.length) {
        throw new ToolError(`the range ${from}-${to} is outside the context body, which has ${lines.length} lines (valid: 1 <= from <= to <= ${lines.length}).`);
      }
      body = joinLines([...lines.slice(0, from - 1), ...added, ...lines.slice(to)], eol);
      done = `Replaced lines ${from}-${to}`;
    } else {
      const at = args.line!;
      if (at < 1 || at > lines.length + 1) {
        throw new ToolError(`cannot insert before line ${at}: the context body has ${lines.length} lines (valid: 1 to ${lines.length + 1}).`);
      }
      body = joinLines([...lines.slice(0, at - 1), ...added, ...lines.slice(at - 1)], eol);
      done = `Inserted ${added.length} lines before line ${at}`;
    }
    await ctx.vault.write(abs, replaceBody(text, body));
    return `${done} of the context note body; it now has ${splitLines(body).length} lines.`;
  },
});

import { eolOf, joinLines, splitLines } from '../../vault/format/lines.js';
import { FrontmatterError, type ParsedNote, parseNote, replaceBody, updateFrontmatter } from '../../vault/format/frontmatter.js';
import { joinContextBody, splitContextBody } from '../../vault/notes/context.js';
import { isFailureReportText, renderSummaryNote } from '../../vault/notes/summary.js';
import { countActionItems } from '../../vault/notes/summary-sections.js';
import { UNCHANGED } from '../../vault/files/update.js';
import { defineTool } from '../define/define.js';
import { inertMarkdown, inertNotice } from '../../vault/format/inert.js';
import { refuseExecutableChange } from '../projects/project-limits.js';
import { ToolError } from '../errors.js';
import { stripThinking } from '../../agent/model/answers/strip-thinking.js';
import { nameArgument } from '../define/args.js';
import { formatRead, resultBudget } from '../define/format.js';
import { readTextFile } from '../define/read.js';
import { rememberSeen, requireReadAndUnchanged, requireUnchangedSinceSeen } from '../define/last-seen.js';
import { staleLabelsSentence, staleSpeakerLabels } from './speaker-names.js';
import type { ToolBinding } from '../binding/types.js';

/**
 * The meeting's own notes: reading the meeting note, user notes, transcript, context note and
 * glossary; editing the attendees; writing the summary and the agent's notebook (the context
 * note's body).
 */

// Descriptions are short on purpose: they are sent with every request, and a 4,096-token
// window has no room for prose the result's own header (`path (lines A-B of N)`) makes plain.
const RANGE = { from: { type: 'integer' }, to: { type: 'integer' } } as const;

async function readRequired(ctx: ToolBinding, abs: string, what: string): Promise<string> {
  const text = await readTextFile(ctx.vault, abs);
  if (text === undefined) throw new ToolError(`the ${what} ${ctx.vault.rel(abs)} does not exist.`);
  return text;
}

function parse(ctx: ToolBinding, text: string, abs: string, what: string): ParsedNote {
  try {
    return parseNote(text, ctx.vault.rel(abs));
  } catch (err) {
    if (err instanceof FrontmatterError) throw new ToolError(`the ${what}'s frontmatter does not parse (${err.message}), so it is not edited.`);
    throw err;
  }
}

export const readMeetingNote = defineTool({
  name: 'read_meetingnote',
  description: 'This meeting: title, times, attendees, projects.',
  params: { ...RANGE },
  async handler(args, ctx) {
    const abs = ctx.meeting.meetingPath;
    const text = await readRequired(ctx, abs, 'meeting note');
    return formatRead(ctx.vault.rel(abs), splitLines(text), args, { maxChars: resultBudget(ctx) });
  },
});

export const readTranscript = defineTool({
  name: 'read_transcript',
  description: 'The transcript; from/to: 1-based line range.',
  params: { ...RANGE },
  async handler(args, ctx) {
    const abs = ctx.meeting.transcriptPath;
    const text = await readRequired(ctx, abs, 'transcript');
    return formatRead(ctx.vault.rel(abs), splitLines(text), args, { maxChars: resultBudget(ctx) });
  },
});

export const readUserNotes = defineTool({
  name: 'read_usernotes',
  description: "The user's notes from the meeting.",
  params: { ...RANGE },
  async handler(args, ctx) {
    const abs = ctx.meeting.meetingPath;
    const note = parse(ctx, await readRequired(ctx, abs, 'meeting note'), abs, 'meeting note');
    return formatRead(ctx.vault.rel(abs), splitLines(note.body), args, { maxChars: resultBudget(ctx), what: 'note body' });
  },
});

export const readContext = defineTool({
  name: 'read_context',
  description: 'Your notebook.',
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
  description: 'Spellings of names and terms.',
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

async function editAttendees(ctx: ToolBinding, edit: (current: string[]) => string[] | string): Promise<string> {
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
  description: 'Add a missing participant.',
  params: { name: { type: 'string', required: true, nonEmpty: true } },
  async handler(args, ctx) {
    const name = nameArgument(args.name, 'name');
    return editAttendees(ctx, (current) =>
      current.some((a) => personName(a) === personName(name)) ? `${name} is already an attendee; nothing changed.` : [...current, name],
    );
  },
});

export const removeAttendee = defineTool({
  name: 'remove_attendee',
  description: 'Remove an absent attendee.',
  params: { name: { type: 'string', required: true, nonEmpty: true } },
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

/**
 * Reasoning a model wrote into the summary's own argument (`<think>…</think>`, closed or not)
 * is never taken for the summary (docs/design.md §3 step 11); a summary without such a tag is
 * passed on byte for byte.
 */
function withoutThinking(content: string): string {
  // Only content that opens with reasoning is the model's thinking: a summary of a meeting about
  // models may quote a `<think>` tag, and loses nothing.
  return /^\s*<think(?:ing)?>/i.test(content) ? stripThinking(content) : content;
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
 * read "Bob", not "Speaker 2".
 */
function refuseSpeakerLabels(body: string, names: Map<string, string> | undefined): void {
  const stale = staleLabelsSentence(staleSpeakerLabels(body, names));
  if (stale) throw new ToolError(`${stale}; write the name instead and call write_summary again.`);
}

export const writeSummary = defineTool({
  name: 'write_summary',
  description: "This meeting's summary, in the structure the instructions give (again replaces it); past ones are read-only. title: if none.",
  params: {
    content: { type: 'string', required: true, nonEmpty: true },
    title: { type: 'string' },
  },
  async handler(args, ctx) {
    const abs = ctx.meeting.summaryPath;
    // What the agent writes is made inert: no code an Obsidian plugin would run (docs/design.md §4).
    const title = args.title === undefined ? undefined : inertMarkdown(args.title.trim().replace(/[\r\n]+/g, ' '));
    if (!ctx.meeting.title && title) ctx.run.agentTitle = title;
    const given = stripFrontmatter(withoutThinking(args.content));
    const body = inertMarkdown(given);
    if (body.trim() === '') throw new ToolError('the summary is empty (reasoning in <think> tags is not part of it); write the summary body in content.');
    refuseSpeakerLabels(body, ctx.run.speakerNames);
    const actionItems = countActionItems(body, ctx.settings.Agent.TaskFormat);
    const note = renderSummaryNote(ctx.vault, ctx.meeting, body, {
      ...(ctx.meeting.title ? {} : { agentTitle: ctx.run.agentTitle }),
      ...(actionItems === undefined ? {} : { actionItems }),
    });
    // A good summary being regenerated, or a note a person put there, is kept in .trash/ (docs/design.md §1).
    const firstWrite = !ctx.run.summaryWritten;
    await ctx.vault.replace(abs, note, (existing) => firstWrite && !isFailureReportText(existing));
    ctx.run.summaryWritten = true;
    ctx.run.summaryBody = body;
    const items = actionItems === undefined ? '' : `, ${actionItems} action item${actionItems === 1 ? '' : 's'}`;
    return `Wrote the summary note ${ctx.vault.rel(abs)} (${splitLines(body).length} lines${items}).${inertNotice(given, body)}`;
  },
});

export const writeContext = defineTool({
  name: 'write_context',
  description: 'Edit your notebook: overwrite, replace from-to, or insert before line (read_context again if it changed). The record of external changes below it is kept.',
  params: {
    content: { type: 'string', required: true },
    mode: { type: 'string', required: true, enum: ['overwrite', 'replace', 'insert'] },
    from: { type: 'integer' },
    to: { type: 'integer' },
    line: { type: 'integer' },
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
      // A range replaced in a notebook never read here would delete lines the agent never saw
      // (a person's); an insert deletes nothing, so it needs only the lines to be current.
      if (mode === 'replace' && notebook !== '') requireReadAndUnchanged(ctx, abs, notebook, 'read_context', 'the context note body');
      else if (mode !== 'overwrite') requireUnchangedSinceSeen(ctx, abs, notebook, 'read_context', 'the context note body');
      const edited = editLines(splitLines(notebook), splitLines(inertMarkdown(args.content)), args);
      done = edited.done;
      const body = joinContextBody(joinLines(edited.lines, eolOf(text)), record, eolOf(text));
      notebookAfter = splitContextBody(body).notebook;
      refuseExecutableChange(notebook, notebookAfter);
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

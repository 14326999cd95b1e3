import { ToolError } from './errors.js';
import { defineTool } from './define.js';
import { formatRead, resultBudget, splitLines } from './format.js';
import { resolveInside } from './paths.js';
import { findProject, listProjectFiles, listProjectFolders, resolveProject } from './project-files.js';
import { eolOf, joinLines, readTextFile } from './read.js';
import { lastSeen, rememberSeen, requireUnchangedSinceSeen } from './seen.js';
import { UNCHANGED } from '../vault/update.js';

/** Project tools: the meeting's projects, and the files of any existing project folder. */

const FROM = { type: 'integer', description: 'First line to read (1-based, inclusive). Omit to start at line 1.' } as const;
const TO = { type: 'integer', description: 'Last line to read (inclusive). Omit to read to the end.' } as const;
const PROJECT = {
  type: 'string',
  required: true,
  nonEmpty: true,
  description: 'Project name: a folder directly inside the projects folder (see list_projects).',
} as const;

export const listProjects = defineTool({
  name: 'list_projects',
  description:
    "Lists this meeting's projects (the `projects` of the meeting note) that exist as project folders, with their folder paths, " +
    'and names the listed projects that have no folder. Use it first to learn which projects the meeting is about before reading or updating project files.',
  params: {},
  async handler(_args, ctx) {
    const folders = await listProjectFolders(ctx.vault);
    const existing: string[] = [];
    const missing: string[] = [];
    for (const name of ctx.meeting.projects) {
      const found = findProject(folders, name);
      if (found) existing.push(`- ${found.name} (${ctx.vault.rel(found.abs)}/)`);
      else missing.push(name);
    }
    if (ctx.meeting.projects.length === 0) return 'This meeting lists no projects.';
    const lines = [`Projects of this meeting (${existing.length}):`, ...(existing.length > 0 ? existing : ['(none exists as a folder)'])];
    if (missing.length > 0) lines.push(`Listed in the meeting note but without a project folder: ${missing.join(', ')}`);
    return lines.join('\n');
  },
});

export const listProjectfiles = defineTool({
  name: 'list_projectfiles',
  description:
    'Lists the files of an existing project folder, as paths relative to the project, sorted. Use it to find the project knowledge files to read (read_projectfile) or update (write_projectfile).',
  params: { project: PROJECT },
  async handler(args, ctx) {
    const project = await resolveProject(ctx.vault, args.project);
    const files = await listProjectFiles(ctx.vault, project);
    const head = `Files of project ${project.name} (${ctx.vault.rel(project.abs)}/): ${files.length}`;
    return files.length === 0 ? `${head}\n(the project folder has no files yet)` : [head, ...files].join('\n');
  },
});

export const readProjectfile = defineTool({
  name: 'read_projectfile',
  description:
    'Reads a file of an existing project: the whole file, or with from/to an inclusive line range (clamped to the file). ' +
    'The result starts with `<path> (lines A-B of N)`, then each line as `number<TAB>text`; line numbers count over the whole file. ' +
    '`path` is relative to the project folder, as list_projectfiles shows it.',
  params: {
    project: PROJECT,
    path: { type: 'string', required: true, nonEmpty: true, description: 'File path relative to the project folder, e.g. "notes.md" or "docs/decisions.md".' },
    from: FROM,
    to: TO,
  },
  async handler(args, ctx) {
    const project = await resolveProject(ctx.vault, args.project);
    const { abs } = await resolveInside(ctx.vault.fs, project.abs, args.path, `the project folder "${project.name}"`);
    const text = await readTextFile(ctx.vault, abs);
    if (text === undefined) {
      throw new ToolError(`project ${project.name} has no file ${JSON.stringify(args.path)}; list_projectfiles shows its files.`);
    }
    rememberSeen(ctx, abs, text);
    return formatRead(ctx.vault.rel(abs), splitLines(text), args, { maxChars: resultBudget(ctx) });
  },
});

export const writeProjectfile = defineTool({
  name: 'write_projectfile',
  description:
    'Writes a file of an existing project folder (creating the file and its folders when missing). Use it after write_summary to keep project knowledge files up to date. ' +
    'Modes: no edit arguments = append `content` at the end; `replace_file: true` = the whole file becomes `content`; ' +
    '`from` and `to` = replace that inclusive line range with `content` (empty content deletes the lines); `insert: n` = insert `content` before line n (n = line count + 1 appends). ' +
    'Read the file first (read_projectfile) so line numbers are right. Refused: replace_file together with from/to/insert, insert together with from/to, only one of from/to, a range outside the file, a missing project, a path outside the project. ' +
    'Every change is recorded and shown to the user.',
  params: {
    project: PROJECT,
    path: { type: 'string', required: true, nonEmpty: true, description: 'File path relative to the project folder, e.g. "notes.md".' },
    content: { type: 'string', required: true, description: 'The text to append, insert, or replace with.' },
    replace_file: { type: 'boolean', description: 'true: replace the whole file with content.' },
    from: { type: 'integer', description: 'First line of the range to replace (1-based, inclusive); needs `to`.' },
    to: { type: 'integer', description: 'Last line of the range to replace (inclusive); needs `from`.' },
    insert: { type: 'integer', description: 'Insert content before this line (1-based); line count + 1 appends.' },
  },
  async handler(args, ctx) {
    // Every refusal is decided before anything is read or written.
    const replaceFile = args.replace_file === true;
    const hasRange = args.from !== undefined || args.to !== undefined;
    if (replaceFile && (hasRange || args.insert !== undefined)) {
      throw new ToolError('replace_file cannot be combined with from/to or insert: use replace_file alone to rewrite the whole file, or from/to (or insert) without it.');
    }
    if (args.insert !== undefined && hasRange) {
      throw new ToolError('insert cannot be combined with from/to: use insert to add lines, or from and to to replace lines.');
    }
    if (hasRange && (args.from === undefined || args.to === undefined)) {
      throw new ToolError('give both from and to (an inclusive line range) to replace lines; to replace one line, set both to its number.');
    }
    const project = await resolveProject(ctx.vault, args.project);
    const within = `the project folder "${project.name}"`;
    const { abs, segments } = await resolveInside(ctx.vault.fs, project.abs, args.path, within);
    if (segments.some((s) => s.startsWith('.'))) {
      throw new ToolError(`hidden files and folders (names starting with ".") are not written; choose another path in ${within}.`);
    }
    // A folder or a binary file is refused before anything is written.
    await readTextFile(ctx.vault, abs);
    const rel = ctx.vault.rel(abs);
    const byLines = replaceFile || hasRange || args.insert !== undefined;
    let done = '';
    // Applied to the file as it is at the moment of writing, again if someone writes it meanwhile.
    const edit = (old: string | undefined): string | typeof UNCHANGED => {
      if (byLines) requireUnchangedSinceSeen(ctx, abs, old, 'read_projectfile');
      const result = projectEdit(args, old, rel);
      done = result.done;
      return result.next === old ? UNCHANGED : result.next;
    };
    const result = await ctx.audit.update(abs, edit);
    const next = result.after ?? '';
    if (byLines || result.before === undefined || lastSeen(ctx, abs) === result.before) rememberSeen(ctx, abs, next);
    if (!result.changed) return `${rel} already has this content; nothing changed.`;
    return `${done}; it now has ${splitLines(next).length} lines.`;
  },
});

interface ProjectEditArgs {
  content: string;
  replace_file?: boolean;
  from?: number;
  to?: number;
  insert?: number;
}

/** One write_projectfile edit applied to `old` (undefined: no file yet); a range outside it is a ToolError. */
function projectEdit(args: ProjectEditArgs, old: string | undefined, rel: string): { next: string; done: string } {
  const eol = old !== undefined ? eolOf(old) : '\n';
  const lines = splitLines(old ?? '');
  const added = splitLines(args.content);
  if (args.replace_file === true) {
    const next = args.content === '' || args.content.endsWith('\n') ? args.content : args.content + eol;
    return { next, done: `${old === undefined ? 'Created' : 'Replaced'} ${rel} (${added.length} lines)` };
  }
  if (args.from !== undefined && args.to !== undefined) {
    const { from, to } = args;
    if (old === undefined) throw new ToolError(`${rel} does not exist, so it has no lines ${from}-${to}; write it without from/to to create it.`);
    if (from < 1 || to < from || to > lines.length) {
      throw new ToolError(`the range ${from}-${to} is outside ${rel}, which has ${lines.length} lines (valid: 1 <= from <= to <= ${lines.length}).`);
    }
    const next = joinLines([...lines.slice(0, from - 1), ...added, ...lines.slice(to)], eol);
    return { next, done: `Replaced lines ${from}-${to} of ${rel} with ${added.length} lines` };
  }
  if (args.insert !== undefined) {
    const at = args.insert;
    if (at < 1 || at > lines.length + 1) {
      throw new ToolError(`cannot insert before line ${at}: ${rel} has ${lines.length} lines (valid: 1 to ${lines.length + 1}, where ${lines.length + 1} appends).`);
    }
    const next = joinLines([...lines.slice(0, at - 1), ...added, ...lines.slice(at - 1)], eol);
    return { next, done: `Inserted ${added.length} lines before line ${at} of ${rel}` };
  }
  const base = old ?? '';
  const sep = base !== '' && !base.endsWith('\n') ? eol : '';
  const tail = args.content === '' || args.content.endsWith('\n') ? '' : eol;
  const next = base + sep + args.content + tail;
  return { next, done: old === undefined ? `Created ${rel} (${added.length} lines)` : `Appended ${added.length} lines to ${rel}` };
}

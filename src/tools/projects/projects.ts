import path from 'node:path';
import { eolOf, joinLines, splitLines } from '../../vault/format/lines.js';
import { ToolError } from '../errors.js';
import { defineTool } from '../define/define.js';
import { formatRead, resultBudget } from '../define/format.js';
import { resolveInside } from '../../vault/files/confine.js';
import { filesOfProject, findProject, resolveProject } from './project-files.js';
import { readTextFile } from '../define/read.js';
import { lastSeen, rememberSeen, requireReadAndUnchanged, requireUnchangedSinceSeen } from '../define/last-seen.js';
import { inertMarkdown, inertNotice } from '../../vault/format/inert.js';
import { writableProject, refuseExecutableChange, refuseInstructionsFile } from './project-limits.js';
import { UNCHANGED } from '../../vault/files/update.js';
import { assertFileRewritable } from '../../vault/files/regular-file.js';

/** Project tools: the meeting's projects, and the files of any existing project folder. */

// Short descriptions: they go out with every request (see meeting.ts).
const FROM = { type: 'integer' } as const;
const TO = { type: 'integer' } as const;
const PROJECT = { type: 'string', required: true, nonEmpty: true } as const;

export const listProjects = defineTool({
  name: 'list_projects',
  description:
    "This meeting's projects that have folders; use first.",
  params: {},
  async handler(_args, ctx) {
    const folders = await ctx.caches.projectFolders.list();
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

export const listProjectFiles = defineTool({
  name: 'list_projectfiles',
  description:
    'The files of a project (paths for read_projectfile).',
  params: { project: PROJECT },
  async handler(args, ctx) {
    const project = await resolveProject(ctx.vault, args.project);
    const files = await filesOfProject(ctx.vault, project);
    const head = `Files of project ${project.name} (${ctx.vault.rel(project.abs)}/): ${files.length}`;
    return files.length === 0 ? `${head}\n(the project folder has no files yet)` : [head, ...files].join('\n');
  },
});

export const readProjectFile = defineTool({
  name: 'read_projectfile',
  description:
    'A project file, whole or lines from-to.',
  params: {
    project: PROJECT,
    path: { type: 'string', required: true, nonEmpty: true },
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

export const writeProjectFile = defineTool({
  name: 'write_projectfile',
  description:
    'After write_summary, record new project knowledge; read first. Appends content, or replace_file: whole file, from+to: replace those lines, insert: n: before line n.',
  params: {
    project: PROJECT,
    path: { type: 'string', required: true, nonEmpty: true },
    content: { type: 'string', required: true },
    replace_file: { type: 'boolean' },
    from: { type: 'integer' },
    to: { type: 'integer' },
    insert: { type: 'integer' },
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
    // Only the meeting's own projects, unless Agent.WritableProjects is "all" (docs/design.md §4).
    const project = await writableProject(ctx, await resolveProject(ctx.vault, args.project));
    const within = `the project folder "${project.name}"`;
    const { abs, segments } = await resolveInside(ctx.vault.fs, project.abs, args.path, within);
    // The path as given and as it resolves: a link inside the project may lead into its .git.
    if ([...segments, ...path.relative(project.abs, abs).split(path.sep)].some((s) => s.startsWith('.'))) {
      throw new ToolError(`hidden files and folders (names starting with ".") are not written; choose another path in ${within}.`);
    }
    await refuseInstructionsFile(ctx, project, abs);
    // A folder or a binary file is refused before anything is written.
    const found = await readTextFile(ctx.vault, abs);
    const rel = ctx.vault.rel(abs);
    const content = inertMarkdown(args.content);
    const edits = { ...args, content };
    const byLines = hasRange || args.insert !== undefined;
    // A resumed run does not append again what its interrupted attempt appended (docs/design.md §3 step 4).
    if (!replaceFile && !byLines && ctx.audit.alreadyAppended(abs, content)) {
      return `${rel} already has these lines: this meeting's interrupted earlier run appended them. Not appended again.`;
    }
    // The seed: replace_file rewrites the whole file, read or not; the previous version goes to .trash/ first.
    if (replaceFile && found !== undefined) {
      requireUnchangedSinceSeen(ctx, abs, found, 'read_projectfile');
      if (projectEdit(edits, found, rel).next !== found) {
        // A file that is never rewritten (not UTF-8, read-only) gets no "previous version" either.
        await assertFileRewritable(ctx.vault.fs, abs, found, rel);
        await ctx.vault.keepInTrash(abs, found);
      }
    }
    let done = '';
    // Applied to the file as it is at the moment of writing, again if someone writes it meanwhile.
    const edit = (old: string | undefined): string | typeof UNCHANGED => {
      if (byLines) requireReadAndUnchanged(ctx, abs, old, 'read_projectfile');
      // Changed since the copy to .trash/: refused when the agent read an older version; else
      // that version goes to .trash/ as well once the write is done.
      if (replaceFile && old !== found) requireUnchangedSinceSeen(ctx, abs, old, 'read_projectfile');
      const result = projectEdit(edits, old, rel);
      refuseExecutableChange(old, result.next);
      done = result.done;
      return result.next === old ? UNCHANGED : result.next;
    };
    const result = await ctx.audit.update(abs, edit);
    if (replaceFile && result.changed && result.before !== undefined && result.before !== found) await ctx.vault.keepInTrash(abs, result.before);
    const next = result.after ?? '';
    if (byLines || replaceFile || result.before === undefined || lastSeen(ctx, abs) === result.before) rememberSeen(ctx, abs, next);
    if (!result.changed) return `${rel} already has this content; nothing changed.`;
    const kept = replaceFile && result.before !== undefined ? ' (the previous version is in .trash/)' : '';
    return `${done}${kept}; it now has ${splitLines(next).length} lines.${inertNotice(args.content, content)}`;
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

import path from 'node:path';
import { splitLines } from '../../vault/format/lines.js';
import { linkTarget } from '../../vault/format/links.js';
import { Vault } from '../../vault/files/vault.js';
import { defineTool } from '../define/define.js';
import { isSyncToolFile } from '../../vault/files/sync-files.js';
import { ToolError } from '../errors.js';
import { formatRead, resultBudget } from '../define/format.js';
import { type PastSummary, intersects, sameProject } from '../cache/past-index.js';
import { checkRelativePath, realLocation, sameFile } from '../../vault/files/confine.js';
import { readTextFile } from '../define/read.js';
import type { ToolBinding } from '../binding/types.js';

/**
 * Past meetings of the same projects: summary notes in `Folders.Summaries` whose `projects`
 * intersect the current meeting's. Read-only history: no tool writes a past summary, and the
 * current meeting's own summary is never listed or read here (write_summary owns it).
 */

/**
 * The projects a request may cover: the requested ones, each of which must be assigned to the
 * meeting (matched without regard to case, the meeting's spelling kept), else all of them.
 * With `Agent.WritableProjects: "all"` a requested project need not be the meeting's
 * (docs/design.md §4); without any request the scope is still the meeting's own.
 */
export function scopeProjects(ctx: ToolBinding, requested: string[] | undefined): string[] {
  const own = ctx.meeting.projects;
  if (requested === undefined || requested.length === 0) return [...own];
  const out: string[] = [];
  for (const name of requested) {
    const match = own.find((p) => p === name.trim()) ?? own.find((p) => sameProject(p, name.trim()));
    if (match === undefined && ctx.settings.Agent.WritableProjects === 'all') {
      if (name.trim() !== '' && !out.includes(name.trim())) out.push(name.trim());
      continue;
    }
    if (match === undefined) {
      throw new ToolError(
        `project ${JSON.stringify(name)} is not assigned to this meeting, so its history is not available here. ` +
          (own.length > 0 ? `This meeting's projects: ${own.join(', ')}.` : 'This meeting has no projects.'),
      );
    }
    if (!out.includes(match)) out.push(match);
  }
  return out;
}

/**
 * Past summaries whose projects intersect `scope`: failure reports and the current summary
 * excluded; sorted by path, or newest first.
 */
export async function pastSummariesFor(ctx: ToolBinding, scope: readonly string[], order: 'path' | 'newest' = 'path'): Promise<PastSummary[]> {
  if (scope.length === 0) return [];
  const all = order === 'newest' ? await ctx.pastSummaries.newestFirst() : await ctx.pastSummaries.all();
  return all.filter(inScope(ctx, scope));
}

/** Whether `pastSummariesFor` would list any, found without the whole index (the tool offer). */
export async function hasPastSummaries(ctx: ToolBinding, scope: readonly string[]): Promise<boolean> {
  return scope.length > 0 && ctx.pastSummaries.some(inScope(ctx, scope));
}

function inScope(ctx: ToolBinding, scope: readonly string[]): (s: PastSummary) => boolean {
  // Once per call, not per summary: ten thousand of them are filtered on every call.
  const current = path.resolve(ctx.meeting.summaryPath);
  const currentLower = current.toLowerCase();
  const keys = new Set(scope.map((p) => p.toLowerCase()));
  return (s) => s.status !== 'failed' && s.projectKeys.some((k) => keys.has(k)) && s.path !== current && s.path.toLowerCase() !== currentLower;
}

export const listPastProjectMeetings = defineTool({
  name: 'list_past_project_meetings',
  description:
    "Summaries of past meetings of this meeting's projects, newest first (read-only history).",
  params: {
    projects: { type: 'string[]' },
    page: { type: 'integer' },
    page_size: { type: 'integer' },
  },
  async handler(args, ctx) {
    const scope = scopeProjects(ctx, args.projects);
    if (scope.length === 0) return 'This meeting has no projects, so there are no past meetings of its projects.';
    const found = await pastSummariesFor(ctx, scope, 'newest');
    const notes: string[] = [];
    let size = args.page_size ?? 20;
    if (size > 100) notes.push(`page_size ${size} is above the maximum; using 100.`);
    size = Math.min(100, Math.max(1, size));
    const pages = Math.max(1, Math.ceil(found.length / size));
    const page = Math.max(1, args.page ?? 1);
    const head = `Past meetings of ${scope.join(', ')}: page ${page} of ${pages} (${found.length} summaries, newest first)`;
    if (found.length === 0) return `${head}\n(no past meeting summaries of these projects yet)`;
    if (page > pages) return `${head}\n(page ${page} is past the last page; pages run from 1 to ${pages})`;
    const rows = found
      .slice((page - 1) * size, page * size)
      .map((s) => `${s.rel} | ${s.title ?? '(no title)'} | ${s.startTime ?? '(no start_time)'} | ${s.projects.join(', ')}`);
    return [head, ...notes, ...rows].join('\n');
  },
});

/** The summary a model-supplied path or `[[link]]` denotes, before the refusals. */
async function locateSummary(ctx: ToolBinding, value: string): Promise<string> {
  const raw = value.trim();
  if (raw.includes('\0') || raw.includes('\\')) checkRelativePath(raw, 'the vault');
  const target = linkTarget(raw);
  if (target === undefined) throw new ToolError(`${JSON.stringify(value)} is not a path or a [[link]] to a summary note.`);
  const segments = checkRelativePath(target, 'the vault');
  const rel = segments.join('/');
  const direct = ctx.vault.abs(rel);
  if (await ctx.vault.exists(direct)) return direct;
  const inSummaries = path.join(ctx.vault.layout.folders.Summaries, ...segments);
  if (await ctx.vault.exists(inSummaries)) return inSummaries;
  // A bare note name, as a [[link]] gives it: look it up among the summaries (exact case first).
  if (segments.length === 1) {
    const all = await ctx.pastSummaries.all();
    const exact = all.filter((s) => path.basename(s.path) === rel);
    const folded = exact.length > 0 ? exact : all.filter((s) => path.basename(s.path).toLowerCase() === rel.toLowerCase());
    if (folded.length === 1) return folded[0]!.path;
    if (folded.length > 1) throw new ToolError(`${JSON.stringify(value)} could be any of ${folded.map((s) => s.rel).join(', ')}; give the full path.`);
  }
  throw new ToolError(`there is no summary note ${JSON.stringify(value)}; list_past_project_meetings shows the paths.`);
}

export const readPastProjectMeetingSummary = defineTool({
  name: 'read_past_project_meeting_summary',
  description:
    'A past summary (read-only) by its listed path; from/to for lines.',
  params: {
    path: { type: 'string', required: true, nonEmpty: true },
    from: { type: 'integer' },
    to: { type: 'integer' },
  },
  async handler(args, ctx) {
    const located = await locateSummary(ctx, args.path);
    const folder = ctx.vault.layout.folders.Summaries;
    const folderRel = `${ctx.vault.rel(folder)}/`;
    const [real, realFolder] = await Promise.all([realLocation(ctx.vault.fs, located), realLocation(ctx.vault.fs, folder)]);
    if (!Vault.isInside(realFolder, real) || real === realFolder) {
      throw new ToolError(`${JSON.stringify(args.path)} is not a summary note in ${folderRel} (symbolic links are followed); only past meeting summaries can be read with this tool.`);
    }
    // The file under its real name (case included), so every check below sees one spelling.
    const abs = path.join(folder, path.relative(realFolder, real));
    if (ctx.vault.kindOf(abs) !== 'summary' || isSyncToolFile(abs)) {
      throw new ToolError(`${JSON.stringify(args.path)} is not a summary note in ${folderRel}; only past meeting summaries can be read with this tool.`);
    }
    if ((await sameFile(ctx.vault.fs, abs, ctx.meeting.summaryPath)) || (await sameFile(ctx.vault.fs, located, ctx.meeting.summaryPath))) {
      throw new ToolError("that is this meeting's own summary, not a past one; write it with write_summary.");
    }
    const entry = await ctx.pastSummaries.get(abs);
    if (entry === undefined) throw new ToolError(`${ctx.vault.rel(abs)} is not a readable summary note (its frontmatter does not parse).`);
    if (ctx.settings.Agent.WritableProjects !== 'all' && !intersects(entry.projects, ctx.meeting.projects)) {
      throw new ToolError(
        `${entry.rel} belongs to projects ${entry.projects.join(', ') || '(none)'}, none of which is assigned to this meeting (${ctx.meeting.projects.join(', ') || 'no projects'}); refused.`,
      );
    }
    const text = await readTextFile(ctx.vault, abs);
    if (text === undefined) throw new ToolError(`there is no summary note ${JSON.stringify(args.path)}.`);
    return formatRead(entry.rel, splitLines(text), args, { maxChars: resultBudget(ctx) });
  },
});

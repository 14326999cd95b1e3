import path from 'node:path';
import { defineTool } from './define.js';
import { ToolError } from './errors.js';
import { scopeProjects, pastSummariesFor } from './past-meetings.js';
import { looksBinary } from './paths.js';
import { findProject, listProjectFiles, listProjectFolders } from './project-files.js';
import { translateDotNetRegex, type TranslatedRegex } from './regex.js';
import { type SearchFile, SearchTimeoutError, matchLines } from './search-worker.js';
import type { ToolContext } from './types.js';

/**
 * `search`: regular expressions over the scoped projects' files and the past summaries of
 * those projects. Files are read one at a time and streamed to the matching worker, binary
 * and oversized files skipped, and the whole search is bounded by `Agent.SearchTimeoutSeconds`.
 */

/** Larger files are skipped: a project's knowledge files are text of reasonable size. */
const MAX_FILE_BYTES = 8 * 1024 * 1024;

interface Skipped {
  large: number;
}

async function* scopedFiles(ctx: ToolContext, scope: string[], skipped: Skipped, counts: { files: number; summaries: number }): AsyncGenerator<SearchFile> {
  const folders = await listProjectFolders(ctx.vault);
  const seen = new Set<string>();
  for (const name of scope) {
    const project = findProject(folders, name);
    if (!project || seen.has(project.abs)) continue;
    seen.add(project.abs);
    for (const rel of await listProjectFiles(ctx.vault, project)) {
      const file = await readSearchable(ctx, path.join(project.abs, ...rel.split('/')), skipped);
      if (file === undefined) continue;
      counts.files++;
      yield file;
    }
  }
  for (const summary of await pastSummariesFor(ctx, scope)) {
    const file = await readSearchable(ctx, summary.path, skipped);
    if (file === undefined) continue;
    counts.summaries++;
    yield file;
  }
}

async function readSearchable(ctx: ToolContext, abs: string, skipped: Skipped): Promise<SearchFile | undefined> {
  try {
    const stats = await ctx.vault.fs.stat(abs);
    if (!stats.isFile()) return undefined;
    if (stats.size > MAX_FILE_BYTES) {
      skipped.large++;
      return undefined;
    }
    const bytes = await ctx.vault.fs.readFile(abs);
    if (looksBinary(bytes)) return undefined;
    return { id: ctx.vault.rel(abs), text: Buffer.from(bytes).toString('utf8') };
  } catch {
    // A file that vanished or cannot be read while searching is simply not searched.
    return undefined;
  }
}

export const search = defineTool({
  name: 'search',
  description:
    "Searches this meeting's project files and the summaries of past meetings of those projects for lines matching any of the keywords. " +
    'Keywords are .NET-style regular expressions, case-sensitive unless they start with (?i); plain words work as they are. ' +
    "Without `projects` all of this meeting's projects are searched; `projects` narrows the scope (each must be one of this meeting's projects). " +
    'Results are `path:line:text`, line numbers counting over the whole file (usable as from/to with the read tools).',
  params: {
    keywords: { type: 'string[]', required: true, description: 'Regular expressions; a line matches when any of them matches. E.g. ["(?i)release date", "v2\\\\.\\\\d"].' },
    projects: { type: 'string[]', description: "Only these of this meeting's projects." },
  },
  async handler(args, ctx) {
    const keywords = args.keywords.filter((k) => k !== '');
    if (keywords.length === 0) throw new ToolError('give at least one non-empty keyword (a word or a regular expression).');
    const patterns: TranslatedRegex[] = keywords.map((k) => translateDotNetRegex(k));
    const scope = scopeProjects(ctx, args.projects);
    if (scope.length === 0) return 'This meeting has no projects, so there is nothing to search.';
    const timeoutMs = ctx.searchTimeoutMs ?? ctx.settings.Agent.SearchTimeoutSeconds * 1000;
    const maxResults = ctx.searchMaxResults ?? ctx.settings.Agent.SearchMaxResults;
    const skipped: Skipped = { large: 0 };
    const counts = { files: 0, summaries: 0 };
    let result;
    try {
      result = await matchLines(scopedFiles(ctx, scope, skipped, counts), {
        patterns,
        maxResults,
        timeoutMs,
        deadline: Date.now() + timeoutMs,
        signal: ctx.signal,
      });
    } catch (err) {
      if (err instanceof SearchTimeoutError) {
        throw new ToolError(
          `the search ran longer than ${timeoutMs / 1000} s and was stopped (Agent.SearchTimeoutSeconds). ` +
            'A keyword probably backtracks catastrophically (nested repetition such as (a+)+ or (.*)*); use plain words or simpler patterns.',
        );
      }
      throw err;
    }
    const where = `${scope.join(', ')} (${counts.files} project files, ${counts.summaries} past summaries searched)`;
    const notes = skipped.large > 0 ? [`(${skipped.large} files over ${MAX_FILE_BYTES / 1024 / 1024} MB were skipped)`] : [];
    if (result.count === 0) return [`No matches in ${where}.`, ...notes].join('\n');
    const lines = result.matches.map((m) => `${m.file}:${m.line}:${m.text}`);
    const more = result.count - result.matches.length;
    const out = [`${result.count} matching line${result.count === 1 ? '' : 's'} in ${where}:`, ...lines];
    if (more > 0) out.push(`… ${more} more matches not shown (limit ${maxResults}); narrow the keywords or the projects.`);
    return [...out, ...notes].join('\n');
  },
});

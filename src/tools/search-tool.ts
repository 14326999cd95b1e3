import path from 'node:path';
import { defineTool } from './define/define.js';
import { ToolError } from './errors.js';
import { MAX_SEARCH_FILE_BYTES, type Resolved } from './cache/file-cache.js';
import { scopeProjects, pastSummariesFor } from './projects/past-meetings.js';
import { filesOfProject, findProject, listProjectFolders } from './projects/project-files.js';
import { translateDotNetRegex } from './search/dotnet-regex.js';
import type { PlanCounts } from './search/search-plans.js';
import { type SearchPattern, SearchTimeoutError, searchPattern } from './search/worker-pool.js';
import type { ToolBinding } from './binding/types.js';

/**
 * `search`: regular expressions over the scoped projects' files and the past summaries of
 * those projects. The files' texts stay in the search worker between calls (bounded by
 * `Agent.SearchCacheMegabytes`), so a warm search reads nothing from disk that has not
 * changed; binary and oversized files are skipped, and the whole search is bounded by
 * `Agent.SearchTimeoutSeconds`.
 */

/** The absolute paths in scope, in result order: each project's files (sorted), then the past summaries. */
async function scopedPaths(ctx: ToolBinding, scope: string[], summaries: Set<string>): Promise<string[]> {
  const folders = await listProjectFolders(ctx.vault);
  const seen = new Set<string>();
  const out: string[] = [];
  for (const name of scope) {
    const project = findProject(folders, name);
    if (!project || seen.has(project.abs)) continue;
    seen.add(project.abs);
    for (const rel of await filesOfProject(ctx.vault, project)) out.push(path.join(project.abs, ...rel.split('/')));
  }
  for (const summary of await pastSummariesFor(ctx, scope)) {
    summaries.add(summary.path);
    out.push(summary.path);
  }
  return out;
}

/**
 * Warm searches of a scope the daemon's watcher covers reuse the previous search's plan
 * (search-plans.ts): no listing, no per-file work on this thread.
 */
type Counts = PlanCounts;

export const search = defineTool({
  name: 'search',
  description:
    'Find lines in project files and past summaries: keywords are regexes, (?i) ignores case. Gives path:line:text.',
  params: {
    keywords: { type: 'string[]', required: true },
    projects: { type: 'string[]' },
  },
  async handler(args, ctx) {
    const keywords = args.keywords.filter((k) => k !== '');
    if (keywords.length === 0) throw new ToolError('give at least one non-empty keyword (a word or a regular expression).');
    const patterns: SearchPattern[] = keywords.map((k) => searchPattern(k, translateDotNetRegex(k)));
    const scope = scopeProjects(ctx, args.projects);
    if (scope.length === 0) return 'This meeting has no projects, so there is nothing to search.';
    const timeoutMs = ctx.searchTimeoutMs ?? ctx.settings.Agent.SearchTimeoutSeconds * 1000;
    const maxResults = ctx.searchMaxResults ?? ctx.settings.Agent.SearchMaxResults;
    const options = { patterns, maxResults, timeoutMs, deadline: Date.now() + timeoutMs, signal: ctx.signal };
    const { watch: trust, plans, search: pool } = ctx.caches;
    const planKey = JSON.stringify([scope, ctx.meeting.summaryPath]);
    const known = plans.get(planKey);
    let counts: Counts = { files: 0, summaries: 0, large: 0 };
    let result;
    try {
      if (known && trust.now() - known.madeAt <= trust.maxTrustMs) {
        result = await pool.searchPlanned(known.plan, options);
        counts = known.counts;
      }
      if (!result) {
        const madeAt = trust.now();
        const invalidations = trust.invalidations;
        const summaries = new Set<string>();
        const onFile = (abs: string, resolved: Resolved): void => {
          if ('handle' in resolved) counts[summaries.has(abs) ? 'summaries' : 'files']++;
          else if (resolved.skipped === 'large') counts.large++;
        };
        const full = await pool.searchFiles(await scopedPaths(ctx, scope, summaries), {
          ...options,
          cacheBytes: ctx.settings.Agent.SearchCacheMegabytes * 1024 * 1024,
          onFile,
        });
        result = full;
        // Not when a file event came in meanwhile: the plan might predate it.
        if (full.plan && plans.usable && trust.invalidations === invalidations) plans.set(planKey, { plan: full.plan, counts, madeAt });
      }
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
    const notes = counts.large > 0 ? [`(${counts.large} files over ${MAX_SEARCH_FILE_BYTES / 1024 / 1024} MB were skipped)`] : [];
    if (result.count === 0) return [`No matches in ${where}.`, ...notes].join('\n');
    const lines = result.matches.map((m) => `${m.file}:${m.line}:${m.text}`);
    const more = result.count - result.matches.length;
    const out = [`${result.count} matching line${result.count === 1 ? '' : 's'} in ${where}:`, ...lines];
    if (more > 0) out.push(`… ${more} more matches not shown (limit ${maxResults}); narrow the keywords or the projects.`);
    return [...out, ...notes].join('\n');
  },
});

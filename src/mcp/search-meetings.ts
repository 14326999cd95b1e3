import { z } from 'zod';
import { ToolError } from '../tools/errors.js';
import { translateDotNetRegex } from '../tools/search/dotnet-regex.js';
import { SearchTimeoutError, searchPattern } from '../tools/search/worker-pool.js';
import { inRange, newestFirst, parseRange } from './filters.js';
import type { MeetingIndex } from './meeting-index.js';
import type { Scope } from './tool.js';
import { defineMcpTool } from './tool.js';

/**
 * `search_meetings` (docs/design.md §10): the agent's search engine (tools/search/worker-pool.ts:
 * the same .NET-style patterns, worker threads stopped at `Agent.SearchTimeoutSeconds`, the
 * same text cache) over the summaries and transcripts of the meetings asked for, newest
 * meetings first.
 */

interface Scoped {
  abs: string;
  startMs: number;
  rel: string;
  /** Within one meeting time, the summary before the transcript. */
  rank: number;
}

interface ScopeArgs {
  projects?: string[] | undefined;
  from?: string | undefined;
  to?: string | undefined;
  in?: 'summaries' | 'transcripts' | 'all' | undefined;
}

/** The files to search, in result order. Failure reports are no summaries of anything and are left out. */
async function scopedFiles(index: MeetingIndex, args: ScopeArgs): Promise<Scope> {
  const range = parseRange(args);
  const keys = new Set((args.projects ?? []).map((p) => p.trim().toLowerCase()).filter((p) => p !== ''));
  const wanted = (projects: readonly string[]): boolean => keys.size === 0 || projects.some((p) => keys.has(p.toLowerCase()));
  const where = args.in ?? 'summaries';
  const out: Scoped[] = [];
  let summaries = 0;
  let transcripts = 0;
  if (where !== 'transcripts') {
    for (const s of await index.summaries.all()) {
      if (s.status === 'failed' || !inRange(range, s.startTime, s.startMs) || !wanted(s.projects)) continue;
      out.push({ abs: s.abs, startMs: s.startMs, rel: s.rel, rank: 0 });
      summaries++;
    }
  }
  if (where !== 'summaries') {
    const known = new Set(await index.transcripts.list());
    for (const m of await index.meetings.all()) {
      if (!inRange(range, m.startTime, m.startMs) || !wanted(m.projects)) continue;
      const transcript = index.transcriptPathOf(m, known);
      if (transcript === undefined || !known.has(transcript)) continue;
      out.push({ abs: transcript, startMs: m.startMs, rel: index.vault.rel(transcript), rank: 1 });
      transcripts++;
    }
  }
  out.sort(resultOrder);
  return { files: out.map((f) => f.abs), summaries, transcripts };
}

/** Newest meetings first (no start_time last); a meeting's summary before its transcript; then by path. */
function resultOrder(a: Scoped, b: Scoped): number {
  const am = Number.isNaN(a.startMs) ? -Infinity : a.startMs;
  const bm = Number.isNaN(b.startMs) ? -Infinity : b.startMs;
  if (am !== bm) return am === -Infinity ? 1 : bm === -Infinity ? -1 : bm - am;
  return a.rank - b.rank || newestFirst(a, b);
}

export const searchMeetings = defineMcpTool({
  name: 'search_meetings',
  description: 'Find lines in meeting summaries and/or transcripts, newest meetings first. Gives path:line:text.',
  shape: {
    query: z.string().min(1).describe('A regular expression (.NET syntax); a leading (?i) ignores case.'),
    projects: z.array(z.string()).optional().describe('Only meetings of any of these projects.'),
    from: z.string().optional().describe('Earliest meeting start: ISO date (inclusive) or date-time.'),
    to: z.string().optional().describe('Latest meeting start: ISO date (inclusive) or date-time.'),
    in: z.enum(['summaries', 'transcripts', 'all']).optional().describe('What to search: summaries (default), transcripts, or all.'),
    limit: z.number().int().min(1).max(2000).optional().describe('At most this many lines (default 100).'),
  },
  async handler(args, { index, settings, caches, plans, onRead }, signal) {
    const pattern = searchPattern(args.query, translateDotNetRegex(args.query));
    const limit = args.limit ?? 100;
    const timeoutMs = settings.Agent.SearchTimeoutSeconds * 1000;
    const options = { patterns: [pattern], maxResults: limit, timeoutMs, deadline: Date.now() + timeoutMs, signal };
    const key = JSON.stringify([args.projects ?? [], args.from ?? '', args.to ?? '', args.in ?? 'summaries']);
    const trust = caches.watch;
    let result;
    let scope: Scope;
    try {
      const known = plans.get(key);
      result = known ? await caches.search.searchPlanned(known.plan, options) : undefined;
      if (known && result) scope = known.counts;
      else {
        const madeAt = trust.now();
        const invalidations = trust.invalidations;
        scope = await scopedFiles(index, args);
        const full = await caches.search.searchFiles(scope.files, { ...options, cacheBytes: settings.Agent.SearchCacheMegabytes * 1024 * 1024 });
        if (full.plan && plans.usable && trust.invalidations === invalidations) plans.set(key, { plan: full.plan, counts: scope, madeAt });
        result = full;
      }
    } catch (err) {
      if (err instanceof SearchTimeoutError) {
        throw new ToolError(
          `the search ran longer than ${timeoutMs / 1000} s and was stopped (Agent.SearchTimeoutSeconds). ` +
            'The pattern probably backtracks catastrophically (nested repetition such as (a+)+); use plain words or a simpler pattern.',
        );
      }
      throw err;
    }
    const { summaries, transcripts } = scope;
    const where = `${summaries} summaries and ${transcripts} transcripts`;
    if (result.count === 0) return `No matches in ${where}.`;
    const lines = result.matches.map((m) => `${m.file}:${m.line}:${m.text}`);
    for (const file of new Set(result.matches.map((m) => m.file))) onRead?.(file);
    const more = result.count - result.matches.length;
    const out = [`${result.count} matching line${result.count === 1 ? '' : 's'} in ${where}, newest meetings first:`, ...lines];
    if (more > 0) out.push(`… ${more} more matches not shown (limit ${limit}); narrow the query, the dates or the projects.`);
    return out.join('\n');
  },
});

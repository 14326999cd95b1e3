import { parseRange } from '../mcp/filters.js';
import type { AskFilters } from './instructions.js';

/**
 * A question's scope as a person gives it (`--project`, `--from`, `--to`, or the API's
 * `projects`, `from`, `to`): checked as the tools check their own bounds (mcp/filters.ts), so
 * a day the month does not have or a `from` after the `to` is refused before anything runs.
 */
export function askFilters(given: { projects?: unknown; from?: unknown; to?: unknown }): AskFilters {
  const projects = given.projects ?? [];
  if (!Array.isArray(projects) || projects.some((p) => typeof p !== 'string' || p.trim() === '')) {
    throw new Error('projects must be a list of project names');
  }
  for (const [name, value] of [['from', given.from], ['to', given.to]] as const) {
    if (value !== undefined && typeof value !== 'string') throw new Error(`${name} must be an ISO date such as 2026-11-30`);
  }
  const from = given.from as string | undefined;
  const to = given.to as string | undefined;
  parseRange({ from, to });
  return { projects: (projects as string[]).map((p) => p.trim()), ...(from ? { from } : {}), ...(to ? { to } : {}) };
}

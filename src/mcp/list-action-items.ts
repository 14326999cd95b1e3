import { z } from 'zod';
import { hasName, hasProject, newestFirst, parseBound } from './filters.js';
import { defineMcpTool, jsonList } from './tool.js';

/** Items answered at most: a model asking for every open item of years of meetings gets the newest. */
const MAX_ITEMS = 500;

/**
 * `list_action_items` (docs/design.md §10): the task lines of the summaries (any
 * `Agent.TaskFormat`, vault/notes/action-items.ts), newest meetings first, each with its owner, due
 * date, meeting and summary path.
 */
export const listActionItems = defineMcpTool({
  name: 'list_action_items',
  description: "Action items from the meetings' summaries, newest meetings first, with owner, due date, meeting title, date and summary path.",
  shape: {
    status: z.enum(['open', 'done', 'all']).optional().describe('open (default), done, or all.'),
    owner: z.string().optional().describe("Only this person's items (case-insensitive; a first name matches)."),
    project: z.string().optional().describe('Only items of meetings of this project (case-insensitive).'),
    due_before: z.string().optional().describe('Only items due on or before this ISO date (2026-12-31).'),
  },
  async handler(args, { index, onRead }) {
    const status = args.status ?? 'open';
    const bound = parseBound(args.due_before, 'due_before');
    const dueBy = bound === undefined ? undefined : 'date' in bound ? bound.date : new Date(bound.ms).toISOString().slice(0, 10);
    const summaries = (await index.summaries.all()).filter((s) => s.status !== 'failed' && hasProject(s.projects, args.project)).sort(newestFirst);
    const items = summaries.flatMap((s) =>
      s.actionItems
        .filter(
          (item) =>
            (status === 'all' || item.done === (status === 'done')) &&
            (args.owner === undefined || (item.owner !== undefined && hasName([item.owner], args.owner))) &&
            (dueBy === undefined || (item.due !== undefined && item.due <= dueBy)),
        )
        .map((item) => ({
          status: item.done ? 'done' : 'open',
          owner: item.owner ?? null,
          due: item.due ?? null,
          text: item.text,
          meeting: s.title ?? null,
          date: s.startTime ?? null,
          summary: s.rel,
          line: item.line,
        })),
    );
    const shown = items.slice(0, MAX_ITEMS);
    for (const summary of new Set(shown.map((item) => item.summary))) onRead?.(summary);
    return jsonList({ total: items.length, shown: Math.min(items.length, MAX_ITEMS) }, 'items', shown);
  },
});

import { z } from 'zod';
import { hasName, hasProject, inRange, newestFirst, parseRange } from './filters.js';
import { defineMcpTool, jsonList } from './tool.js';

/** `list_meetings` (docs/design.md §10): the meeting notes, newest first, with their summary's state. */
export const listMeetings = defineMcpTool({
  name: 'list_meetings',
  description:
    'Meetings newest first: start_time, title, projects, attendees, summary status and the vault paths of the meeting note and its summary.',
  shape: {
    from: z.string().optional().describe('Earliest start: ISO date (2026-11-01, inclusive) or date-time.'),
    to: z.string().optional().describe('Latest start: ISO date (2026-11-30, inclusive) or date-time.'),
    project: z.string().optional().describe('Only meetings of this project (case-insensitive).'),
    attendee: z.string().optional().describe('Only meetings this person attended (case-insensitive; a first name matches).'),
    limit: z.number().int().min(1).max(500).optional().describe('At most this many meetings (default 50, at most 500).'),
  },
  async handler(args, { index, vault }) {
    const range = parseRange(args);
    const limit = args.limit ?? 50;
    const all = await index.meetings.all();
    const found = all
      .filter((m) => inRange(range, m.startTime, m.startMs) && hasProject(m.projects, args.project) && hasName(m.attendees, args.attendee))
      .sort(newestFirst);
    const shown = found.slice(0, limit);
    const known = new Set(await index.summaries.list());
    const meetings = await Promise.all(
      shown.map(async (m) => {
        const summaryPath = index.summaryPathOf(m, known);
        const summary = known.has(summaryPath) ? await index.summaries.get(summaryPath) : undefined;
        return {
          start_time: m.startTime ?? null,
          title: m.title ?? null,
          projects: m.projects,
          attendees: m.attendees,
          summary_status: summary ? (summary.status ?? 'unknown') : known.has(summaryPath) ? 'unreadable' : 'none',
          meeting: m.rel,
          summary: known.has(summaryPath) ? vault.rel(summaryPath) : null,
        };
      }),
    );
    return jsonList({ total: found.length, shown: meetings.length }, 'meetings', meetings);
  },
});

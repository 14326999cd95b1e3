import { pastSummariesFor } from './past-meetings.js';
import { findProject, listProjectFolders } from './project-files.js';
import { TOOLS } from './registry.js';
import { hasIdentities } from './speakers.js';
import type { AnyTool, ToolContext } from './types.js';

/**
 * The tools offered to one meeting (docs/design.md §3 step 9): only those that can act for it.
 * Every schema is sent with every request, and on a small local window (Ollama's 4,096) the
 * project and history tools alone would take the room of a few dozen transcript lines. The
 * choice is made once, when the run starts, and kept for the whole run: servers cache the
 * prompt prefix, and a model should not see its tools change under it.
 *
 * - project tools (list_projects, list_projectfiles, read_projectfile, write_projectfile):
 *   only when at least one of the meeting's projects exists as a project folder;
 * - past-meeting tools (list_past_project_meetings, read_past_project_meeting_summary): only
 *   when a past summary of the meeting's projects exists;
 * - search: when either of the two (it searches both);
 * - delete_identity: only when there is a speaker identity to delete.
 * A check that fails (an unreadable folder) offers the tools: their own errors then say why.
 */

export const PROJECT_TOOLS: readonly string[] = ['list_projects', 'list_projectfiles', 'read_projectfile', 'write_projectfile'];
export const PAST_TOOLS: readonly string[] = ['list_past_project_meetings', 'read_past_project_meeting_summary'];

export interface ToolOffer {
  projects: boolean;
  past: boolean;
  identities: boolean;
}

export async function toolOffer(ctx: ToolContext): Promise<ToolOffer> {
  const own = ctx.meeting.projects;
  const [projects, past, identities] = await Promise.all([
    own.length === 0
      ? false
      : listProjectFolders(ctx.vault).then((folders) => own.some((p) => findProject(folders, p) !== undefined), () => true),
    pastSummariesFor(ctx, own).then((list) => list.length > 0, () => true),
    hasIdentities(ctx).catch(() => true),
  ]);
  return { projects, past, identities };
}

/** The tools of `offer`, in the order of docs/design.md §4. */
export function offeredTools(offer: ToolOffer, tools: readonly AnyTool[] = TOOLS): AnyTool[] {
  return tools.filter((tool) => {
    if (PROJECT_TOOLS.includes(tool.name)) return offer.projects;
    if (PAST_TOOLS.includes(tool.name)) return offer.past;
    if (tool.name === 'search') return offer.projects || offer.past;
    if (tool.name === 'delete_identity') return offer.identities;
    return true;
  });
}

import { hasPastSummaries } from './projects/past-meetings.js';
import { findProject } from './projects/project-files.js';
import { TOOLS } from './registry.js';
import { hasIdentities } from './meeting/speakers.js';
import type { AnyTool, ToolBinding } from './binding/types.js';

/**
 * The tools offered to one meeting (docs/design.md §3 step 9): only those that can act for it.
 * Every schema is sent with every request, and on a small local window (Ollama's 4,096) the
 * project and history tools alone would take the room of a few dozen transcript lines. The
 * choice is made once, when the run starts, and kept for the whole conversation (or for each
 * phase of a run in phases, phasedTools): servers cache the prompt prefix, and a model should
 * not see its tools change under it inside one conversation.
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

export async function toolOffer(ctx: ToolBinding): Promise<ToolOffer> {
  const own = ctx.meeting.projects;
  const [projects, past, identities] = await Promise.all([
    own.length === 0
      ? false
      : ctx.caches.projectFolders.list().then((folders) => own.some((p) => findProject(folders, p) !== undefined), () => true),
    hasPastSummaries(ctx, own).catch(() => true),
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

/**
 * The offered tools of each phase of a run that goes in phases (docs/design.md §3 step 9: only
 * where the instructions and every offered schema would take more than a quarter of the request
 * room, as on Ollama's default 4,096; src/meeting/run-shape.ts decides). The summary with the
 * meeting's own tools, then the project update with the project and history tools (search and
 * the past meetings serve what is already known) and read_transcript, so that a project note can
 * quote the meeting itself. Each request carries only its phase's tools: on a 4,096-token window
 * the nineteen schemas leave the transcript no room. Without a project folder there is nothing to
 * update: one phase, as offered.
 */
export interface PhasedTools {
  summary: AnyTool[];
  /** Absent: the run has no project phase. */
  projects?: AnyTool[];
}

/** Tools offered only in the project phase: the project tools, search and the past-meeting tools. */
export function isProjectPhaseTool(name: string): boolean {
  return PROJECT_TOOLS.includes(name) || PAST_TOOLS.includes(name) || name === 'search';
}

/** The meeting's tool that the project phase offers too: the meeting's own words to quote. */
export const SHARED_PHASE_TOOLS: readonly string[] = ['read_transcript'];

export function phasedTools(offer: ToolOffer, tools: readonly AnyTool[] = TOOLS): PhasedTools {
  const offered = offeredTools(offer, tools);
  if (!offer.projects) return { summary: offered };
  return {
    summary: offered.filter((tool) => !isProjectPhaseTool(tool.name)),
    projects: offered.filter((tool) => isProjectPhaseTool(tool.name) || SHARED_PHASE_TOOLS.includes(tool.name)),
  };
}

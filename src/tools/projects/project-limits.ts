import path from 'node:path';
import { realLocation } from '../../vault/files/confine.js';
import { keepsExecutableBlocks } from '../../vault/format/inert.js';
import { ToolError } from '../errors.js';
import { findProject, listProjectFolders, type ProjectFolder } from './project-files.js';
import type { ToolBinding } from '../binding/types.js';

/**
 * What a model may write in the projects (docs/design.md §4). A transcript is words other
 * people said: one injected line can talk the model into writing anywhere. So
 * write_projectfile writes only the meeting's own projects (`Agent.WritableProjects`:
 * `meeting`, the default; `all` lets it write any existing project, as the original did),
 * and never a project's AGENTS.md, the instructions every later run of that project gets.
 */

/** `project` when the agent may write it in this run; a ToolError naming the meeting's projects otherwise. */
export async function writableProject(ctx: ToolBinding, project: ProjectFolder): Promise<ProjectFolder> {
  if (ctx.settings.Agent.WritableProjects === 'all') return project;
  const own = ctx.meeting.projects;
  // The folder each of the meeting's names denotes (exact, else the one differing in case only):
  // on a case-sensitive disk `alpha` next to the meeting's `Alpha` is another project.
  const folders = await listProjectFolders(ctx.vault);
  if (own.some((name) => findProject(folders, name)?.abs === project.abs)) return project;
  throw new ToolError(
    `project ${project.name} is not one of this meeting's projects (${own.length > 0 ? own.join(', ') : 'it lists none'}); ` +
      'write_projectfile writes only the projects the meeting is about. You may still read it with read_projectfile.',
  );
}

/**
 * Refuses `abs` when it is (or, through a link, resolves to) an AGENTS.md, in any case and at
 * any depth: a project folder a person linked to the projects folder (or a subfolder that is
 * another project's real folder) holds other projects' instructions below its top.
 */
export async function refuseInstructionsFile(ctx: ToolBinding, project: ProjectFolder, abs: string): Promise<void> {
  const real = await realLocation(ctx.vault.fs, abs);
  if ([abs, real].some((file) => path.basename(file).toLowerCase() === 'agents.md')) {
    throw new ToolError(`AGENTS.md holds the project's instructions for the agent and is written only by people; put this in another file of project ${project.name}.`);
  }
}

/**
 * Refuses an edit after which the note runs code it did not run before: lines put into a
 * person's ```dataviewjs block, or a fence line taken away so that text becomes code. What
 * the agent writes is inert already (vault/format/inert.ts); the code around it is the person's.
 */
export function refuseExecutableChange(before: string | undefined, after: string): void {
  if (keepsExecutableBlocks(before ?? '', after)) return;
  throw new ToolError(
    'this edit would change the code of a dataviewjs/js-engine block (code that Obsidian runs when the note opens), or make text part of one; ' +
      'edit the lines outside the block. Nothing was changed.',
  );
}

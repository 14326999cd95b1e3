import path from 'node:path';
import type { CalendarEvent } from '../calendar/types.js';
import { mapLimit } from '../vault/files/concurrency.js';
import type { Vault } from '../vault/files/vault.js';
import { nameList } from '../vault/notes/meeting.js';
import { parseNote } from '../vault/format/frontmatter.js';
import { readFrontmatterText } from '../vault/scan/note-head.js';
import { agendaText } from './agenda-text.js';

/**
 * The projects a matched meeting gets when it has none (docs/design.md §12, "Projects"): those
 * of the latest earlier meeting of the same series (the same `event` UID) that has any, so that
 * binding one meeting of a weekly series binds the series; else those of `Calendar.Projects`
 * whose expression matches the event's title or description, each an existing project folder.
 */

/** Meeting notes whose heads are read at once: bounded so a large vault does not exhaust descriptors. */
const PARALLEL = 16;
/** The description an expression is tried on: a 5 MB description would cost seconds of a pattern's time. */
const MATCHED_CHARS = 20_000;

export async function projectsForEvent(
  vault: Vault,
  event: CalendarEvent,
  options: { before: Date; patterns: Readonly<Record<string, string>>; except?: string },
): Promise<string[]> {
  const series = await seriesProjects(vault, event.uid, options.before, options.except);
  if (series.length > 0) return series;
  return configuredProjects(vault, event, options.patterns);
}

/** The projects of the latest meeting note with `event: uid` that started before `before` and has any. */
export async function seriesProjects(vault: Vault, uid: string, before: Date, except?: string): Promise<string[]> {
  if (uid === '') return [];
  let notes: string[];
  try {
    notes = await vault.listNotesOf('Meetings');
  } catch {
    return [];
  }
  let best: { at: number; projects: string[] } | undefined;
  await mapLimit(
    notes.filter((note) => note !== except),
    PARALLEL,
    async (note) => {
      let data: Record<string, unknown>;
      try {
        const head = await readFrontmatterText(vault.fs, note);
        // Most notes are of other series: theirs is not parsed (bench/calendar-match.mjs, 5,000 notes: 1.3 s → 0.9 s).
        if (!head.includes(uid)) return;
        data = parseNote(head).data;
      } catch {
        return; // a note that cannot be read or parsed binds nothing
      }
      if (typeof data.event !== 'string' || data.event.trim() !== uid) return;
      const at = Date.parse(String(data.start_time ?? ''));
      const projects = nameList(data.projects);
      if (!Number.isFinite(at) || at >= before.getTime() || projects.length === 0) return;
      if (!best || at > best.at) best = { at, projects };
    },
  );
  return best?.projects ?? [];
}

/** The projects of `patterns` whose expression (case-insensitive) matches the title or the description, folders that exist. */
export async function configuredProjects(vault: Vault, event: CalendarEvent, patterns: Readonly<Record<string, string>>): Promise<string[]> {
  const texts = [event.title, agendaText(event.description.slice(0, MATCHED_CHARS))];
  const out: string[] = [];
  for (const [project, pattern] of Object.entries(patterns)) {
    let expression: RegExp;
    try {
      expression = new RegExp(pattern, 'iu');
    } catch {
      continue; // a pattern JavaScript cannot read binds nothing; doctor is where configurations are judged
    }
    if (!texts.some((text) => expression.test(text))) continue;
    if (await isProjectFolder(vault, project)) out.push(project);
  }
  return out;
}

async function isProjectFolder(vault: Vault, project: string): Promise<boolean> {
  if (project.includes('/') || project.includes('\\') || project === '.' || project === '..' || project.trim() === '') return false;
  try {
    return (await vault.fs.stat(path.join(vault.layout.folders.Projects, project))).isDirectory();
  } catch {
    return false;
  }
}

import { parseNote, readNote, renderFrontmatter, replaceBody, requireText, updateFrontmatter, updateNoteFrontmatter } from '../format/frontmatter.js';
import { formatLink } from '../format/links.js';
import { UNCHANGED } from '../files/update.js';
import type { MeetingArtifacts } from './meeting.js';
import { endTimeOf } from './end-time.js';
import type { Vault } from '../files/vault.js';
import { MeetingAssistantError } from '../../errors.js';

/**
 * The assistant context note: the agent's notebook, whose frontmatter the daemon owns
 * (docs/design.md §1). Updates go through updateNoteFrontmatter, so keys a person added,
 * their order and comments survive.
 */

export const CONTEXT_STATES = [
  'collecting metadata',
  'transcribing',
  'speaker recognition',
  'summarizing',
  'finished',
  'error',
] as const;

export type ContextState = (typeof CONTEXT_STATES)[number];

export function isContextState(x: unknown): x is ContextState {
  return typeof x === 'string' && (CONTEXT_STATES as readonly string[]).includes(x);
}

export class InvalidStateError extends MeetingAssistantError {
  constructor(readonly state: unknown) {
    super(`"${String(state)}" is not a context state; use one of: ${CONTEXT_STATES.join(', ')}`, true);
  }
}

/**
 * Creates the context note when missing (returns true), with every key of the contract in
 * its order. An existing note is never overwritten (returns false).
 */
export async function createContextNote(
  vault: Vault,
  artifacts: MeetingArtifacts,
  options: ContextNoteOptions = {},
): Promise<boolean> {
  const content = renderContextNote(vault, artifacts, options);
  // Decided on the file as it is right before the write: a note that appeared meanwhile is left alone.
  const result = await vault.update(artifacts.contextPath, (current) => (current === undefined ? content : UNCHANGED));
  return result.changed;
}

export interface ContextNoteOptions {
  state?: ContextState;
  agenda?: string;
  scheduledEnd?: string;
  body?: string;
}

/** A new context note's text, every key of the contract in its order (an import stages it before it places it). */
export function renderContextNote(vault: Vault, artifacts: MeetingArtifacts, options: ContextNoteOptions = {}): string {
  const state = options.state ?? 'collecting metadata';
  if (!isContextState(state)) throw new InvalidStateError(state);
  const data: Record<string, unknown> = {
    title: artifacts.title ?? '',
    start_time: artifacts.startTime ?? '',
    end_time: artifacts.endTime ?? '',
    meeting: formatLink(vault, artifacts.meetingPath),
    transcript: formatLink(vault, artifacts.transcriptPath),
    summary: formatLink(vault, artifacts.summaryPath),
    state,
    agenda: options.agenda ?? '',
  };
  if (options.scheduledEnd !== undefined) data.scheduled_end = options.scheduledEnd;
  return renderFrontmatter(data) + (options.body ?? '');
}

/**
 * A run begins (docs/design.md §2, "Summarize"; §3 step 1): the context note says `summarizing`, with an end time
 * when it has none (the meeting's, else the transcript's last stamp after the start, else the
 * run's time). A new meeting's note is written once, already so: one write (and its fsync) fewer
 * before the first model request.
 */
export async function startSummarizing(vault: Vault, artifacts: MeetingArtifacts, runTime: Date): Promise<void> {
  const endTime = async () => artifacts.endTime ?? endTimeOf(artifacts.startTime, await vault.readIfExists(artifacts.transcriptPath), runTime);
  // The transcript is read only for a note that will get the end time from it: one with an
  // end time of its own never needed it (a transcript that cannot be read fails nothing then).
  const existing = await vault.readIfExists(artifacts.contextPath);
  if (existing === undefined && (await createContextNote(vault, { ...artifacts, endTime: await endTime() }, { state: 'summarizing' }))) return;
  // Created meanwhile by another writer: read now. The update reads it again under its lock.
  const data = existing === undefined ? (await readNote(vault, artifacts.contextPath)).data : parseNote(existing, vault.rel(artifacts.contextPath)).data;
  await setContextState(vault, artifacts.contextPath, 'summarizing', {
    ...(isBlank(data.end_time) ? { end_time: await endTime() } : {}),
  });
}

function isBlank(value: unknown): boolean {
  return value === undefined || value === null || (typeof value === 'string' && value.trim() === '');
}

/** Sets `state` (one of the six, else InvalidStateError and nothing is written) and any `extra` keys. */
export async function setContextState(
  vault: Vault,
  contextPath: string,
  state: string,
  extra: Record<string, unknown> = {},
): Promise<void> {
  if (!isContextState(state)) throw new InvalidStateError(state);
  await updateNoteFrontmatter(vault, contextPath, { state, ...extra });
}

/**
 * The note's state; undefined when the note is missing or its state is not one of the six.
 * A frontmatter that does not parse is a FrontmatterError (the note is broken, not "unset").
 */
export async function readContextState(vault: Vault, contextPath: string): Promise<ContextState | undefined> {
  const content = await vault.readIfExists(contextPath);
  if (content === undefined) return undefined;
  const state = parseNote(content, vault.rel(contextPath)).data.state;
  if (typeof state !== 'string') return undefined;
  // A person typing `Finished ` in Obsidian means `finished`.
  const normalized = state.trim().toLowerCase();
  return isContextState(normalized) ? normalized : undefined;
}

/**
 * Appends `markdown` at the end of the body, one blank line after what is there, to the
 * note as it is on disk now. A note whose frontmatter does not parse is not rewritten.
 */
export async function appendToContextBody(
  vault: Vault,
  contextPath: string,
  markdown: string,
  frontmatterChanges: Record<string, unknown> = {},
): Promise<void> {
  if (frontmatterChanges.state !== undefined && !isContextState(frontmatterChanges.state)) {
    throw new InvalidStateError(frontmatterChanges.state);
  }
  await vault.update(contextPath, (current) => {
    const content = requireText(current, contextPath);
    const note = parseNote(content, vault.rel(contextPath));
    const eol = note.eol;
    const block = markdown.replace(/\r\n/g, '\n').replace(/^\n+|\s+$/g, '').split('\n').join(eol);
    let next = content;
    if (block !== '') {
      // Trailing blank lines go; trailing spaces on the last written line stay.
      const kept = note.body.replace(/(?:\r?\n[ \t]*)+$/, '');
      const body = kept.trim() === '' ? `${block}${eol}` : `${kept}${eol}${eol}${block}${eol}`;
      next = replaceBody(content, body);
    }
    // The appendix and the frontmatter changes (the final state) land in one atomic write, so a
    // crash between them cannot leave an audit section without its state, or the reverse.
    if (Object.keys(frontmatterChanges).length > 0) next = updateFrontmatter(next, frontmatterChanges, vault.rel(contextPath));
    return next;
  });
}

/**
 * The context note's body is the agent's notebook, then the record the daemon appends (the
 * `## External changes` audit sections, `## Error` sections after the summary), from the
 * first of them on. read_context and write_context see the notebook only, so an overwrite
 * never erases the record.
 */
const RECORD_START = /(?:^|\n)(?=## (?:External changes|Error) \(\d{4}-)/;

export function splitContextBody(body: string): { notebook: string; record: string } {
  const m = RECORD_START.exec(body);
  if (!m) return { notebook: body, record: '' };
  const at = m.index + m[0].length;
  // The blank lines before the record belong to neither: the notebook reads the same before and after a write.
  const raw = body.slice(0, at);
  const kept = raw.replace(/(?:\r?\n[ \t]*)+$/, '');
  return { notebook: kept.trim() === '' ? '' : kept + (raw.includes('\r\n') ? '\r\n' : '\n'), record: body.slice(at) };
}

/** The notebook then the record, one blank line between them. */
export function joinContextBody(notebook: string, record: string, eol: string): string {
  if (record === '') return notebook;
  const kept = notebook.replace(/(?:\r?\n[ \t]*)+$/, '');
  return kept.trim() === '' ? record : `${kept}${eol}${eol}${record}`;
}

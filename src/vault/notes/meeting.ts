import path from 'node:path';
import { FrontmatterError, parseNote, updateNoteFrontmatter } from '../format/frontmatter.js';
import { UnwritableFileError } from '../files/regular-file.js';
import { LinkError, formatLink, resolveLink, resolveOrPlanLink, type VaultFiles, vaultFiles } from '../format/links.js';
import { notesLinkingTo } from '../format/backlinks.js';
import { defaultNoteName, defaultNotePath } from './meeting-paths.js';
import { type ClaimLook, claimsByOthers, type HeadSource } from './claims.js';
import { Vault } from '../files/vault.js';
import { confinedPlace, OutsideVaultError, readConfinedText } from '../files/real-place.js';
import { MeetingAssistantError } from '../../errors.js';

/**
 * A meeting and its artifacts, resolved from the meeting note (the hub). Implementation of
 * the resolution rules (links, defaults, write-back) lives below in this module.
 */
export interface MeetingArtifacts {
  /** Absolute paths. */
  meetingPath: string;
  transcriptPath: string;
  contextPath: string;
  summaryPath: string;
  /** From the meeting note's frontmatter; undefined when missing. */
  title: string | undefined;
  startTime: string | undefined;
  endTime: string | undefined;
  attendees: string[];
  /** Names of project folders as listed (existing or not). */
  projects: string[];
  /** The `template` link as written (resolved by the pipeline, which reports a missing one). */
  template?: string;
  /** The `language` property as written: a name or a code. */
  language?: string;
}

/**
 * A meeting that cannot run: its note does not parse, a link dangles, it has no transcript.
 * `summaryPath` is where the failure report goes, when that can be determined.
 */
export class BrokenMeetingError extends MeetingAssistantError {
  readonly meetingPath: string;
  readonly summaryPath?: string;

  constructor(message: string, meetingPath: string, summaryPath?: string, options?: { cause?: unknown }) {
    super(message, true, options);
    this.meetingPath = meetingPath;
    if (summaryPath !== undefined) this.summaryPath = summaryPath;
  }
}

/** No note, or more than one, links to the note whose meeting was asked for. */
export class MeetingLookupError extends MeetingAssistantError {
  constructor(
    readonly kind: 'not-found' | 'ambiguous',
    /** The transcript or summary note whose meeting was looked for. */
    readonly notePath: string,
    message: string,
    readonly candidates: string[] = [],
  ) {
    super(message, true);
  }
}

/** A note's file name without `.md`: the default name of its context and summary notes. */
export function noteBasename(absPath: string): string {
  return path.basename(absPath).replace(/\.md$/i, '');
}

/** A frontmatter value as text: blank is none. */
export function text(value: unknown): string | undefined {
  if (value === null || value === undefined) return undefined;
  if (typeof value === 'string') return value.trim() === '' ? undefined : value;
  if (typeof value === 'number' || typeof value === 'boolean') return String(value);
  return undefined;
}

/** `[[People/Alice|Al]]` → `Alice`; plain names stay as written. */
function nameOf(item: string): string {
  const wiki = /^!?\[\[([^\]]*)\]\]$/.exec(item.trim());
  if (!wiki) return item.trim();
  const target = (wiki[1] ?? '').split('|')[0]!.split('#')[0]!.trim().replace(/\.md$/i, '');
  return target.split('/').pop() ?? target;
}

/**
 * A list of names from a property written as a list, a single string, or wikilinks. An
 * unquoted `[[Alice]]` reads as a nested YAML list; it still means Alice.
 */
export function nameList(value: unknown): string[] {
  const out: string[] = [];
  const add = (item: unknown): void => {
    if (Array.isArray(item)) {
      if (item.length === 1 && typeof item[0] === 'string') {
        add(`[[${item[0]}]]`);
        return;
      }
      item.forEach(add);
      return;
    }
    const s = text(item);
    if (s === undefined) return;
    const name = nameOf(s);
    if (name !== '' && !out.includes(name)) out.push(name);
  };
  if (Array.isArray(value)) value.forEach(add);
  else add(value);
  return out;
}

/** Best effort for a meeting note that does not parse: its `summary:` line, read as plain text. */
function summaryLineOf(content: string): string | undefined {
  const closing = /\n---[ \t]*\r?(?:\n|$)/.exec(content.slice(3));
  const head = closing ? content.slice(0, closing.index + 3) : content;
  const m = /^summary:[ \t]*(.*?)[ \t]*(?:#.*)?\r?$/m.exec(head);
  const raw = m?.[1]?.trim();
  if (!raw) return undefined;
  return raw.replace(/^"(.*)"$/, '$1').replace(/^'(.*)'$/, '$1');
}

/**
 * Where a meeting whose note does not parse gets its failure report: the `summary` link once it
 * has passed the same confinement as a working meeting's, else the default summary path (never
 * the meeting note itself, a transcript or a person's note).
 */
async function failureReportPath(vault: Vault, meetingPath: string, summaryLink: string | undefined): Promise<string> {
  const fallback = defaultNotePath(vault, 'summary', meetingPath);
  try {
    const target = await resolveOrPlanLink(vault, summaryLink, vault.layout.folders.Summaries, defaultNoteName(vault, meetingPath));
    return (await outsideItsFolder(vault, 'summary', target, [meetingPath])) === undefined ? target.path : fallback;
  } catch {
    return fallback;
  }
}

const CONFINED = {
  summary: { folder: 'Summaries', what: 'a summary note or failure report (status: done or failed)' },
  context: { folder: 'Context', what: 'a context note (with state and meeting properties)' },
} as const;

/**
 * Whether an existing note outside the folder is one the daemon may write there anyway: a
 * summary or failure report (`status: done|failed`), a context note (`state` and `meeting`).
 */
export function isOwnNote(kind: 'summary' | 'context', data: Record<string, unknown>): boolean {
  if (kind === 'summary') return typeof data.status === 'string' && ['done', 'failed'].includes(data.status.trim());
  return data.state !== undefined && data.state !== null && typeof data.meeting === 'string' && data.meeting.trim() !== '';
}

/**
 * docs/design.md §1, "Links": a summary or context link decides where the daemon writes, so it
 * must resolve inside its folder (symbolic links followed) or to an existing note of that kind.
 * Returns why not, or undefined when the link is confined. `others` are this meeting's notes
 * the link must never name (the meeting note, the summary).
 */
async function outsideItsFolder(
  vault: Vault,
  kind: 'summary' | 'context',
  target: { path: string; exists: boolean },
  others: string[],
): Promise<string | undefined> {
  const { folder: key, what } = CONFINED[kind];
  const folder = vault.layout.folders[key];
  const at = vault.rel(target.path);
  if (others.includes(target.path)) return `the ${kind} link points to ${at}, another note of this meeting; it must name ${what}`;
  const real = target.exists ? await vault.fs.realpath(target.path).catch(() => target.path) : target.path;
  const realFolder = await vault.fs.realpath(folder).catch(() => folder);
  if (Vault.isBelow(realFolder, real) && vault.kindOf(target.path) === kind) return undefined;
  // Outside its folder, never a meeting note or a transcript (a transcript has `state` and `meeting` too).
  const otherKind = vault.kindOf(target.path);
  if (target.exists && otherKind !== 'meeting' && otherKind !== 'transcript') {
    let data: Record<string, unknown> = {};
    try {
      // Confined as every read of a note vault content names: a link out of the vault is read for nothing.
      data = parseNote((await readConfinedText(vault, target.path)) ?? '', at).data;
    } catch (err) {
      if (!(err instanceof FrontmatterError) && !(err instanceof OutsideVaultError)) throw err;
    }
    if (isOwnNote(kind, data)) return undefined;
  }
  return (
    `the ${kind} link points to ${at}, which is outside ${vault.rel(folder)}/ and not ${what}; ` +
    `the daemon does not write there: point the link into ${vault.rel(folder)}/ or remove it`
  );
}

/**
 * A meeting's notes are named by links and files a sync tool carries (Syncthing carries
 * symbolic links as they are), other people and imports write: a note that really lies out of
 * the vault or in a dot-folder (a transcript linked to `.meeting-assistant/token`) makes the
 * meeting broken, and is never read into a model's request (real-place.ts; issue #43 point 1).
 */
async function refuseOutside(vault: Vault, notes: [string, string][], broken: (why: string) => BrokenMeetingError): Promise<void> {
  for (const [what, abs] of notes) {
    try {
      await confinedPlace(vault, abs);
    } catch (err) {
      if (err instanceof OutsideVaultError) throw broken(`the ${what} ${err.message}`);
      throw err;
    }
  }
}

function describe(err: unknown): string {
  return err instanceof Error ? err.message : String(err);
}

/** The meeting note's frontmatter; a note that is missing or does not parse is a broken meeting. */
async function meetingFrontmatter(vault: Vault, meetingAbs: string): Promise<Record<string, unknown>> {
  const rel = vault.rel(meetingAbs);
  const content = await vault.readIfExists(meetingAbs);
  if (content === undefined) throw new BrokenMeetingError(`the meeting note ${rel} does not exist`, meetingAbs);
  try {
    return parseNote(content, rel).data;
  } catch (err) {
    if (!(err instanceof FrontmatterError)) throw err;
    const summaryPath = await failureReportPath(vault, meetingAbs, summaryLineOf(content));
    throw new BrokenMeetingError(
      `the meeting note's frontmatter does not parse (${err.message}); fix it and retry`,
      meetingAbs,
      summaryPath,
      { cause: err },
    );
  }
}

type Broken = (message: string, cause?: unknown) => BrokenMeetingError;

/** The transcript: by the meeting's `transcript` link, else the one transcript note whose `meeting` links here. */
async function transcriptOf(vault: Vault, meetingAbs: string, transcriptLink: unknown, broken: Broken, files: VaultFiles): Promise<string> {
  const transcriptGiven =
    transcriptLink !== null && transcriptLink !== undefined && !(typeof transcriptLink === 'string' && transcriptLink.trim() === '');
  if (transcriptGiven) {
    if (typeof transcriptLink !== 'string') throw broken(`the transcript property is not a link: ${JSON.stringify(transcriptLink)}`);
    try {
      return await resolveLink(vault, transcriptLink, files);
    } catch (err) {
      if (!(err instanceof LinkError)) throw err;
      throw broken(`the transcript link cannot be followed: ${err.message}`, err);
    }
  }
  const { Transcripts } = vault.layout.folders;
  const found = await notesLinkingTo(vault, 'transcript', Transcripts, 'meeting', meetingAbs);
  if (found.length === 0) {
    throw broken(`no transcript: the note has no "transcript" link and no transcript note in ${vault.rel(Transcripts)} links to it with "meeting"`);
  }
  if (found.length > 1) {
    throw broken(
      `several transcript notes link to this meeting (${found.map((f) => vault.rel(f)).join(', ')}); add a "transcript" link to the meeting note`,
    );
  }
  return found[0]!;
}

/**
 * docs/design.md §1: a summary or context note another meeting claims makes this meeting
 * broken, never a shared file. The report goes to this meeting's default summary path, unless
 * that is the claimed note itself (or another meeting's too): then only the log tells.
 */
async function refuseShared(
  vault: Vault,
  meetingAbs: string,
  notes: Record<'summary' | 'context', { path: string }>,
  links: { summaryLink: string | undefined; contextLink: string | undefined; defaultSummary: string },
  look: ClaimLook,
): Promise<void> {
  const claims = await claimsByOthers(vault, meetingAbs, { summary: notes.summary.path, context: notes.context.path }, look);
  const claim = claims[0];
  if (!claim) return;
  const rel = vault.rel(meetingAbs);
  const linked = (claim.kind === 'summary' ? links.summaryLink : links.contextLink) !== undefined;
  const fix = linked
    ? `remove the summary and context properties from ${rel} (the daemon then gives it notes of its own below ` +
      `${vault.rel(claim.kind === 'summary' ? vault.layout.folders.Summaries : vault.layout.folders.Context)}/) or point them at notes of its own, then retry`
    : `give ${rel} a ${claim.kind} link of its own, or change the one in ${claim.other}, then retry`;
  const message =
    `${rel}: the ${claim.kind} note ${vault.rel(claim.target)} belongs to another meeting, ${claim.other}; ` +
    `two meetings never share one, so this meeting is not run: ${fix}`;
  let report: string | undefined = notes.summary.path;
  if (claims.some((c) => c.kind === 'summary')) {
    const taken = links.defaultSummary === notes.summary.path || (await claimsByOthers(vault, meetingAbs, { summary: links.defaultSummary }, look)).length > 0;
    report = taken ? undefined : links.defaultSummary;
  }
  throw new BrokenMeetingError(message, meetingAbs, report);
}

/** Adds the default context and summary links the meeting note lacks (only those lines). */
async function writeBackLinks(vault: Vault, meetingAbs: string, changes: Record<string, unknown>, broken: Broken): Promise<void> {
  if (Object.keys(changes).length === 0) return;
  try {
    await updateNoteFrontmatter(vault, meetingAbs, changes);
  } catch (err) {
    // Not UTF-8, or read-only: the links are not written back, the run goes on (docs/design.md §4).
    if (err instanceof UnwritableFileError) return vault.skippedWrite(err);
    if (!(err instanceof FrontmatterError)) throw err;
    // Edited into something unparseable since we read it: it is not ours to rewrite.
    throw broken(`the meeting note's frontmatter does not parse (${err.message}); fix it and retry`, err);
  }
}

/**
 * Every artifact of a meeting, from its note's frontmatter (docs/design.md §1): the
 * transcript by its link (or the transcript note whose `meeting` links here), context and
 * summary by their links or the defaults, which are then written back into the meeting
 * note (only those lines are added). Throws BrokenMeetingError when the meeting cannot run.
 */
export async function resolveMeeting(
  vault: Vault,
  meetingPath: string,
  options: {
    writeBack?: boolean;
    /** The other meeting notes' heads, kept between runs (run-caches.ts `meetingHeads`); default read for this call. */
    meetingHeads?: HeadSource;
    /** The vault's files, kept between runs (run-caches.ts `listing`); default one walk for this call. */
    listing?: ClaimLook['listing'];
  } = {},
): Promise<MeetingArtifacts> {
  const meetingAbs = vault.abs(meetingPath);
  const rel = vault.rel(meetingAbs);
  await refuseOutside(vault, [['meeting note', meetingAbs]], (why) => new BrokenMeetingError(`${rel}: ${why}`, meetingAbs, defaultNotePath(vault, 'summary', meetingAbs)));
  const data = await meetingFrontmatter(vault, meetingAbs);

  const name = defaultNoteName(vault, meetingAbs);
  const { folders } = vault.layout;
  const summaryLink = text(data.summary);
  const contextLink = text(data.context);
  const defaultSummary = defaultNotePath(vault, 'summary', meetingAbs);
  for (const key of ['summary', 'context'] as const) {
    const value = data[key];
    if (value !== null && value !== undefined && typeof value !== 'string') {
      throw new BrokenMeetingError(`${rel}: the ${key} property is not a link: ${JSON.stringify(value)}`, meetingAbs, defaultSummary);
    }
  }

  // One look at the vault's files for every link below that does not name its note's path as it is.
  const files = vaultFiles(vault, options.listing ? () => options.listing!.files() : undefined);
  let summary: { path: string; exists: boolean };
  try {
    summary = await resolveOrPlanLink(vault, summaryLink, folders.Summaries, name, files);
  } catch (err) {
    throw new BrokenMeetingError(`${rel}: the summary link cannot be used: ${describe(err)}`, meetingAbs, defaultSummary, {
      cause: err,
    });
  }
  // A broken meeting's report goes to the summary link only once that link is confined;
  // until then (and when it is not) to the default summary path.
  const summaryWhy = await outsideItsFolder(vault, 'summary', summary, [meetingAbs]);
  if (summaryWhy) throw new BrokenMeetingError(`${rel}: ${summaryWhy}`, meetingAbs, defaultSummary);
  const broken: Broken = (message, cause) =>
    new BrokenMeetingError(`${rel}: ${message}`, meetingAbs, summary.path, cause === undefined ? undefined : { cause });

  let context: { path: string; exists: boolean };
  try {
    context = await resolveOrPlanLink(vault, contextLink, folders.Context, name, files);
  } catch (err) {
    throw broken(`the context link cannot be used: ${describe(err)}`, err);
  }

  // Again with every note of this meeting known (the context link, then the transcript):
  // the person's note is never written, the report goes to the default summary path.
  const confine = async (others: string[]): Promise<void> => {
    const why = (await outsideItsFolder(vault, 'summary', summary, others)) ?? (await outsideItsFolder(vault, 'context', context, [...others, summary.path]));
    if (why) throw new BrokenMeetingError(`${rel}: ${why}`, meetingAbs, defaultSummary);
  };
  await confine([meetingAbs]);

  const transcriptPath = await transcriptOf(vault, meetingAbs, data.transcript, broken, files);
  await confine([meetingAbs, transcriptPath]);
  // What the run reads and sends to the model lies in the vault (docs/design.md §10 "Confinement").
  await refuseOutside(
    vault,
    [['transcript', transcriptPath], ['context note', context.path], ['summary note', summary.path]],
    (why) => new BrokenMeetingError(`${rel}: ${why}`, meetingAbs, defaultSummary),
  );
  await refuseShared(vault, meetingAbs, { summary, context }, { summaryLink, contextLink, defaultSummary }, {
    ...(options.meetingHeads && { heads: options.meetingHeads }),
    ...(options.listing && { listing: options.listing }),
  });

  if (options.writeBack ?? true) {
    const changes: Record<string, unknown> = {};
    if (contextLink === undefined) changes.context = formatLink(vault, context.path);
    if (summaryLink === undefined) changes.summary = formatLink(vault, summary.path);
    await writeBackLinks(vault, meetingAbs, changes, broken);
  }

  return {
    meetingPath: meetingAbs,
    transcriptPath,
    contextPath: context.path,
    summaryPath: summary.path,
    title: text(data.title),
    startTime: text(data.start_time),
    endTime: text(data.end_time),
    attendees: nameList(data.attendees),
    projects: nameList(data.projects),
    ...summaryWishes(data, broken),
  };
}

/** `template` and `language`, the meeting's wishes for its summary; an unusable value is said, not ignored. */
function summaryWishes(
  data: Record<string, unknown>,
  broken: (message: string) => BrokenMeetingError,
): { template?: string; language?: string } {
  const out: { template?: string; language?: string } = {};
  let template = data.template;
  // An unquoted `[[Stand-up]]` reads as a nested YAML list; it still means the link.
  if (Array.isArray(template) && template.length === 1 && Array.isArray(template[0]) && template[0].length === 1) {
    template = `[[${String(template[0][0])}]]`;
  }
  if (template !== null && template !== undefined && typeof template !== 'string') {
    throw broken(`the template property is not a link: ${JSON.stringify(data.template)}`);
  }
  if (text(template) !== undefined) out.template = (template as string).trim();
  const language = data.language;
  if (language !== null && language !== undefined && typeof language !== 'string') {
    throw broken(`the language property is not a language name or code: ${JSON.stringify(language)}`);
  }
  if (text(language) !== undefined) out.language = (language as string).trim();
  return out;
}

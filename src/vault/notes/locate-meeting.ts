import path from 'node:path';
import { linkTarget, resolveLink, resolveOrPlanLink, type VaultFiles } from '../format/links.js';
import { isOwnNote, MeetingLookupError, text } from './meeting.js';
import { notesLinkingTo } from '../format/backlinks.js';
import { parseNote } from '../format/frontmatter.js';
import { isNotFound } from '../files/fs.js';
import { defaultNoteName, defaultNotePath } from './meeting-paths.js';
import type { Vault } from '../files/vault.js';
import type { HeadCache } from '../scan/head-cache.js';
import { MeetingAssistantError } from '../../errors.js';

/**
 * Finding a meeting's notes from the frontmatter alone, through the head cache: what the
 * triggers and the catch-up scan need to key a job by its meeting and to see the state of
 * its context note, without reading whole notes or rewriting anything (the pipeline does
 * the full resolution, with its write-backs, when it runs).
 */

export class LocateError extends MeetingAssistantError {
  constructor(message: string, options?: ErrorOptions) {
    super(message, true, options);
  }
}

function linkValue(data: Record<string, unknown>, key: string): string | undefined {
  const value = data[key];
  return typeof value === 'string' && linkTarget(value) !== undefined ? value : undefined;
}

/**
 * `resolveLink` with the common case first: a link the daemon or a recorder wrote names the
 * vault-relative path, which the head cache can confirm without a second look at the disk.
 */
export async function resolveLinkCached(vault: Vault, value: string, heads: HeadCache): Promise<string> {
  const target = linkTarget(value);
  if (target !== undefined && !path.isAbsolute(target) && !target.split('/').some((part) => part.startsWith('.'))) {
    const direct = vault.abs(target);
    if (vault.contains(direct) && direct !== vault.root && (await heads.get(direct))) return direct;
  }
  return resolveLink(vault, value);
}

/**
 * Meeting notes by the transcript they link to: the fallback when a transcript has no `meeting`
 * link. Every claimant is kept: two meeting notes claiming one transcript is a question for a
 * person, not something to settle by which note was listed last.
 */
export type TranscriptIndex = Map<string, string[]>;

export async function buildTranscriptIndex(vault: Vault, heads: HeadCache): Promise<TranscriptIndex> {
  const index: TranscriptIndex = new Map();
  for (const meeting of await vault.listMarkdown(vault.layout.folders.Meetings)) {
    if (vault.kindOf(meeting) !== 'meeting') continue;
    const head = await heads.get(meeting);
    if (!head?.ok) continue;
    const link = linkValue(head.data, 'transcript');
    if (!link) continue;
    const transcript = await resolveLinkCached(vault, link, heads).catch(() => undefined);
    if (transcript) index.set(transcript, [...(index.get(transcript) ?? []), meeting]);
  }
  return index;
}

export interface LocateOptions {
  heads: HeadCache;
  /** Built on first need and reused for the rest of a scan. */
  transcriptIndex?: () => Promise<TranscriptIndex>;
}

/** The meeting note of a transcript: its `meeting` link, else the meeting note whose `transcript` links here. */
export async function meetingOfTranscript(vault: Vault, transcript: string, options: LocateOptions): Promise<string> {
  const head = await options.heads.get(transcript);
  if (!head) throw new LocateError(`${vault.rel(transcript)} no longer exists`);
  if (!head.ok) throw new LocateError(head.error);
  const link = linkValue(head.data, 'meeting');
  if (link) {
    try {
      return await resolveLinkCached(vault, link, options.heads);
    } catch (err) {
      throw new LocateError(`${vault.rel(transcript)}: ${(err as Error).message}`);
    }
  }
  const index = await (options.transcriptIndex ?? (() => buildTranscriptIndex(vault, options.heads)))();
  const meetings = index.get(transcript) ?? [];
  if (meetings.length === 0) {
    throw new LocateError(
      `${vault.rel(transcript)} has no "meeting" link and no meeting note links to it as its transcript`,
    );
  }
  if (meetings.length > 1) {
    throw new LocateError(
      `${vault.rel(transcript)} has no "meeting" link and several meeting notes link to it ` +
        `(${meetings.map((m) => vault.rel(m)).join(', ')}); add a "meeting" link to the transcript`,
    );
  }
  return meetings[0]!;
}

/** The meeting a summary or context note belongs to, from its `meeting` link. */
export async function meetingOfNote(vault: Vault, note: string, heads: HeadCache): Promise<string> {
  const head = await heads.get(note);
  if (!head) throw new LocateError(`${vault.rel(note)} no longer exists`);
  if (!head.ok) throw new LocateError(head.error);
  const link = linkValue(head.data, 'meeting');
  if (!link) throw new LocateError(`${vault.rel(note)} has no "meeting" link`);
  try {
    return await resolveLinkCached(vault, link, heads);
  } catch (err) {
    throw new LocateError(`${vault.rel(note)}: ${(err as Error).message}`);
  }
}

export interface ContextInfo {
  path: string;
  exists: boolean;
  /** The context note's `state`; undefined when it does not exist or has none. */
  state?: string;
}

/** A `meeting` link with a folder that names a note other than `meeting` (cheap: no lookup). */
function namesAnotherMeeting(vault: Vault, link: unknown, meeting: string): boolean {
  const target = linkTarget(link);
  if (target === undefined || !target.includes('/')) return false;
  return vault.abs(target.replace(/^\/+/, '')).toLowerCase() !== meeting.toLowerCase();
}

/**
 * Where the meeting's context note is and what state it is in. `files`: the vault's files
 * for a link to a note not yet created, when the caller keeps them (the daemon's
 * scan/vault-listing.ts); default a walk of the vault.
 */
export async function contextOfMeeting(vault: Vault, meeting: string, heads: HeadCache, files?: VaultFiles): Promise<ContextInfo> {
  const head = await heads.get(meeting);
  if (!head) throw new LocateError(`the meeting note ${vault.rel(meeting)} does not exist`);
  if (!head.ok) throw new LocateError(head.error);
  const basename = defaultNoteName(vault, meeting);
  const link = linkValue(head.data, 'context');
  const describe = async (file: string): Promise<ContextInfo> => {
    const context = await heads.get(file);
    if (!context) return { path: file, exists: false };
    // A link to a note that is no context note (the transcript, a person's note: outside the
    // folder without both `state` and `meeting`, the rule resolveMeeting confines by) is the
    // pipeline's to report as broken: nothing may write it, and its `state` says nothing here.
    const kind = vault.kindOf(file);
    const confined = kind === 'context' || (kind !== 'meeting' && kind !== 'transcript' && context.ok && isOwnNote('context', context.data));
    if (!confined) return { path: file, exists: false };
    // Another meeting's notebook (docs/design.md §1: never shared) says nothing of this one's
    // state: the run goes ahead and reports the meeting as broken instead of skipping it.
    if (context.ok && namesAnotherMeeting(vault, context.data.meeting, meeting)) return { path: file, exists: true };
    const state = context.ok && typeof context.data.state === 'string' ? context.data.state.trim() : undefined;
    return { path: file, exists: true, ...(state !== undefined && { state }) };
  };
  if (!link) return describe(defaultNotePath(vault, 'context', meeting));
  const target = linkTarget(link)!;
  if (!path.isAbsolute(target) && target.includes('/') && !target.split('/').some((part) => part.startsWith('.'))) {
    const direct = vault.abs(target);
    if (vault.contains(direct)) {
      const info = await describe(direct);
      if (info.exists) return info;
    }
  }
  let planned;
  try {
    planned = await resolveOrPlanLink(vault, link, vault.layout.folders.Context, basename, files);
  } catch (err) {
    throw new LocateError(`${vault.rel(meeting)}: ${(err as Error).message}`);
  }
  return planned.exists ? describe(planned.path) : { path: planned.path, exists: false };
}

/** Reads a note's frontmatter data, naming the note in errors. */
async function dataOf(vault: Vault, absPath: string): Promise<Record<string, unknown>> {
  const rel = vault.rel(absPath);
  let content: string;
  try {
    content = await vault.read(absPath);
  } catch (err) {
    if (isNotFound(err)) throw new MeetingLookupError('not-found', absPath, `${rel} does not exist`);
    throw err;
  }
  return parseNote(content, rel).data;
}

/**
 * The meeting note of a note that names its meeting with `meeting` (transcripts, summaries),
 * else the unique meeting note whose `backKey` links to it. Throws LinkError when the
 * `meeting` link is broken, MeetingLookupError when no or several meetings fit,
 * FrontmatterError when the note does not parse.
 */
async function findMeetingOf(vault: Vault, notePath: string, backKey: 'transcript' | 'summary'): Promise<string> {
  const abs = vault.abs(notePath);
  const data = await dataOf(vault, abs);
  const link = text(data.meeting);
  if (link !== undefined) return resolveLink(vault, link);
  const found = await notesLinkingTo(vault, 'meeting', vault.layout.folders.Meetings, backKey, abs);
  const rel = vault.rel(abs);
  if (found.length === 1) return found[0]!;
  if (found.length === 0) {
    throw new MeetingLookupError(
      'not-found',
      abs,
      `${rel} has no "meeting" link and no meeting note links to it with "${backKey}"`,
    );
  }
  const list = found.map((f) => vault.rel(f));
  throw new MeetingLookupError(
    'ambiguous',
    abs,
    `${rel} has no "meeting" link and several meeting notes link to it (${list.join(', ')})`,
    list,
  );
}

export function findMeetingOfTranscript(vault: Vault, transcriptPath: string): Promise<string> {
  return findMeetingOf(vault, transcriptPath, 'transcript');
}

/** For retry: the summary note's `meeting` link (else the meeting note whose `summary` links here). */
export function findMeetingOfSummary(vault: Vault, summaryPath: string): Promise<string> {
  return findMeetingOf(vault, summaryPath, 'summary');
}

import path from 'node:path';
import { type ActionItem, parseActionItems } from '../vault/notes/action-items.js';
import { parseNote } from '../vault/format/frontmatter.js';
import { linkTarget } from '../vault/format/links.js';
import { nameList, noteBasename } from '../vault/notes/meeting.js';
import type { Vault } from '../vault/files/vault.js';
import type { FileWatch } from '../tools/cache/file-cache.js';
import { NoteFolder } from './note-folder.js';

/**
 * What the MCP server knows of the meetings (docs/design.md §10): the meeting notes' and the
 * summaries' frontmatter, and the summaries' action items, parsed once per version of each
 * note and kept for the server's life. Read-only: nothing here writes, not even the links
 * the daemon would write back.
 */

export interface MeetingNote {
  abs: string;
  rel: string;
  title: string | undefined;
  startTime: string | undefined;
  /** `startTime` in ms; NaN when missing or not a date. */
  startMs: number;
  attendees: string[];
  projects: string[];
  /** The links as written (undefined when missing). */
  summaryLink: string | undefined;
  transcriptLink: string | undefined;
}

export interface SummaryNote {
  abs: string;
  rel: string;
  title: string | undefined;
  startTime: string | undefined;
  startMs: number;
  projects: string[];
  /** `done`, `failed`, …; undefined when missing. */
  status: string | undefined;
  meetingLink: string | undefined;
  actionItems: ActionItem[];
}

function scalar(value: unknown): string | undefined {
  if (value instanceof Date) return value.toISOString();
  if (typeof value === 'string') return value.trim() === '' ? undefined : value.trim();
  if (typeof value === 'number' || typeof value === 'boolean') return String(value);
  return undefined;
}

function frontmatterOf(vault: Vault, abs: string, text: string): ReturnType<typeof parseNote> | undefined {
  try {
    return parseNote(text, vault.rel(abs));
  } catch {
    return undefined;
  }
}

export class MeetingIndex {
  readonly meetings: NoteFolder<MeetingNote>;
  readonly summaries: NoteFolder<SummaryNote>;
  /** Transcripts are only listed (search, link resolution), never parsed. */
  readonly transcripts: NoteFolder<string>;

  constructor(
    readonly vault: Vault,
    watch: FileWatch,
  ) {
    const { folders } = vault.layout;
    this.meetings = new NoteFolder(vault, watch, 'meeting', folders.Meetings, (abs, text) => this.meetingOf(abs, text));
    this.summaries = new NoteFolder(vault, watch, 'summary', folders.Summaries, (abs, text) => this.summaryOf(abs, text));
    this.transcripts = new NoteFolder(vault, watch, 'transcript', folders.Transcripts, (abs) => abs);
  }

  private meetingOf(abs: string, text: string): MeetingNote | undefined {
    const note = frontmatterOf(this.vault, abs, text);
    if (!note) return undefined;
    const { data } = note;
    return {
      ...this.common(abs, data),
      attendees: nameList(data.attendees),
      summaryLink: scalar(data.summary),
      transcriptLink: scalar(data.transcript),
    };
  }

  private summaryOf(abs: string, text: string): SummaryNote | undefined {
    const note = frontmatterOf(this.vault, abs, text);
    if (!note) return undefined;
    const { data } = note;
    return {
      ...this.common(abs, data),
      status: scalar(data.status),
      meetingLink: scalar(data.meeting),
      actionItems: parseActionItems(note.body, note.bodyStartLine),
    };
  }

  /** What meeting notes and summaries both carry (a summary copies them from its meeting note). */
  private common(abs: string, data: Record<string, unknown>): Pick<MeetingNote, 'abs' | 'rel' | 'title' | 'startTime' | 'startMs' | 'projects'> {
    const startTime = scalar(data.start_time);
    return {
      abs,
      rel: this.vault.rel(abs),
      title: scalar(data.title),
      startTime,
      startMs: startTime === undefined ? NaN : Date.parse(startTime),
      projects: nameList(data.projects),
    };
  }

  /**
   * Where a meeting's summary is, or would be written: its `summary` link, else the default
   * `<Folders.Summaries>/<path below Folders.Meetings>.md` (docs/design.md §1). A bare name
   * that is no summary's path is looked up among `known` summaries by name, as Obsidian does.
   */
  summaryPathOf(meeting: MeetingNote, known: ReadonlySet<string>): string {
    const { folders } = this.vault.layout;
    if (meeting.summaryLink === undefined || linkTarget(meeting.summaryLink) === undefined) {
      const below = path.relative(folders.Meetings, meeting.abs).replace(/\.md$/i, '');
      const name = below.startsWith('..') ? noteBasename(meeting.abs) : below;
      return path.join(folders.Summaries, `${name}.md`);
    }
    return this.resolveAmong(meeting.summaryLink, known, folders.Summaries);
  }

  /** The transcript a meeting links to; without a link, a transcript note of the meeting's name. */
  transcriptPathOf(meeting: MeetingNote, known: ReadonlySet<string>): string | undefined {
    if (meeting.transcriptLink !== undefined && linkTarget(meeting.transcriptLink) !== undefined) {
      return this.resolveAmong(meeting.transcriptLink, known, this.vault.layout.folders.Transcripts);
    }
    const name = `${noteBasename(meeting.abs)}.md`.toLowerCase();
    return [...known].find((k) => path.basename(k).toLowerCase() === name);
  }

  /**
   * A link resolved the way the vault layer does (links.ts), against a listing rather than a walk
   * of the whole vault: the vault-relative path, else a unique path suffix (exact case first),
   * else, dangling, the path it names (its folder, or `fallbackFolder` for a bare name).
   */
  resolveAmong(link: string, known: ReadonlySet<string>, fallbackFolder: string): string {
    const target = linkTarget(link)!.replace(/^\/+/, '');
    const direct = this.vault.abs(target);
    if (known.has(direct)) return direct;
    const rels = [...known].map((k) => this.vault.rel(k));
    const exact = rels.filter((r) => r === target || r.endsWith(`/${target}`));
    const lower = target.toLowerCase();
    const folded = exact.length > 0 ? exact : rels.filter((r) => r.toLowerCase() === lower || r.toLowerCase().endsWith(`/${lower}`));
    if (folded.length === 1) return this.vault.abs(folded[0]!);
    return target.includes('/') ? direct : path.join(fallbackFolder, target);
  }
}

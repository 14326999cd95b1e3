import { joinContextBody, splitContextBody } from './context.js';
import { parseNote, replaceBody, requireText } from '../format/frontmatter.js';
import { UNCHANGED } from '../files/update.js';
import type { Vault } from '../files/vault.js';

/**
 * The `## Transcript notes` section of the context note: the notes a long transcript was read
 * into, one `### Lines a–b` subsection per part, with a progress line and the fingerprint of
 * the transcript they were made from. It is the run's memory across a retry or a crash: notes
 * of the same transcript are reused, those of a changed transcript are not. Only this section
 * is ever rewritten; the agent's own notebook and the `## External changes` audit sections
 * around it stay as they are.
 */

export const NOTES_HEADING = '## Transcript notes';

export interface PartNotes {
  /** Inclusive transcript line range (lines counted over the whole file, as read_transcript counts). */
  from: number;
  to: number;
  text: string;
  /**
   * The hash of the part's lines when its notes were made (fingerprintOf in notes-pass.ts):
   * notes are reused while their lines are unchanged, so a part a person corrected, or one
   * whose speakers were renamed, is noted again (docs/design.md §3 step 9). Absent in notes an
   * earlier version wrote: those are reused only with the whole transcript's fingerprint.
   */
  hash?: string;
}

export interface TranscriptNotesSection {
  /** Fingerprint of the transcript the notes were made from. */
  fingerprint: string;
  /** One line for people: what is being read now, or that the notes are complete. */
  progress: string;
  parts: PartNotes[];
  /** The parts' notes condensed to fit the agent's room (empty when they fit as they are). */
  condensed: PartNotes[];
  /**
   * A window smaller than configured that the server showed to a notes request (it cut or
   * refused one): the next pass over this meeting sizes its parts for it at once.
   */
  window?: number;
}

const MARKER = /^<!-- meeting-assistant transcript notes: ([^\s]+) -->$/;
/**
 * The section's last line: what a person or write_context puts after it is theirs (kept by a
 * rewrite, never read as notes). A section written before this marker existed runs to the next
 * `## ` heading.
 */
export const END_MARKER = '<!-- end of transcript notes -->';
const PART_HEADING = /^### Lines (\d+)[–-](\d+)( \(condensed\))?\s*$/;
/** The line after the progress line that names a window the server showed. */
const WINDOW = /^<!-- parts sized for a context window of (\d+) tokens -->$/;
/** The line after a part's heading that names the hash of its lines. */
const PART_HASH = /^<!-- part ([^\s]+) -->$/;

/** The section as Markdown (no trailing newline). */
export function renderNotesSection(section: TranscriptNotesSection): string {
  const out = [
    NOTES_HEADING,
    '',
    `<!-- meeting-assistant transcript notes: ${section.fingerprint} -->`,
    section.progress,
    ...(section.window !== undefined ? [`<!-- parts sized for a context window of ${section.window} tokens -->`] : []),
  ];
  for (const part of section.parts) {
    out.push('', `### Lines ${part.from}–${part.to}`, ...(part.hash ? [`<!-- part ${part.hash} -->`] : []), '', demoteHeadings(part.text.trim()));
  }
  for (const part of section.condensed) out.push('', `### Lines ${part.from}–${part.to} (condensed)`, '', demoteHeadings(part.text.trim()));
  out.push(END_MARKER);
  return out.join('\n');
}

/** A model's `## Decisions` (or a quoted end marker) inside its notes must not end the section. */
function demoteHeadings(text: string): string {
  return text.replace(/^#{1,3}(?=\s)/gm, '####').replace(/^\s*<!-- end of transcript notes -->\s*$/gm, '(end of transcript notes)');
}

/** Where the section is in `lines` (body lines): [start, end), up to its end marker or the next `## ` heading; undefined when there is none. */
function sectionBounds(lines: readonly string[]): { start: number; end: number } | undefined {
  const start = lines.findIndex((l) => l.trimEnd() === NOTES_HEADING);
  if (start < 0) return undefined;
  let end = start + 1;
  while (end < lines.length && !/^## /.test(lines[end]!)) {
    if (lines[end++]!.trim() === END_MARKER) break;
  }
  return { start, end };
}

/** The section in a context note body; undefined when there is none or it has no fingerprint. */
export function parseNotesSection(body: string): TranscriptNotesSection | undefined {
  const lines = body.split(/\r?\n/);
  const bounds = sectionBounds(lines);
  if (!bounds) return undefined;
  let fingerprint: string | undefined;
  let progress = '';
  let window: number | undefined;
  const notes: (PartNotes & { condensed: boolean })[] = [];
  let current: { from: number; to: number; condensed: boolean; hash?: string; lines: string[] } | undefined;
  const close = () => {
    if (current) {
      const text = current.lines.join('\n').trim();
      notes.push({ from: current.from, to: current.to, condensed: current.condensed, text, ...(current.hash !== undefined && { hash: current.hash }) });
    }
    current = undefined;
  };
  for (const line of lines.slice(bounds.start + 1, bounds.end)) {
    if (line.trim() === END_MARKER) break;
    const marker = MARKER.exec(line.trim());
    const heading = PART_HEADING.exec(line);
    const shown = current ? null : WINDOW.exec(line.trim());
    if (marker && !current) fingerprint = marker[1];
    else if (shown) window = Number(shown[1]);
    else if (heading) {
      close();
      current = { from: Number(heading[1]), to: Number(heading[2]), condensed: heading[3] !== undefined, lines: [] };
    } else if (current) {
      const hash = current.lines.length === 0 && current.hash === undefined ? PART_HASH.exec(line.trim()) : null;
      if (hash) current.hash = hash[1];
      else current.lines.push(line);
    }
    else if (line.trim() !== '' && fingerprint !== undefined && progress === '') progress = line.trim();
  }
  close();
  if (fingerprint === undefined) return undefined;
  const valid = notes.filter((n) => n.text !== '' && n.from <= n.to);
  const plain = (n: PartNotes & { condensed: boolean }): PartNotes => ({ from: n.from, to: n.to, text: n.text, ...(n.hash !== undefined && { hash: n.hash }) });
  return {
    fingerprint,
    progress,
    ...(window !== undefined && window > 0 && { window }),
    parts: valid.filter((n) => !n.condensed).map(plain),
    condensed: valid.filter((n) => n.condensed).map(plain),
  };
}

/**
 * Writes the section into the body of `text`: in place of the one in the agent's notebook,
 * else at the end of the notebook, before the daemon's record (`## External changes`
 * sections), which read_context does not show: the agent's first message says the notes are
 * in its notebook. A section an earlier version left in the record moves to the notebook.
 * Everything outside it (the notebook, audit sections, the frontmatter bytes) is kept.
 */
export function withNotesSection(text: string, section: TranscriptNotesSection, file?: string): string {
  const note = parseNote(text, file);
  const eol = note.eol;
  const rendered = renderNotesSection(section).split('\n');
  const { notebook, record } = splitContextBody(note.body);
  const inNotebook = sectionBounds(notebook.split(/\r?\n/));
  let next: string;
  if (inNotebook) {
    const lines = notebook.split(/\r?\n/);
    const after = lines.slice(inNotebook.end);
    const body = [...lines.slice(0, inNotebook.start), ...rendered, ...(after.length > 0 ? ['', ...after] : [''])].join(eol);
    next = joinContextBody(body, record, eol);
  } else {
    const recordLines = record.split(/\r?\n/);
    const inRecord = sectionBounds(recordLines);
    const rest = inRecord ? `${[...recordLines.slice(0, inRecord.start), ...recordLines.slice(inRecord.end)].join(eol).replace(/\s+$/, '')}${eol}` : record;
    const kept = notebook.replace(/\s+$/, '');
    const body = [...(kept === '' ? [] : [kept, '']), ...rendered, ''].join(eol);
    next = joinContextBody(body, rest, eol);
  }
  // Collapse the blank lines our own insertion may double.
  return replaceBody(text, next.replace(new RegExp(`(?:${eol}){3,}`, 'g'), eol + eol));
}

/** The section of the context note on disk now; undefined when the note or the section is missing or broken. */
export async function readNotesSection(vault: Vault, contextPath: string): Promise<TranscriptNotesSection | undefined> {
  const text = await vault.readIfExists(contextPath);
  if (text === undefined) return undefined;
  try {
    return parseNotesSection(parseNote(text, vault.rel(contextPath)).body);
  } catch {
    // A frontmatter a person broke: nothing to reuse, and the write below says why.
    return undefined;
  }
}

/**
 * Rewrites the section in the context note as it is when the write happens (under the note's
 * lock, compared before replacing): a state change or a person's edit made meanwhile stays.
 */
export async function writeNotesSection(vault: Vault, contextPath: string, section: TranscriptNotesSection): Promise<void> {
  await vault.update(contextPath, (current) => {
    const text = requireText(current, contextPath);
    const next = withNotesSection(text, section, vault.rel(contextPath));
    return next === text ? UNCHANGED : next;
  });
}

import { stripThinking } from '../../agent/model/answers/strip-thinking.js';
import type { ModelRequest } from '../../agent/types.js';
import type { PartNotes } from '../../vault/notes/transcript-notes-section.js';
import type { MeetingFacts } from '../prompt.js';
import type { Material } from './materials.js';

/**
 * The one request of a summary made without tools (docs/design.md §3 step 11): instructions
 * that say there are no tools and give the summary's shape, and a message holding what the
 * agent would have read; the answer is the summary as text.
 */

export const TOOLLESS_PROMPT = `You are Meeting Assistant: you turn one finished meeting into a faithful summary note. You have no tools: the message holds everything (the meeting note with the user's notes, the agenda, the glossary, an earlier summary of the same projects, and the transcript, or notes of it by line range).
Write the summary in the structure below, in Markdown. Real names, spelled as the glossary spells them; never invent facts, owners or dates. Answer with the summary only: no preamble, no code fence, no tool call.`;

/** The summary's shape section, said for a text answer (it names write_summary's content for the agent). */
export function toollessShape(shapeSection: string): string {
  return shapeSection.replaceAll(" (write_summary's content)", '');
}

/** The transcript as the read tool shows it (header, then `cat -n` lines): whole, when it fits. */
export interface TranscriptText {
  source: string;
  text: string;
}

export interface ToollessMessage {
  facts: MeetingFacts;
  materials: readonly Material[];
  /** The whole transcript, or the notes of it (rendered by `notesText`). */
  transcript: TranscriptText;
}

export function toollessMessage({ facts, materials, transcript }: ToollessMessage): string {
  const list = (items: string[]) => (items.length > 0 ? items.join(', ') : '(none listed)');
  const lines = [
    'Summarize this meeting.',
    '',
    `Meeting note: ${facts.meetingNote}`,
    `Title: ${facts.title ?? '(none: begin your answer with a line "Title: <a short title>", then the summary)'}`,
    `Start: ${facts.startTime ?? '(unknown)'}`,
    `End: ${facts.endTime ?? '(unknown)'}`,
    `Attendees: ${list(facts.attendees)}`,
    `Projects: ${list(facts.projects)}`,
    ...(facts.template ? [facts.template] : []),
  ];
  for (const m of materials) lines.push('', `<${m.tag} source="${m.source}">`, m.text, `</${m.tag}>`);
  lines.push('', `<transcript source="${transcript.source}">`, transcript.text, '</transcript>', '', 'Write the summary now, in the structure the instructions give.');
  return lines.join('\n');
}

/** Notes of a transcript too long for the window, as the tool-less request shows them. */
export function notesText(notes: readonly PartNotes[], totalLines: number, parts: number): string {
  const head = `The transcript (${totalLines} lines) is longer than the context window holds, so it was read in ${parts} parts first; these are notes of the whole meeting, each under its line range.`;
  return [head, ...notes.map((n) => `### Lines ${n.from}–${n.to}\n${n.text.trim()}`)].join('\n\n');
}

export function toollessRequest(instructions: string, message: string, maxOutputTokens: number, signal: AbortSignal | undefined): ModelRequest {
  return { instructions, messages: [{ role: 'user', content: message }], tools: [], maxOutputTokens, ...(signal ? { signal } : {}) };
}

/**
 * The answer's text as the summary: no reasoning (`<think>` blocks, closed or not: the agent's
 * one stripper, agent/model/strip-thinking.ts), no fence around the whole; the summary is
 * taken only from here.
 */
export function answerText(content: string): string {
  // Small models often say what follows first ("Here is the summary:").
  const text = stripThinking(content).replace(/^[^#\-*\n][^\n]{0,120}:[ \t]*\r?\n(?:[ \t]*\r?\n)*(?=#|```)/, '');
  const fenced = /^```(?:markdown|md)?[ \t]*\r?\n([\s\S]*?)\r?\n```\s*$/i.exec(text.trim());
  return (fenced ? fenced[1]! : text).trim();
}

/** A leading `Title: …` line (asked for when the meeting note has none) split from the summary. */
export function splitTitle(text: string): { title?: string; body: string } {
  const m = /^\s*(?:#+\s*|\*\*)?title:?\*{0,2}:?\s*(.+?)\s*(?:\r?\n|$)/i.exec(text);
  if (!m) return { body: text };
  return { title: m[1]!.replace(/\*+$/, '').trim(), body: text.slice(m[0].length).trim() };
}

/**
 * The built-in instructions and the first user message. The prompt is product work: small
 * local models follow a short, concrete procedure far better than general advice, so it
 * says what to read, in which order, and exactly what to write.
 */

export const DEFAULT_PROMPT = `You are Meeting Assistant. You turn one finished meeting into a clear, faithful summary note, working only through the tools you are given.

How to work:
1. Read the meeting note (read_meetingnote) and the user's own notes (read_usernotes): they say what mattered to the person who took them.
2. Read the glossary (read_glossary) so you spell names, products and terms correctly.
3. Read the transcript (read_transcript). When it is long, read it in ranges of about 200 lines with "from" and "to" and go on until you reach the end; the header of each result says how many lines there are. Keep short notes of what you learned in your notebook with write_context when the meeting is long, so that nothing is lost if earlier tool results are shortened.
4. Look at the meeting's projects (list_projects, list_projectfiles, read_projectfile) when the discussion refers to project knowledge you need. Past meeting summaries of the same projects (list_past_project_meetings, read_past_project_meeting_summary, search) are read-only history: use them for context, never try to change them.
5. When the transcript makes it clear who a speaker is (for example "Speaker 2" is addressed as Bob), fix the label with override_speaker and the attendee list with add_attendee or remove_attendee. Add correctly spelled, unusual words the transcriber got wrong to the dictionary with add_dictation_word. Do this only when you are sure.
6. Write the summary with write_summary, before anything else that changes files, in the structure given at the end. Use the attendees' real names. Do not invent facts, owners or dates that the transcript and notes do not give. If the meeting note has no title, pass a short, specific title in write_summary's "title".
7. After the summary is written, update the project files when the meeting produced knowledge that belongs there (decisions, new facts, changed plans): read the file first, then change it with write_projectfile, preferring small edits (insert or replace a line range, or append) over rewriting a whole file. Only edit files that already exist unless the project clearly needs a new one. Every such change is recorded for the user.
8. When you are done, answer with one short sentence and no tool call.

If a tool answers with "Error:", read the message, correct the call and go on; do not repeat the same failing call.`;

/** The reminder sent once when the model stops without having written the summary. */
export const SUMMARY_REMINDER =
  'You have not written the summary yet. Call write_summary now with the complete summary, in the structure the instructions give. The summary is only saved through that tool.';

export interface ProjectAgentsFile {
  project: string;
  content: string;
}

/**
 * The instructions: the configured prompt when non-blank, else the default, then the summary's
 * shape; then, when any bound project has an AGENTS.md, a `---` line, a `projects:` line, and
 * per such project (in the meeting's order) `# <Project>` followed by the file's content
 * (DESIGN section 3 step 1).
 */
export function buildInstructions(configuredPrompt: string, agentsFiles: ProjectAgentsFile[], shapeSection = ''): string {
  const prompt = configuredPrompt.trim() ? configuredPrompt : DEFAULT_PROMPT;
  // The summary's shape (summary-shape.ts) follows the procedure, whichever prompt that is.
  const base = shapeSection ? `${prompt.replace(/\s+$/, '')}\n\n${shapeSection}` : prompt;
  if (agentsFiles.length === 0) return base;
  const lines = [base.replace(/\s+$/, ''), '---', 'projects:'];
  for (const file of agentsFiles) lines.push(`# ${file.project}`, file.content.replace(/\s+$/, ''));
  return lines.join('\n') + '\n';
}

export interface MeetingFacts {
  meetingNote: string;
  title?: string;
  startTime?: string;
  endTime?: string;
  attendees: string[];
  projects: string[];
  /** From summary-shape.ts: the template line and the unnamed speaker labels. */
  template?: string;
  speakers?: string[];
}

/** The first user message names the meeting; the content itself is read through tools. */
export function firstUserMessage(facts: MeetingFacts): string {
  const list = (items: string[]) => (items.length > 0 ? items.join(', ') : '(none listed)');
  return [
    'Summarize this meeting.',
    '',
    `Meeting note: ${facts.meetingNote}`,
    `Title: ${facts.title ?? '(none: supply one with write_summary)'}`,
    `Start: ${facts.startTime ?? '(unknown)'}`,
    `End: ${facts.endTime ?? '(unknown)'}`,
    `Attendees: ${list(facts.attendees)}`,
    ...(facts.speakers ?? []),
    `Projects: ${list(facts.projects)}`,
    ...(facts.template ? [facts.template] : []),
    '',
    'Read the meeting note, the user notes, the glossary and the transcript through the tools, then write the summary with write_summary.',
  ].join('\n');
}

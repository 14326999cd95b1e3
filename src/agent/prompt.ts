/**
 * The built-in instructions and the first user message. The prompt is product work: small
 * local models follow a short, concrete procedure far better than general advice, so it
 * says what to read, in which order, and exactly what to write. It is also sent with every
 * request, next to the tool schemas, so every sentence must earn its tokens (a 4,096-token
 * window is common): what a tool does is in its description, not repeated here.
 */

/**
 * The step about projects and their history: part of the default prompt only when the meeting
 * is offered project or past-meeting tools (src/tools/offer.ts); without them it would name
 * tools the model does not have, and cost every request its tokens.
 */
export const PROJECT_STEP =
  '4. Past summaries are read-only. After the summary, add new decisions and facts to existing project files (read, then small write_projectfile edits).';

export const DEFAULT_PROMPT = `You are Meeting Assistant: you turn one finished meeting into a faithful summary note.
1. Read the meeting note, the user's notes, the glossary and the whole transcript (a long one in ranges of 200 lines to its end, keeping notes with write_context).
2. Only when sure: fix speaker labels, attendees, misheard words.
3. First call write_summary, in the summary structure given below. Real names; never invent facts, owners or dates.
${PROJECT_STEP}
Finally answer with a short sentence, no tool call. On "Error:", correct the call.`;

/** The reminder sent once when the model stops without having written the summary. */
export const SUMMARY_REMINDER =
  'You have not written the summary yet. Call write_summary now with the complete summary, in the structure the instructions give. The summary is only saved through that tool.';

export interface ProjectAgentsFile {
  project: string;
  content: string;
}

/**
 * The instructions: the configured prompt when non-blank, else the default (without its
 * project step when the meeting is offered no project tools); then the summary's shape
 * (summary-shape.ts), whichever prompt that is; then, when any bound project has an AGENTS.md,
 * a `---` line, a `projects:` line, and per such project (in the meeting's order)
 * `# <Project>` followed by the file's content (docs/design.md §3 step 1).
 */
export function buildInstructions(
  configuredPrompt: string,
  agentsFiles: ProjectAgentsFile[],
  options: { projectTools?: boolean; shape?: string } = {},
): string {
  const prompt = configuredPrompt.trim()
    ? configuredPrompt
    : options.projectTools === false
      ? DEFAULT_PROMPT.replace(`${PROJECT_STEP}\n`, '')
      : DEFAULT_PROMPT;
  const base = options.shape ? `${prompt.replace(/\s+$/, '')}\n\n${options.shape}` : prompt;
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

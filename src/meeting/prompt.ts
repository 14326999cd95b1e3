/**
 * The built-in instructions and the first user message. The prompt is product work: small
 * local models follow a short, concrete procedure far better than general advice, so it
 * says what to read, in which order, and exactly what to write. It is also sent with every
 * request, next to the tool schemas, so every sentence must earn its tokens (a 4,096-token
 * window is common): what a tool does is in its description, not repeated here.
 */

/**
 * The summary's procedure, naming only the meeting's own tools. Where the project and history
 * tools are offered in the same conversation (the rule, docs/design.md §3 step 9) PROJECT_STEP
 * is added; a run in phases updates the project files in a phase of its own (PROJECT_PROMPT).
 */
export const DEFAULT_PROMPT = `You are Meeting Assistant: you turn one finished meeting into a faithful summary note.
1. Read the meeting note, the user's notes, the glossary and the whole transcript (a long one in ranges of 200 lines to its end, keeping notes with write_context).
2. Only when sure: fix speaker labels, attendees, misheard words.
3. Call write_summary, in the summary structure given below. Real names; never invent facts, owners or dates.
Finally answer with a short sentence, no tool call. On "Error:", correct the call.`;

/**
 * The step about past meetings, part of the default prompt only when the summary's
 * conversation is offered the past-meeting tools (a meeting whose projects have past summaries
 * but no folder to update; src/tools/offered-tools.ts): without them it would name tools the model
 * does not have, and cost every request its tokens.
 */
export const PAST_STEP = '4. Past summaries are read-only history; consult them only when the meeting refers to earlier ones.';

/**
 * The step about projects and their history, part of the default prompt when the project tools
 * are offered with the summary's (one conversation): the summary first, then the project update
 * (docs/design.md §3 step 7); the project files and past summaries may be read before it.
 */
export const PROJECT_STEP =
  '4. Project files and past summaries (read-only) are context you may read first. After the summary, add its new decisions and facts to existing project files: small write_projectfile edits (append, or insert/replace lines you read).';

/** The reminder sent once when the model stops without having written the summary. */
export const SUMMARY_REMINDER =
  'You have not written the summary yet. Call write_summary now with the complete summary, in the structure the instructions give. The summary is only saved through that tool.';

/**
 * The instructions of a run's project phase (docs/design.md §3 step 9): the summary is written
 * and handed on in the first message; the model now has only the project and history tools.
 */
export const PROJECT_PROMPT = `You are Meeting Assistant. A finished meeting's summary is written (in the message below); now bring the meeting's projects up to date.
1. Find the files the meeting concerns (list_projectfiles, read_projectfile); past summaries (read-only) and search show what is known; read_transcript has the meeting's own words.
2. Add the new decisions and facts the summary states to existing project files: small write_projectfile edits (append, or insert/replace lines you read). Nothing new: write nothing.
Finally answer with a short sentence, no tool call. On "Error:", correct the call.`;

/**
 * Each phrase of the built-in project texts (PROJECT_STEP, PROJECT_PROMPT) that names past
 * summaries, as it reads for a meeting offered no past-meeting tools (its projects have no past
 * summary yet; src/tools/offered-tools.ts): one table for the conversation with every tool and
 * for the project phase, so that neither names a tool it is not offered (docs/design.md §3 step 9).
 */
const PAST_PHRASES: readonly (readonly [withPast: string, withoutPast: string])[] = [
  ['Project files and past summaries (read-only) are', 'Project files are'],
  ['; past summaries (read-only) and search show what is known;', '; search shows what is known;'],
];

/** A built-in project text without its past-meeting phrases. */
function withoutPast(text: string): string {
  return PAST_PHRASES.reduce((out, [withPast, without]) => out.replace(withPast, without), text);
}

/** PROJECT_STEP for a meeting offered no past-meeting tools: it names none. */
export const PROJECT_STEP_NO_PAST = withoutPast(PROJECT_STEP);

/** PROJECT_PROMPT for a run in phases whose project phase is offered no past-meeting tools: it names none. */
export const PROJECT_PROMPT_NO_PAST = withoutPast(PROJECT_PROMPT);

/** A configured prompt describes the whole run; the project phase tells the model where it is. */
export const PROJECT_PHASE_NOTE =
  'This step: the summary is already written (in the message below). Only update the project files now; no other tool is available.';

/**
 * Told when the notebook starts with a note made ahead's `## Before the meeting` section
 * (docs/design.md §12): last time's decisions and open items are context, and a summary that
 * reported them as said would invent. Only then: every other meeting's requests stay as short.
 */
export const BEFORE_MEETING_FACT =
  'Your notebook (read_context) starts with "Before the meeting", written before the meeting from earlier summaries and the agenda: it is no record of what was said; summarize only the transcript and user notes.';

/** Told in the summary phase's first message, so the model does not look for project tools. */
export const PROJECTS_LATER = 'The project files are updated in a next step, after the summary.';

export interface ProjectAgentsFile {
  project: string;
  content: string;
}

/**
 * The instructions: the configured prompt when non-blank, else the default (with its project
 * step when the summary's conversation is offered the project tools, else its past step when it
 * is offered the past-meeting tools); then the summary's shape
 * (summary-shape.ts), whichever prompt that is; then, when any bound project has an AGENTS.md,
 * a `---` line, a `projects:` line, and per such project (in the meeting's order)
 * `# <Project>` followed by the file's content (docs/design.md §3 step 1).
 */
export function buildInstructions(
  configuredPrompt: string,
  agentsFiles: ProjectAgentsFile[],
  options: { pastTools?: boolean; projectTools?: boolean; shape?: string } = {},
): string {
  const step = options.projectTools ? (options.pastTools ? PROJECT_STEP : PROJECT_STEP_NO_PAST) : options.pastTools ? PAST_STEP : undefined;
  const prompt = configuredPrompt.trim() ? configuredPrompt : step ? withStep(DEFAULT_PROMPT, step) : DEFAULT_PROMPT;
  const base = options.shape ? `${prompt.replace(/\s+$/, '')}\n\n${options.shape}` : prompt;
  if (agentsFiles.length === 0) return base;
  const lines = [base.replace(/\s+$/, ''), '---', 'projects:'];
  for (const file of agentsFiles) lines.push(`# ${file.project}`, file.content.replace(/\s+$/, ''));
  return lines.join('\n') + '\n';
}

/** The default prompt with `step` before its closing line. */
function withStep(prompt: string, step: string): string {
  const at = prompt.lastIndexOf('\nFinally');
  return `${prompt.slice(0, at)}\n${step}${prompt.slice(at)}`;
}

/**
 * The project phase's instructions: PROJECT_PROMPT (PROJECT_PROMPT_NO_PAST unless the phase is
 * offered the past-meeting tools), or the configured prompt and PROJECT_PHASE_NOTE; then the
 * AGENTS.md files.
 */
export function buildProjectInstructions(configuredPrompt: string, agentsFiles: ProjectAgentsFile[], options: { pastTools?: boolean } = {}): string {
  const builtIn = options.pastTools ? PROJECT_PROMPT : PROJECT_PROMPT_NO_PAST;
  const prompt = configuredPrompt.trim() ? `${configuredPrompt.replace(/\s+$/, '')}\n\n${PROJECT_PHASE_NOTE}` : builtIn;
  return buildInstructions(prompt, agentsFiles);
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
  /** The run has a project phase after the summary (PROJECTS_LATER is said). */
  projectsLater?: boolean;
  /** The context note holds a `## Before the meeting` section (BEFORE_MEETING_FACT is said). */
  beforeMeeting?: boolean;
}

/**
 * The project phase's first message: the meeting, where its summary is, and the summary as
 * written (or its first part, `summary` being already cut to the room by the caller).
 */
export function projectPhaseMessage(facts: MeetingFacts & { summaryNote: string }, summary: string): string {
  return [
    "Update this meeting's project files from its summary.",
    '',
    `Meeting note: ${facts.meetingNote}`,
    `Title: ${facts.title ?? '(none)'}`,
    `Start: ${facts.startTime ?? '(unknown)'}`,
    `Projects: ${facts.projects.length > 0 ? facts.projects.join(', ') : '(none listed)'}`,
    `Summary note: ${facts.summaryNote}`,
    '',
    '<summary>',
    summary.replace(/\s+$/, ''),
    '</summary>',
  ].join('\n');
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
    ...(facts.beforeMeeting ? [BEFORE_MEETING_FACT] : []),
    ...(facts.projectsLater ? [PROJECTS_LATER] : []),
  ].join('\n');
}

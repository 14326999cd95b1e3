import path from 'node:path';
import { readConfinedText } from '../vault/files/real-place.js';
import type { AppConfig } from '../config.js';
import type { MeetingArtifacts } from '../vault/notes/meeting.js';
import { guessLanguage } from '../vault/notes/summary-sections.js';
import { hasBeforeMeetingSection } from '../vault/notes/before-meeting-label.js';
import { resolveTemplate } from '../vault/format/template.js';
import { transcriptSpeech, unnamedSpeakers } from '../vault/notes/transcript.js';
import type { Vault } from '../vault/files/vault.js';
import { readAgentsFile } from '../vault/files/project-folder.js';
import { buildInstructions, buildProjectInstructions, firstUserMessage, type ProjectAgentsFile, projectPhaseMessage } from './prompt.js';
import { type LanguageChoice, type SummaryShape, summaryShapeSection, templateFact, unnamedSpeakersFact } from './summary-shape.js';

/** What a run's conversation starts from: the vault and the configuration. */
export interface ConversationDeps {
  vault: Vault;
  config: AppConfig;
}

/** How a run's conversation starts, and (for a run in phases) how its project phase starts. */
export interface ConversationStart {
  instructions: string;
  firstMessage: string;
  /** Present when the run has a project phase after the summary (docs/design.md §3 step 9). */
  projects?: {
    instructions: string;
    /** The project phase's first message, given the summary as it is to be shown. */
    firstMessage(summary: string): string;
  };
}

/** Both ways a run may start; the pipeline picks one once (run-shape.ts). */
export interface ConversationStarts {
  /** One conversation with every offered tool: the rule. */
  whole: ConversationStart;
  /** In phases (the summary, then the project files); absent without project tools to phase. */
  phased?: ConversationStart & { projects: NonNullable<ConversationStart['projects']> };
}

/**
 * The instructions (the prompt, the summary's shape, the projects' AGENTS.md) and the first
 * user message (the meeting, its unnamed speakers, its template), for one conversation and,
 * when `tools.projectTools`, for a run in phases too: the meeting is read once for both, the
 * choice between them needing the instructions' size (docs/design.md §3 step 9). In phases the
 * project files are updated in a phase of their own, with its own instructions (AGENTS.md in
 * both: a project's instructions may be about the summary as well). The built-in prompts name
 * the project and past-meeting tools only where their conversation is offered them: the one
 * conversation's and the project phase's alike (prompt.ts PAST_PHRASES).
 */
export async function conversationStarts(
  deps: ConversationDeps,
  artifacts: MeetingArtifacts,
  tools: { pastTools?: boolean; projectTools?: boolean } = {},
): Promise<ConversationStarts> {
  const { vault } = deps;
  const prompt = deps.config.settings.Agent.InitialPrompt;
  // Read once for the shape (the language it is spoken in) and the speaker labels; a
  // transcript that cannot be read here fails later, in the agent's own read.
  // Confined at each read (docs/design.md §10): the transcript may have become a link to the token since the meeting was resolved.
  const transcript = await readConfinedText(vault, artifacts.transcriptPath).catch(() => undefined);
  const shape = await summaryShapeOf(deps, artifacts, transcript);
  const shapeSection = summaryShapeSection(shape);
  const agentsFiles = await readAgentsFiles(deps, artifacts);
  // A note made ahead (docs/design.md §12): the agent is told its first section is no record of the meeting.
  const context = await vault.readIfExists(artifacts.contextPath).catch(() => undefined);
  const beforeMeeting = context !== undefined && hasBeforeMeetingSection(context);
  const facts = {
    meetingNote: vault.rel(artifacts.meetingPath),
    title: artifacts.title,
    startTime: artifacts.startTime,
    endTime: artifacts.endTime,
    attendees: artifacts.attendees,
    projects: artifacts.projects,
  };
  const firstMessage = (projectsLater: boolean) =>
    firstUserMessage({
      ...facts,
      template: templateFact(shape.template),
      speakers: unnamedSpeakersFact(transcript === undefined ? [] : unnamedSpeakers(transcript, artifacts.attendees)),
      projectsLater,
      beforeMeeting,
    });
  const whole = {
    instructions: buildInstructions(prompt, agentsFiles, { pastTools: tools.pastTools === true, projectTools: tools.projectTools === true, shape: shapeSection }),
    firstMessage: firstMessage(false),
  };
  if (tools.projectTools !== true) return { whole };
  const summaryNote = vault.rel(artifacts.summaryPath);
  return {
    whole,
    phased: {
      instructions: buildInstructions(prompt, agentsFiles, { shape: shapeSection }),
      firstMessage: firstMessage(true),
      projects: {
        instructions: buildProjectInstructions(prompt, agentsFiles, { pastTools: tools.pastTools === true }),
        firstMessage: (summary) => projectPhaseMessage({ ...facts, summaryNote }, summary),
      },
    },
  };
}

/**
 * What a summary made without tools starts from (docs/design.md §3 step 11): the summary's shape
 * section, the projects' AGENTS.md files, and the template line, read as the agent's would be.
 */
export async function summaryBrief(deps: ConversationDeps, artifacts: MeetingArtifacts): Promise<{ shape: string; agentsFiles: ProjectAgentsFile[]; template: string }> {
  const transcript = await readConfinedText(deps.vault, artifacts.transcriptPath).catch(() => undefined);
  const shape = await summaryShapeOf(deps, artifacts, transcript);
  return { shape: summaryShapeSection(shape), agentsFiles: await readAgentsFiles(deps, artifacts), template: templateFact(shape.template) };
}

/**
 * The summary's shape for this meeting: its `template`, else Agent.DefaultTemplate, else the
 * built-in structure; its `language`, else Agent.Language, else the transcript's (named when
 * its words make it clear). A template that was asked for and cannot be read is a
 * TemplateError: the run fails with a report naming it.
 */
async function summaryShapeOf(deps: ConversationDeps, artifacts: MeetingArtifacts, transcript: string | undefined): Promise<SummaryShape> {
  const { vault } = deps;
  const agent = deps.config.settings.Agent;
  const link = artifacts.template ?? (agent.DefaultTemplate.trim() || undefined);
  const template = link && (await resolveTemplate(vault, link, artifacts.template ? 'meeting' : 'config'));
  const heard = transcript === undefined ? undefined : guessLanguage(transcriptSpeech(transcript));
  const language: LanguageChoice = artifacts.language
    ? { value: artifacts.language, source: 'meeting' }
    : agent.Language.trim()
      ? { value: agent.Language.trim(), source: 'config' }
      : heard
        ? { value: heard, source: 'transcript' }
        : undefined;
  return {
    ...(template ? { template: { name: template.name, rel: vault.rel(template.path), body: template.body } } : {}),
    language,
    taskFormat: agent.TaskFormat,
  };
}

async function readAgentsFiles(deps: ConversationDeps, artifacts: MeetingArtifacts): Promise<ProjectAgentsFile[]> {
  const projectsRoot = deps.config.layout.folders.Projects;
  const files: ProjectAgentsFile[] = [];
  for (const project of artifacts.projects) {
    // Only direct subfolders: a project name is never a path.
    if (!project || project.includes('/') || project.includes('\\') || project === '.' || project === '..') continue;
    // A project folder linked outside the vault is no project (docs/design.md §4).
    const content = await readAgentsFile(deps.vault, path.join(projectsRoot, project));
    if (content !== undefined) files.push({ project, content });
  }
  return files;
}

import type { Clock } from '../../clock.js';
import type { AppConfig } from '../../config.js';
import type { Logger } from '../../log.js';
import { MeetingAssistantError } from '../../errors.js';
import { AgentError } from '../../agent/loop.js';
import { type EndpointGate, type Sleep, withRetry } from '../../agent/model/retry.js';
import { countTokens, fixedTokens } from '../../agent/window/tokens.js';
import type { ModelClient } from '../../agent/types.js';
import { writeSummary } from '../../tools/meeting/meeting.js';
import { createToolRegistry } from '../../tools/registry.js';
import type { ToolBinding } from '../../tools/binding/types.js';
import { readTextFile } from '../../tools/define/read.js';
import { catLine, splitLines } from '../../vault/format/lines.js';
import type { Vault } from '../../vault/files/vault.js';
import { summaryBrief } from '../conversation-start.js';
import { buildInstructions } from '../prompt.js';
import { type PartProgress, REPLY_RESERVE, type WindowRoom, notesForLongTranscript, wholeReadTokens } from '../long-transcript/notes-pass.js';
import { causeAdvice, causeSentence, type ToollessCause } from './cause.js';
import { gatherMaterials, type Material } from './materials.js';
import { answerText, notesText, splitTitle, TOOLLESS_PROMPT, toollessMessage, toollessRequest, toollessShape } from './request.js';

/**
 * A summary made without tools (docs/design.md §2 "Every model summarizes", §3 step 11): the
 * daemon gives the model what the agent would have read, the transcript whole or through the
 * notes of §3 step 9 where it does not fit, asks for the summary as text in the meeting's
 * template, and writes it through `write_summary`'s own code (frontmatter, title rule, action
 * items, `.trash/` copy). Nothing else is written: no project file, speaker or dictionary change.
 * Returns the context note's section saying so, why, and what would give the full agent.
 */

export interface ToollessRun {
  vault: Vault;
  config: AppConfig;
  /** The run's tool binding: its meeting, its run state (summaryWritten), its caches. */
  binding: ToolBinding;
  model: ModelClient;
  retry: { attempts: number; delayMs: number; sleep?: Sleep | undefined; stopWaiting?: AbortSignal | undefined; endpoint?: EndpointGate | undefined };
  log: Logger;
  room: WindowRoom;
  signal?: AbortSignal | undefined;
  now: Clock;
  cause: ToollessCause;
  onPart?: (part: PartProgress) => void;
}

/** The gathered materials may take this share of the request room; the transcript (or its notes) has the rest. */
const MATERIALS_SHARE = 1 / 3;

export async function summarizeWithoutTools(run: ToollessRun): Promise<string> {
  const { vault, binding, log, room, cause } = run;
  const meeting = binding.meeting;
  const model = run.config.settings.Endpoint.Model;
  log.warn({ cause: cause.kind }, `summarizing without tools: ${causeSentence(cause, model)}`);
  const brief = await summaryBrief({ vault, config: run.config }, meeting);
  const instructions = buildInstructions(TOOLLESS_PROMPT, brief.agentsFiles, { shape: toollessShape(brief.shape) });
  const facts = {
    meetingNote: vault.rel(meeting.meetingPath),
    title: meeting.title,
    startTime: meeting.startTime,
    endTime: meeting.endTime,
    attendees: meeting.attendees,
    projects: meeting.projects,
    template: brief.template,
  };
  const source = vault.rel(meeting.transcriptPath);
  const framing = fixedTokens({ instructions, tools: [] }) + countTokens(toollessMessage({ facts, materials: [], transcript: { source, text: '' } }));
  const materials = await gatherMaterials(binding, Math.floor((room.target - framing - REPLY_RESERVE) * MATERIALS_SHARE));
  const carried = framing + countTokens(toollessMessage({ facts, materials, transcript: { source, text: '' } }));
  const transcript = await transcriptText(run, carried);
  const message = toollessMessage({ facts, materials, transcript: { source, text: transcript.text } });

  const answer = await ask(run, instructions, message);
  const { title, body } = meeting.title ? { title: undefined, body: answer.text } : splitTitle(answer.text);
  // write_summary's own code path: the same note a model with tools would have made.
  const written = await createToolRegistry(binding, [writeSummary]).call({
    id: 'toolless_summary',
    name: 'write_summary',
    arguments: JSON.stringify({ content: body, ...(title ? { title } : {}) }),
  });
  if (written.isError) throw new AgentError('no-summary', `the summary made without tools could not be written: ${written.content.replace(/^Error: /, '')}`);
  log.info({ summary: vault.rel(meeting.summaryPath), parts: transcript.parts }, 'summary made without tools written');
  return contextSection(run, materials, transcript.parts, answer.cut);
}

/** The transcript whole when it fits the room left, else the notes of its parts (docs/design.md §3 step 9). */
async function transcriptText(run: ToollessRun, carried: number): Promise<{ text: string; parts?: number }> {
  const { vault, binding, log, room } = run;
  const meeting = binding.meeting;
  let parts: number | undefined;
  const notes = await notesForLongTranscript({
    vault,
    meeting,
    model: run.model,
    retry: run.retry,
    log,
    room,
    carried,
    ...(run.signal ? { signal: run.signal } : {}),
    onPart: (part) => run.onPart?.(part),
    render: (all, totalLines, count) => {
      parts = count;
      return notesText(all, totalLines, count);
    },
  });
  if (notes !== undefined) return { text: notes, ...(parts !== undefined ? { parts } : {}) };
  const text = await readTextFile(vault, meeting.transcriptPath);
  if (text === undefined) throw new MeetingAssistantError(`the transcript ${vault.rel(meeting.transcriptPath)} does not exist`, true);
  const label = vault.rel(meeting.transcriptPath);
  const lines = splitLines(text);
  // Over the notes pass's hundred parts: not read into notes, and too long to send whole.
  if (wholeReadTokens({ label, lines }) > room.target - carried) {
    throw new MeetingAssistantError(`the transcript ${label} is too long to summarize without tools in a ${room.window}-token window`, true);
  }
  return { text: [`${label} (lines 1-${lines.length} of ${lines.length})`, ...lines.map((l, i) => catLine(i + 1, l))].join('\n') };
}

/** The summary request, asked once more when the answer holds no summary (all reasoning, or empty). */
async function ask(run: ToollessRun, instructions: string, message: string): Promise<{ text: string; cut: boolean }> {
  const maxOutput = run.room.maxOutputTokens;
  const policy = { ...run.retry, log: run.log, ...(run.signal ? { signal: run.signal } : {}), label: 'summary without tools' };
  for (const nudge of ['', '\n\nAnswer now with the summary itself, as Markdown text.']) {
    const response = await withRetry(() => run.model.complete(toollessRequest(instructions, message + nudge, maxOutput, run.signal)), policy);
    const text = answerText(response.content);
    if (text !== '') return { text, cut: response.finishReason === 'length' };
    run.log.warn('the model answered without a summary (only reasoning, or nothing): asking once more');
  }
  throw new AgentError('no-summary', 'the model answered twice without a summary, even without tools');
}

function contextSection(run: ToollessRun, materials: readonly Material[], parts: number | undefined, cut: boolean): string {
  const { cause } = run;
  const given = [...materials.map((m) => `${m.tag.replace('_', ' ')} (${m.source})`), parts === undefined ? 'the whole transcript' : `notes of the transcript read in ${parts} parts`];
  return [
    `## Made without tools (${run.now().toISOString()})`,
    '',
    `This summary was made without tools: ${causeSentence(cause, run.config.settings.Endpoint.Model)}. ` +
      `The daemon gave the model ${given.join(', ')}, and asked for the summary as text. ` +
      'Without tools nothing else was read or changed: no project file, speaker label, attendee or dictionary entry.' +
      (cut ? ' The answer reached the output limit (ContextWindow.MaxOutputTokens), so the summary may end early.' : ''),
    '',
    `For the full agent, which reads what it needs and keeps the projects up to date: ${causeAdvice(cause)}`,
  ].join('\n');
}

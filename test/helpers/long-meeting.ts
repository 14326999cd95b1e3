import type { Message, ToolSchema } from '../../src/agent/types.js';
import { catLine } from '../../src/vault/format/lines.js';
import { transcriptLines } from './long-meeting-text.mjs';

export { transcriptLines };

/**
 * A long meeting and a recorded agent conversation about it, generated deterministically, for
 * the context-window tests: a 3-hour transcript (~30,000 words) read in ranges, notebook
 * writes, project file reads and a write_summary call, as a real run produces them.
 */

/** The transcript note: frontmatter then the lines. */
export function transcriptNote(words = 30_000, seed = 7): string[] {
  return ['---', 'meeting: "[[2024-05-02 1400 Quarterly planning]]"', 'state: finished', '---', '', ...transcriptLines(words, seed)];
}

/** A read result as the read tools format it: header then `cat -n` lines. */
export function readResult(path: string, lines: readonly string[], from: number, to: number): string {
  const last = Math.min(to, lines.length);
  const out = [`${path} (lines ${from}-${last} of ${lines.length})`];
  for (let n = from; n <= last; n++) out.push(catLine(n, lines[n - 1] ?? ''));
  return out.join('\n');
}

const range = { type: 'integer', minimum: 1 };
/** Schemas shaped like the real ones (docs/design.md §4), for counting. */
export const TOOL_SCHEMAS: ToolSchema[] = [
  { name: 'read_meetingnote', description: 'The whole meeting note, frontmatter included. from/to: inclusive 1-based line range.', parameters: { type: 'object', properties: { from: range, to: range }, additionalProperties: false } },
  { name: 'read_transcript', description: 'The transcript note, whole or the inclusive 1-based line range from-to. Read long transcripts in ranges of about 200 lines.', parameters: { type: 'object', properties: { from: range, to: range }, additionalProperties: false } },
  { name: 'read_usernotes', description: "The meeting note's body (no frontmatter).", parameters: { type: 'object', properties: { from: range, to: range }, additionalProperties: false } },
  { name: 'read_glossary', description: 'The glossary; a missing file reads as empty.', parameters: { type: 'object', properties: { from: range, to: range }, additionalProperties: false } },
  { name: 'write_context', description: 'Write the context note body: overwrite it, replace lines from-to, or insert before line.', parameters: { type: 'object', properties: { content: { type: 'string' }, mode: { type: 'string', enum: ['overwrite', 'replace', 'insert'] }, from: range, to: range, line: range }, required: ['content', 'mode'], additionalProperties: false } },
  { name: 'read_projectfile', description: 'A file of an existing project, whole or a line range.', parameters: { type: 'object', properties: { project: { type: 'string' }, path: { type: 'string' }, from: range, to: range }, required: ['project', 'path'], additionalProperties: false } },
  { name: 'write_summary', description: "Write this meeting's summary note body; the daemon writes the frontmatter.", parameters: { type: 'object', properties: { content: { type: 'string' }, title: { type: 'string' } }, required: ['content'], additionalProperties: false } },
];

export const INSTRUCTIONS =
  'You are Meeting Assistant. You turn one finished meeting into a clear, faithful summary note, working only through the tools you are given. ' +
  'Read the meeting note, the user notes, the glossary and the transcript (in ranges of about 200 lines when it is long), keep notes with write_context, ' +
  'then write the summary with write_summary (## Summary, ## Decisions, ## Next steps) and update project files.';

export const FIRST_MESSAGE = [
  'Summarize this meeting.',
  '',
  'Meeting note: Meetings/2024-05-02 1400 Quarterly planning.md',
  'Title: Quarterly planning',
  'Start: 2024-05-02T14:00:00+02:00',
  'End: 2024-05-02T17:05:00+02:00',
  'Attendees: Alice Martin, Bob Chen, Carol Diaz, Dan Okafor',
  'Projects: Billing, Platform',
].join('\n');

const TRANSCRIPT_PATH = 'Meetings/Transcripts/2024-05-02 1400 Quarterly planning.md';

export interface RecordedOptions {
  /** Transcript ranges read (each `linesPerRange` lines). */
  ranges?: number;
  linesPerRange?: number;
  /** End with the write_summary call and its result. */
  summary?: boolean;
  words?: number;
}

/**
 * A conversation as a run records it: meeting note, user notes, glossary, the transcript in
 * ranges with a notebook entry after every second range, a project file, then (optionally)
 * the summary. Call ids are unique; every call is answered.
 */
export function recordedConversation(options: RecordedOptions = {}): { instructions: string; messages: Message[]; tools: ToolSchema[] } {
  const lines = transcriptNote(options.words ?? 30_000);
  const per = options.linesPerRange ?? 120;
  const ranges = options.ranges ?? 6;
  const messages: Message[] = [{ role: 'user', content: FIRST_MESSAGE }];
  let id = 0;
  const call = (name: string, args: object, result: string, text = '') => {
    const callId = `call_${++id}`;
    messages.push({ role: 'assistant', content: text, toolCalls: [{ id: callId, name, arguments: JSON.stringify(args) }] });
    messages.push({ role: 'tool', toolCallId: callId, name, content: result });
  };
  call('read_meetingnote', {}, [
    'Meetings/2024-05-02 1400 Quarterly planning.md (lines 1-12 of 12)',
    ...['---', 'title: Quarterly planning', 'start_time: 2024-05-02T14:00:00+02:00', 'end_time: 2024-05-02T17:05:00+02:00', 'attendees: [Alice Martin, Bob Chen, Carol Diaz, Dan Okafor]', 'projects: [Billing, Platform]', '---', '', '## Agenda', '- Q3 release', '- Migration', '- Budget'].map((l, i) => catLine(i + 1, l)),
  ].join('\n'));
  // Two calls answered together: one group with two results.
  const a = `call_${++id}`;
  const b = `call_${++id}`;
  messages.push({
    role: 'assistant',
    content: 'I will read the user notes and the glossary first.',
    toolCalls: [
      { id: a, name: 'read_usernotes', arguments: '{}' },
      { id: b, name: 'read_glossary', arguments: '{}' },
    ],
  });
  messages.push({ role: 'tool', toolCallId: a, name: 'read_usernotes', content: 'Meetings/2024-05-02 1400 Quarterly planning.md (lines 1-4 of 4)\n     1\t## Agenda\n     2\t- Q3 release\n     3\t- Migration\n     4\t- Budget' });
  messages.push({ role: 'tool', toolCallId: b, name: 'read_glossary', content: 'Meetings/Glossary.md (lines 1-3 of 3)\n     1\tPG16: PostgreSQL 16\n     2\tBFF: backend for frontend\n     3\tSLO: service level objective' });
  for (let r = 0; r < ranges; r++) {
    const from = r * per + 1;
    const to = from + per - 1;
    call('read_transcript', { from, to }, readResult(TRANSCRIPT_PATH, lines, from, to));
    if (r % 2 === 1) {
      call(
        'write_context',
        { mode: 'insert', line: 1, content: `- Lines ${from - per}-${to}: billing release behind a flag; Alice owns the rollback plan (Friday); PG16 schema freeze.` },
        'Context note body updated (lines 1-1 of 1).',
        `Notes on lines ${from - per}-${to} saved.`,
      );
    }
  }
  call('read_projectfile', { project: 'Billing', path: 'Roadmap.md' }, [
    'Projects/Billing/Roadmap.md (lines 1-6 of 6)',
    ...['# Billing roadmap', '', '- Q3: usage-based pricing', '- Q3: CSV export', '- Q4: EU data residency', '- Legacy v1 API: sunset planned'].map((l, i) => catLine(i + 1, l)),
  ].join('\n'));
  if (options.summary) {
    call(
      'write_summary',
      { content: '## Summary\nThe team planned Q3.\n\n## Decisions\n- Ship billing behind a flag.\n\n## Next steps\n- Alice: rollback plan by Friday.' },
      'Summary written to Meetings/Summaries/2024-05-02 1400 Quarterly planning.md.',
    );
  }
  return { instructions: INSTRUCTIONS, messages, tools: TOOL_SCHEMAS };
}

const IM_START = '\u0000S\u0000';
const IM_END = '\u0000E\u0000';

/**
 * A request as Qwen's chat template renders it (ChatML with the tools preamble): the exact
 * text a local Qwen server tokenizes. `<|im_start|>`/`<|im_end|>` are written as markers that
 * `exactTemplateTokens` counts as one token each, as the model's vocabulary does.
 */
export function renderChatMl(request: { instructions: string; messages: readonly Message[]; tools: readonly ToolSchema[] }): string {
  let system = request.instructions;
  if (request.tools.length > 0) {
    const tools = request.tools
      .map((t) => JSON.stringify({ type: 'function', function: { name: t.name, description: t.description, parameters: t.parameters } }))
      .join('\n');
    system +=
      '\n\n# Tools\n\nYou may call one or more functions to assist with the user query.\n\n' +
      `You are provided with function signatures within <tools></tools> XML tags:\n<tools>\n${tools}\n</tools>\n\n` +
      'For each function call, return a json object with function name and arguments within <tool_call></tool_call> XML tags:\n' +
      '<tool_call>\n{"name": <function-name>, "arguments": <args-json-object>}\n</tool_call>';
  }
  const out = [`${IM_START}system\n${system}${IM_END}`];
  const messages = request.messages;
  for (let i = 0; i < messages.length; i++) {
    const m = messages[i]!;
    if (m.role === 'user') out.push(`${IM_START}user\n${m.content}${IM_END}`);
    else if (m.role === 'assistant') {
      const calls = (m.toolCalls ?? []).map((c) => `<tool_call>\n{"name": "${c.name}", "arguments": ${c.arguments}}\n</tool_call>`);
      out.push(`${IM_START}assistant\n${[m.content, ...calls].filter(Boolean).join('\n')}${IM_END}`);
    } else if (m.role === 'tool') {
      // Consecutive results share one user turn.
      const results: string[] = [];
      for (; i < messages.length && messages[i]!.role === 'tool'; i++) {
        results.push(`<tool_response>\n${(messages[i] as { content: string }).content}\n</tool_response>`);
      }
      i--;
      out.push(`${IM_START}user\n${results.join('\n')}${IM_END}`);
    }
  }
  out.push(`${IM_START}assistant\n`);
  return out.join('\n');
}

/** Tokens of `renderChatMl(request)` with each start/end marker counted as the single token it is. */
export function exactTemplateTokens(
  request: { instructions: string; messages: readonly Message[]; tools: readonly ToolSchema[] },
  count: (text: string) => number,
): number {
  const text = renderChatMl(request);
  const markers = text.split(IM_START).length - 1 + (text.split(IM_END).length - 1);
  return count(text.split(IM_START).join('').split(IM_END).join('')) + markers;
}

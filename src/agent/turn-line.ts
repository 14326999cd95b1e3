import type { Logger } from '../log.js';
import type { ModelResponse, ToolCall } from './types.js';

/**
 * docs/design.md §3: at info, each model turn is one line a person can read: the turn, the
 * tool calls with what they touched (`read_transcript 1-400`, `write_projectfile
 * Alpha/notes.md append`), the tokens and the seconds. The details (arguments, each
 * request) stay at debug.
 */

type Args = Record<string, unknown>;

function parseArgs(raw: unknown): Args | undefined {
  if (raw !== null && typeof raw === 'object' && !Array.isArray(raw)) return raw as Args;
  if (typeof raw !== 'string') return undefined;
  try {
    const value: unknown = JSON.parse(raw.trim() === '' ? '{}' : raw);
    return value !== null && typeof value === 'object' && !Array.isArray(value) ? (value as Args) : undefined;
  } catch {
    return undefined;
  }
}

const str = (v: unknown): string | undefined => (typeof v === 'string' && v.trim() !== '' ? v.trim() : typeof v === 'number' ? String(v) : undefined);

function clip(text: string, max = 48): string {
  return text.length > max ? `${text.slice(0, max - 1)}…` : text;
}

/** What a write did to the file: the mode its arguments chose. */
function writeMode(name: string, a: Args): string | undefined {
  if (!name.startsWith('write_') || a.content === undefined) return undefined;
  if (a.replace_file === true) return 'replace';
  if (a.insert !== undefined) return `insert at ${str(a.insert) ?? '?'}`;
  if (a.from !== undefined || a.to !== undefined) return `lines ${str(a.from) ?? '?'}-${str(a.to) ?? '?'}`;
  if (name === 'write_projectfile') return 'append';
  return typeof a.content === 'string' ? `${a.content.length} chars` : undefined;
}

/** `read_transcript 1-400`, `write_projectfile Alpha/notes.md append`, `search "release|ship"`. */
export function describeCall(call: ToolCall): string {
  const a = parseArgs(call.arguments);
  if (!a) return `${call.name} (arguments not JSON)`;
  const parts: string[] = [];
  const project = str(a.project);
  const file = str(a.path) ?? str(a.summary) ?? str(a.meeting);
  if (project || file) parts.push(clip([project, file].filter(Boolean).join('/')));
  const mode = writeMode(call.name, a);
  if (!call.name.startsWith('write_') && (a.from !== undefined || a.to !== undefined)) parts.push(`${str(a.from) ?? '1'}-${str(a.to) ?? 'end'}`);
  if (mode) parts.push(mode);
  if (Array.isArray(a.keywords)) parts.push(clip(JSON.stringify(a.keywords.filter((k) => typeof k === 'string').join('|'))));
  if (str(a.speaker) && str(a.name)) parts.push(clip(`"${str(a.speaker)}" -> ${str(a.name)}`));
  else if (str(a.name)) parts.push(clip(str(a.name)!));
  if (str(a.word)) parts.push(clip(`"${str(a.word)}"`));
  return parts.length > 0 ? `${call.name} ${parts.join(' ')}` : call.name;
}

/** 12,345: by hand, as toLocaleString would map ICU's locale data into the daemon for it (daemon/intake/schedule.ts). */
const thousands = (n: number) => String(Math.round(n)).replace(/\B(?=(\d{3})+(?!\d))/g, ',');

/** Logs the turn's one info line; `failed[i]` tells whether call i ended in an error. */
export function logTurn(log: Logger, turn: number, response: ModelResponse, ms: number, failed: readonly boolean[] = []): void {
  const calls = response.toolCalls.map((c, i) => `${describeCall(c)}${failed[i] ? ' (error)' : ''}`);
  let what = calls.length > 0 ? calls.join(', ') : response.content.trim() === '' ? 'no tool calls, no text' : 'answered in text';
  // docs/design.md §3 step 11: how the calls came, when not as proper `tool_calls`.
  if (response.cutCall || (response.finishReason === 'length' && calls.length > 0)) what = `${calls.length > 0 ? `${calls.join(', ')}: ` : ''}a tool call cut by the length limit, not run`;
  else if (response.callsAsText) what += ` (written as text: ${response.callsAsText})`;
  else if (response.reasoningOnly) what = 'reasoning only, no answer';
  const usage = response.usage;
  const tokens = usage ? `${thousands(usage.inputTokens)} in + ${thousands(usage.outputTokens)} out tokens` : 'tokens not reported';
  log.info(
    { turn, calls, ...(usage && { usage }), ms: Math.round(ms) },
    `turn ${turn}: ${what}; ${tokens}, ${(ms / 1000).toFixed(1)} s`,
  );
}

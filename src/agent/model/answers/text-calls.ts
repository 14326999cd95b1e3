import { isPlainObject, jsonValueEnd, normalizeArguments, parseOrRepair } from './call-arguments.js';
import { stripThinking } from './strip-thinking.js';
import type { ToolSchema } from '../../types.js';

/**
 * Tool calls written as text in an answer's content (docs/design.md §3 step 11): the server's
 * template or parser did not turn them into `tool_calls`. The shapes read:
 *
 *  - `<tool_call>{"name": …, "arguments": …}</tool_call>` (Hermes, Qwen), closed or not;
 *  - `<tool_call><function=NAME><parameter=KEY>value</parameter>…` (Qwen3-Coder);
 *  - `[TOOL_CALLS][{…}]` and `[TOOL_CALLS]NAME[ARGS]{…}` (Mistral);
 *  - `<|channel|>commentary to=functions.NAME …<|message|>{…}` (gpt-oss harmony);
 *  - `<|python_tag|>{…}` (Llama 3.x);
 *  - the whole content one JSON object with `name` and `arguments`/`parameters` (also
 *    `{"type": "function", …}`), bare or in a fenced `json` block.
 *
 * A call counts only when it names an offered tool and does not stand inside a closed
 * `<think>` block or a fenced block within other text (a quote, not a call). Markers are
 * found with indexOf and objects delimited by one bracket-counting pass: linear in the
 * answer's length, whatever it holds (bench/text-calls.mjs).
 */

export interface TextCall {
  name: string;
  /** JSON object text (call-arguments.ts). */
  arguments: string;
  /** The id the model wrote (Mistral), when it wrote one. */
  id?: string;
}

export interface TextCallReading {
  calls: TextCall[];
  /** The visible text left once the calls are taken out, thinking stripped. */
  content: string;
  /** A call was begun but its text ends before the call does: it is not run (the model is asked again). */
  cut: boolean;
  /** The shape of the first call read (`<tool_call>`, `a JSON object`, …): what `doctor` names. */
  shape?: TextCallShape;
}

/** The shapes by the names `doctor` and the log give them (docs/models/tool-call-shapes.md). */
export type TextCallShape =
  | '<tool_call>'
  | '<function=…>'
  | '[TOOL_CALLS]'
  | 'to=functions.…'
  | '<|python_tag|>{…}'
  | 'a fenced JSON block'
  | 'a JSON object';

type Span = [start: number, end: number];

interface Found {
  span: Span;
  calls: TextCall[];
  shape: TextCallShape;
  cut?: boolean;
  harmony?: boolean;
}

const MARKERS = ['<tool_call>', '[TOOL_CALLS]', '<|python_tag|>', 'to=functions.'];

export function readTextCalls(raw: string, tools: readonly ToolSchema[]): TextCallReading {
  const none: TextCallReading = { calls: [], content: stripThinking(raw), cut: false };
  if (tools.length === 0) return none;
  const offered = new Map(tools.map((tool) => [tool.name, tool]));
  const whole = wholeContentCalls(none.content, offered);
  if (whole) return { calls: whole.calls, content: '', cut: false, shape: whole.shape };
  if (!MARKERS.some((marker) => raw.includes(marker))) return none;

  const quoted = quotedSpans(raw);
  const find = new Finder(raw);
  const found: Found[] = [];
  let from = 0;
  let q = 0;
  for (;;) {
    // The next marker of any kind: one pass, each hit read once, no two calls overlapping.
    let at = -1;
    let marker = '';
    for (const m of MARKERS) {
      const i = find.next(m, from);
      if (i >= 0 && (at < 0 || i < at)) [at, marker] = [i, m];
    }
    if (at < 0) break;
    while (q < quoted.length && quoted[q]![1] <= at) q++;
    const hit = q < quoted.length && quoted[q]![0] <= at ? undefined : readAt(raw, at, marker, offered, find);
    if (hit) {
      hit.span[0] = Math.max(hit.span[0], from);
      found.push(hit);
    }
    from = hit ? Math.max(hit.span[1], at + marker.length) : at + marker.length;
  }
  const calls = found.flatMap((f) => f.calls);
  const cut = found.some((f) => f.cut === true);
  if (calls.length === 0 && !cut) return none;
  let rest = '';
  let last = 0;
  for (const { span } of found) {
    rest += raw.slice(last, span[0]);
    last = span[1];
  }
  rest += raw.slice(last);
  // Harmony's other channels (`analysis`) are reasoning: only a `final` channel, or the text before any channel, is the answer.
  if (found.some((f) => f.harmony)) rest = harmonyAnswer(rest);
  const shape = found.find((f) => f.calls.length > 0)?.shape;
  return { calls, content: stripThinking(rest), cut, ...(shape ? { shape } : {}) };
}

/** The whole answer as one call object (or several, `;`-separated, as Llama 3.2 writes them), bare, after `<|python_tag|>` or fenced. */
function wholeContentCalls(visible: string, offered: Map<string, ToolSchema>): { calls: TextCall[]; shape: TextCallShape } | undefined {
  let text = visible.trim();
  let shape: TextCallShape = 'a JSON object';
  if (text.startsWith('<|python_tag|>')) {
    text = text.slice('<|python_tag|>'.length).trim();
    shape = '<|python_tag|>{…}';
  }
  const fenced = wholeFence(text);
  if (fenced !== undefined) {
    text = fenced;
    shape = 'a fenced JSON block';
  }
  if (!text.startsWith('{') && !text.startsWith('[')) return undefined;
  const values: unknown[] = [];
  let at = 0;
  while (at < text.length) {
    const end = jsonValueEnd(text, at);
    if (end < 0) return undefined;
    const value = parseValue(text.slice(at, end));
    if (value === undefined) return undefined;
    values.push(...(Array.isArray(value) ? value : [value]));
    at = end;
    while (at < text.length && /[\s;,]/.test(text[at]!)) at++;
    if (at < text.length && text[at] !== '{') return undefined;
  }
  const calls = values.map((value) => callOf(value, offered, true));
  return calls.length > 0 && calls.every((call) => call !== undefined) ? { calls: calls as TextCall[], shape } : undefined;
}

/** The body of a fenced block that is the whole text (``` or ~~~, language `json` or none), else undefined. */
function wholeFence(text: string): string | undefined {
  const fence = text.startsWith('```') ? '```' : text.startsWith('~~~') ? '~~~' : undefined;
  if (!fence || !text.endsWith(fence) || text.length < 2 * fence.length) return undefined;
  const newline = text.indexOf('\n');
  if (newline < 0) return undefined;
  const language = text.slice(fence.length, newline).trim().toLowerCase();
  if (language !== '' && language !== 'json' && language !== 'tool_call' && language !== 'tool_code') return undefined;
  const body = text.slice(newline + 1, text.length - fence.length);
  return body.includes(fence) ? undefined : body.trim();
}

function readAt(raw: string, at: number, marker: string, offered: Map<string, ToolSchema>, find: Finder): Found | undefined {
  switch (marker) {
    case '<tool_call>':
      return toolCallTag(raw, at, offered, find);
    case '[TOOL_CALLS]':
      return mistral(raw, at, offered, find);
    case '<|python_tag|>':
      return pythonTag(raw, at, offered);
    default:
      return harmony(raw, at, offered);
  }
}

/** `<tool_call>` … `</tool_call>`, or to the next `<tool_call>`, or to the end (never closed). */
function toolCallTag(raw: string, at: number, offered: Map<string, ToolSchema>, find: Finder): Found | undefined {
  const bodyStart = at + '<tool_call>'.length;
  const close = find.next('</tool_call>', bodyStart);
  const next = find.next('<tool_call>', bodyStart);
  const bodyEnd = close >= 0 && (next < 0 || close < next) ? close : next >= 0 ? next : raw.length;
  const end = bodyEnd === close ? close + '</tool_call>'.length : bodyEnd;
  const body = raw.slice(bodyStart, bodyEnd);
  const trimmed = body.trimStart();
  if (trimmed.startsWith('<function=')) return qwenXml(trimmed, [at, end], offered, bodyEnd !== close);
  const open = body.indexOf('{');
  if (open < 0) return undefined;
  const valueEnd = jsonValueEnd(body, open);
  if (valueEnd < 0) return { span: [at, end], calls: [], cut: true, shape: '<tool_call>' };
  const call = callOf(parseValue(body.slice(open, valueEnd)), offered, false);
  return call ? { span: [at, end], calls: [call], shape: '<tool_call>' } : undefined;
}

/** Qwen3-Coder: `<function=NAME>` then `<parameter=KEY>value</parameter>` pairs, values typed by the tool's schema. */
function qwenXml(body: string, span: Span, offered: Map<string, ToolSchema>, unclosed: boolean): Found | undefined {
  const nameEnd = body.indexOf('>');
  if (nameEnd < 0) return undefined;
  const name = body.slice('<function='.length, nameEnd).trim();
  const tool = offered.get(name);
  if (!tool) return undefined;
  const args: Record<string, unknown> = {};
  const find = new Finder(body);
  let pos = nameEnd + 1;
  for (;;) {
    const open = find.next('<parameter=', pos);
    if (open < 0) break;
    const keyEnd = find.next('>', open);
    if (keyEnd < 0) return { span, calls: [], cut: true, shape: '<function=…>' };
    // A value ends at its `</parameter>`, or (models drop it, vllm-project/vllm#23099) at the
    // next parameter or the function's end; with none of them the call was cut.
    const ends = ['</parameter>', '<parameter=', '</function>'].map((tag) => find.next(tag, keyEnd)).filter((at) => at >= 0);
    if (ends.length === 0 && unclosed) return { span, calls: [], cut: true, shape: '<function=…>' };
    const valueEnd = ends.length > 0 ? Math.min(...ends) : body.length;
    const key = body.slice(open + '<parameter='.length, keyEnd).trim();
    args[key] = typedValue(body.slice(keyEnd + 1, valueEnd).replace(/^\n/, '').replace(/\n$/, ''), propertyType(tool, key));
    pos = body.startsWith('</parameter>', valueEnd) ? valueEnd + '</parameter>'.length : valueEnd;
  }
  if (unclosed && !body.includes('</function>', pos)) return { span, calls: [], cut: true, shape: '<function=…>' };
  return { span, calls: [{ name, arguments: JSON.stringify(args) }], shape: '<function=…>' };
}

/** `[TOOL_CALLS][{…}, …]` or `[TOOL_CALLS]NAME[ARGS]{…}` (with `[CALL_ID]id` before `[ARGS]` in some templates). */
function mistral(raw: string, at: number, offered: Map<string, ToolSchema>, find: Finder): Found | undefined {
  let pos = at + '[TOOL_CALLS]'.length;
  while (pos < raw.length && /\s/.test(raw[pos]!)) pos++;
  if (raw[pos] === '[') {
    const end = jsonValueEnd(raw, pos);
    if (end < 0) return { span: [at, raw.length], calls: [], cut: true, shape: '[TOOL_CALLS]' };
    const value = parseValue(raw.slice(pos, end));
    const items = Array.isArray(value) ? value : [value];
    const calls = items.map((item) => callOf(item, offered, false));
    if (calls.length === 0 || calls.some((call) => call === undefined)) return undefined;
    return { span: [at, end], calls: calls as TextCall[], shape: '[TOOL_CALLS]' };
  }
  // NAME, then `[ARGS]` (or `[CALL_ID]id[ARGS]`, or nothing: `[TOOL_CALLS]NAME{…}`), then the object.
  let nameEnd = pos;
  while (nameEnd < raw.length && nameEnd - pos < 100 && /[\w.-]/.test(raw[nameEnd]!)) nameEnd++;
  const name = raw.slice(pos, nameEnd);
  if (!offered.has(name)) return undefined;
  let open = nameEnd;
  let id = '';
  if (raw.startsWith('[CALL_ID]', open)) {
    const argsAt = find.next('[ARGS]', open);
    if (argsAt < 0 || argsAt - open > 100) return undefined;
    id = raw.slice(open + '[CALL_ID]'.length, argsAt).trim();
    open = argsAt;
  }
  if (raw.startsWith('[ARGS]', open)) open += '[ARGS]'.length;
  open = skipSpace(raw, open);
  if (raw[open] !== '{') return undefined;
  const end = jsonValueEnd(raw, open);
  if (end < 0) return { span: [at, raw.length], calls: [], cut: true, shape: '[TOOL_CALLS]' };
  const args = normalizeArguments(raw.slice(open, end));
  if (args.kind !== 'ok') return undefined;
  return { span: [at, end], calls: [{ name, arguments: args.text, ...(id ? { id } : {}) }], shape: '[TOOL_CALLS]' };
}

/** `<|python_tag|>{…}` in the middle of an answer (the whole-content case is read before). */
function pythonTag(raw: string, at: number, offered: Map<string, ToolSchema>): Found | undefined {
  const open = skipSpace(raw, at + '<|python_tag|>'.length);
  if (raw[open] !== '{') return undefined;
  const end = jsonValueEnd(raw, open);
  if (end < 0) return { span: [at, raw.length], calls: [], cut: true, shape: '<|python_tag|>{…}' };
  const call = callOf(parseValue(raw.slice(open, end)), offered, false);
  return call ? { span: [at, end], calls: [call], shape: '<|python_tag|>{…}' } : undefined;
}

/** gpt-oss: `[<|start|>assistant]<|channel|>commentary to=functions.NAME [<|constrain|>json]<|message|>{…}[<|call|>]`. */
function harmony(raw: string, at: number, offered: Map<string, ToolSchema>): Found | undefined {
  let pos = at + 'to=functions.'.length;
  const nameStart = pos;
  while (pos < raw.length && /[\w.-]/.test(raw[pos]!)) pos++;
  const name = raw.slice(nameStart, pos);
  if (!offered.has(name)) return undefined;
  const header = raw.slice(pos, pos + 100).indexOf('<|message|>');
  if (header < 0) return undefined;
  const brace = skipSpace(raw, pos + header + '<|message|>'.length);
  if (raw[brace] !== '{') return undefined;
  const start = harmonyStart(raw, at);
  const end = jsonValueEnd(raw, brace);
  if (end < 0) return { span: [start, raw.length], calls: [], cut: true, harmony: true, shape: 'to=functions.…' };
  const args = normalizeArguments(raw.slice(brace, end));
  if (args.kind !== 'ok') return undefined;
  let after = skipSpace(raw, end);
  for (const token of ['<|call|>', '<|end|>']) if (raw.startsWith(token, after)) after += token.length;
  return { span: [start, after], calls: [{ name, arguments: args.text }], harmony: true, shape: 'to=functions.…' };
}

/** The call's header begins at the `<|start|>` or `<|channel|>` just before `to=functions.` (or at the marker). */
function harmonyStart(raw: string, at: number): number {
  const from = Math.max(0, at - 60);
  const window = raw.slice(from, at);
  const channel = window.lastIndexOf('<|channel|>');
  if (channel < 0) return at;
  const start = window.lastIndexOf('<|start|>', channel);
  return from + (start >= 0 ? start : channel);
}

function harmonyAnswer(text: string): string {
  const final = text.lastIndexOf('<|channel|>final<|message|>');
  if (final >= 0) return text.slice(final + '<|channel|>final<|message|>'.length).replace(/<\|(?:end|return)\|>\s*$/, '');
  const first = text.search(/<\|(?:start|channel|message)\|>/);
  return first >= 0 ? text.slice(0, first) : text;
}

/**
 * A call object: `{name, arguments|parameters}` or `{type: "function", function: {name, arguments}}`.
 * `strict` (the whole content is the object): the arguments key must be there, so that an answer
 * that merely is JSON with a `name` is not taken for a call.
 */
function callOf(value: unknown, offered: Map<string, ToolSchema>, strict: boolean): TextCall | undefined {
  if (!isPlainObject(value)) return undefined;
  const fn = isPlainObject(value.function) ? value.function : value;
  if (typeof fn.name !== 'string' || !offered.has(fn.name)) return undefined;
  const hasArgs = 'arguments' in fn || 'parameters' in fn;
  if (strict && !hasArgs) return undefined;
  const args = normalizeArguments('arguments' in fn ? fn.arguments : fn.parameters);
  if (args.kind !== 'ok') return undefined;
  return { name: fn.name, arguments: args.text, ...(typeof value.id === 'string' && value.id !== '' ? { id: value.id } : {}) };
}

function parseValue(text: string): unknown {
  try {
    return JSON.parse(text) as unknown;
  } catch {
    if (text.startsWith('[')) return undefined;
    return parseOrRepair(text);
  }
}

function propertyType(tool: ToolSchema, key: string): string | undefined {
  const properties = tool.parameters.properties;
  if (!isPlainObject(properties)) return undefined;
  const property = properties[key];
  return isPlainObject(property) && typeof property.type === 'string' ? property.type : undefined;
}

/** A Qwen3-Coder parameter's text as the schema's type (its parser does the same); text when it does not fit. */
function typedValue(text: string, type: string | undefined): unknown {
  if (type === 'string') return text;
  const trimmed = text.trim();
  if (type === 'integer' || type === 'number') {
    const n = Number(trimmed);
    return trimmed !== '' && Number.isFinite(n) ? n : text;
  }
  if (type === 'boolean') return trimmed === 'true' ? true : trimmed === 'false' ? false : text;
  try {
    return JSON.parse(trimmed) as unknown;
  } catch {
    return text;
  }
}

/**
 * Where the text quotes rather than calls: closed `<think>` blocks (a draft, not an act),
 * fenced blocks, blockquote lines and inline code (Markdown's ways of quoting: a model
 * explaining the format, or an `ask` answer about it, is not calling). One pass over the tags,
 * one over the lines.
 */
function quotedSpans(raw: string): Span[] {
  const spans: Span[] = [];
  let open = -1;
  for (const match of raw.matchAll(/<(\/?)think(?:ing)?>/gi)) {
    const at = match.index;
    if (match[1] === '') {
      if (open < 0) open = at;
    } else if (open >= 0) {
      spans.push([open, at + match[0].length]);
      open = -1;
    } else if (spans.length === 0) {
      // A close without its opening: the template put `<think>` into the prompt.
      spans.push([0, at + match[0].length]);
    }
  }
  markdownQuotes(raw, spans);
  // Sorted and merged, so that the reader walks them with one pointer.
  spans.sort((a, b) => a[0] - b[0]);
  const merged: Span[] = [];
  for (const span of spans) {
    const last = merged[merged.length - 1];
    if (last && span[0] <= last[1]) last[1] = Math.max(last[1], span[1]);
    else merged.push([span[0], span[1]]);
  }
  return merged;
}

/**
 * Fenced blocks (a fence closes only with one of its own character and at least its length,
 * as CommonMark has it; one never closed runs to the end), `>` lines, and inline code paired
 * within its line (so that a stray backtick cannot hide a real call on a later line).
 */
function markdownQuotes(raw: string, spans: Span[]): void {
  let fence: { char: string; length: number; start: number } | undefined;
  for (let lineStart = 0; lineStart <= raw.length; ) {
    const newline = raw.indexOf('\n', lineStart);
    const lineEnd = newline < 0 ? raw.length : newline;
    const line = raw.slice(lineStart, lineEnd);
    const fenceLine = /^[ \t]{0,3}(`{3,}|~{3,})(.*)$/.exec(line);
    if (fence) {
      if (fenceLine && fenceLine[1]![0] === fence.char && fenceLine[1]!.length >= fence.length && fenceLine[2]!.trim() === '') {
        spans.push([fence.start, lineEnd]);
        fence = undefined;
      }
    } else if (fenceLine && !(fenceLine[1]![0] === '`' && fenceLine[2]!.includes('`'))) {
      fence = { char: fenceLine[1]![0]!, length: fenceLine[1]!.length, start: lineStart };
    } else if (/^[ \t]{0,3}>/.test(line)) {
      spans.push([lineStart, lineEnd]);
    } else if (line.includes('`')) {
      let open: { length: number; at: number } | undefined;
      for (const run of line.matchAll(/`+/g)) {
        if (!open) open = { length: run[0].length, at: run.index };
        else if (run[0].length === open.length) {
          spans.push([lineStart + open.at, lineStart + run.index + run[0].length]);
          open = undefined;
        }
      }
    }
    if (newline < 0) break;
    lineStart = newline + 1;
  }
  if (fence) spans.push([fence.start, raw.length]);
}

function skipSpace(text: string, from: number): number {
  let at = from;
  while (at < text.length && /\s/.test(text[at]!)) at++;
  return at;
}

/**
 * `indexOf` with its last answer kept per needle: asked again from a later point that is still
 * before that answer, it gives it without searching again, so that a long answer full of
 * markers is searched once per needle, not once per marker.
 */
class Finder {
  readonly #text: string;
  readonly #last = new Map<string, { from: number; at: number }>();

  constructor(text: string) {
    this.#text = text;
  }

  next(needle: string, from: number): number {
    const last = this.#last.get(needle);
    if (last && last.from <= from && (last.at < 0 || last.at >= from)) return last.at;
    const at = this.#text.indexOf(needle, from);
    this.#last.set(needle, { from, at });
    return at;
  }
}

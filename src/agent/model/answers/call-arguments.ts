import { jsonrepair } from 'jsonrepair';

/**
 * A tool call's arguments made into the JSON object text the tools read (docs/design.md §3
 * step 11, broken structured calls): local servers send them as an object, encoded twice, in
 * single quotes or Python's dict syntax, or with text after the object. What `jsonrepair`
 * cannot mend, and an object cut before its end, is left as sent: the tool then answers with
 * an `Error:` the model can act on, and a cut call is never run half.
 */

export type ArgumentsOutcome =
  /** JSON object text; the very string sent when it already was one (the common case, untouched). */
  | { kind: 'ok'; text: string }
  /** The object ends before it closes: cut by the length limit, never repaired into a whole. */
  | { kind: 'cut'; text: string }
  /** Not an object, and not mendable: passed on as is for the tool's own error. */
  | { kind: 'invalid'; text: string };

export function normalizeArguments(value: unknown): ArgumentsOutcome {
  // A call without arguments means a tool that takes none.
  if (value === undefined || value === null) return { kind: 'ok', text: '{}' };
  if (typeof value === 'object') return Array.isArray(value) ? { kind: 'invalid', text: JSON.stringify(value) } : { kind: 'ok', text: JSON.stringify(value) };
  if (typeof value !== 'string') return { kind: 'invalid', text: String(value) };
  return normalizeText(value, 0);
}

function normalizeText(raw: string, depth: number): ArgumentsOutcome {
  if (raw.trim() === '') return { kind: 'ok', text: '{}' };
  const parsed = tryParse(raw);
  if (isPlainObject(parsed)) return { kind: 'ok', text: raw };
  // Encoded twice (llama.cpp, Ollama #6155): a JSON string holding the object's text.
  if (typeof parsed === 'string' && depth < 2) {
    const inner = normalizeText(parsed, depth + 1);
    return inner.kind === 'ok' ? inner : { kind: 'invalid', text: raw };
  }
  if (parsed !== undefined) return { kind: 'invalid', text: raw };
  const start = raw.indexOf('{');
  if (start < 0) return { kind: 'invalid', text: raw };
  const end = jsonValueEnd(raw, start);
  if (end < 0) return { kind: 'cut', text: raw };
  const slice = raw.slice(start, end);
  const object = parseOrRepair(slice);
  return object === undefined ? { kind: 'invalid', text: raw } : { kind: 'ok', text: JSON.stringify(object) };
}

/** The object in `text` (JSON, or what jsonrepair mends: single quotes, Python literals, trailing commas); undefined when neither. */
export function parseOrRepair(text: string): Record<string, unknown> | undefined {
  const direct = tryParse(text);
  if (isPlainObject(direct)) return direct;
  if (direct !== undefined) return undefined;
  let repaired: unknown;
  try {
    repaired = JSON.parse(jsonrepair(text));
  } catch {
    return undefined;
  }
  return isPlainObject(repaired) ? repaired : undefined;
}

/**
 * Where the JSON (or Python-literal) object or array opening at `start` ends (the index after
 * its closing bracket), or -1 when the text ends first. One pass, no backtracking: quotes of
 * either kind and escapes are followed, so brackets inside strings do not count.
 */
export function jsonValueEnd(text: string, start: number): number {
  let depth = 0;
  let quote = '';
  for (let i = start; i < text.length; i++) {
    const c = text[i];
    if (quote !== '') {
      if (c === '\\') i++;
      else if (c === quote) quote = '';
      continue;
    }
    if (c === '"' || c === "'") quote = c;
    else if (c === '{' || c === '[') depth++;
    else if (c === '}' || c === ']') {
      depth--;
      if (depth === 0) return i + 1;
    }
  }
  return -1;
}

function tryParse(text: string): unknown {
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return undefined;
  }
}

export function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

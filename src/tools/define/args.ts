import { ToolError } from '../errors.js';

/**
 * Tool arguments as a model really sends them: a JSON string that may be invalid, with
 * missing or extra fields, numbers as strings and single strings where arrays belong. Each
 * tool declares its parameters once; the JSON Schema sent to the model and the parser that
 * coerces what is unambiguous are both derived from that declaration.
 */

export type ParamType = 'string' | 'integer' | 'boolean' | 'string[]';

export interface ParamSpec {
  type: ParamType;
  /** Sent to the model only when the name and type do not already say it (every token is sent with every request). */
  description?: string;
  required?: boolean;
  /** Allowed values of a string parameter. */
  enum?: readonly string[];
  /** A string that must not be empty (after trimming). */
  nonEmpty?: boolean;
}

export type ParamSpecs = Record<string, ParamSpec>;

type ValueOf<P extends ParamSpec> = P['type'] extends 'integer'
  ? number
  : P['type'] extends 'boolean'
    ? boolean
    : P['type'] extends 'string[]'
      ? string[]
      : string;

/** The parsed arguments: required parameters always present, optional ones possibly undefined. */
export type ArgsOf<S extends ParamSpecs> = {
  [K in keyof S as S[K]['required'] extends true ? K : never]: ValueOf<S[K]>;
} & {
  [K in keyof S as S[K]['required'] extends true ? never : K]?: ValueOf<S[K]>;
};

export function jsonSchemaOf(specs: ParamSpecs): Record<string, unknown> {
  const properties: Record<string, unknown> = {};
  const required: string[] = [];
  for (const [name, spec] of Object.entries(specs)) {
    const base =
      spec.type === 'string[]'
        ? { type: 'array', items: { type: 'string' } }
        : { type: spec.type, ...(spec.enum ? { enum: [...spec.enum] } : {}) };
    properties[name] = spec.description ? { ...base, description: spec.description } : base;
    if (spec.required) required.push(name);
  }
  // No `additionalProperties: false` and no empty `required`: the schemas go out with every
  // request, and the parser already reports unknown arguments to the model.
  return { type: 'object', properties, ...(required.length > 0 ? { required } : {}) };
}

/** How to call the tool, for error messages: `name(a: integer, b?: string)`. */
export function signatureOf(tool: string, specs: ParamSpecs): string {
  const params = Object.entries(specs).map(([name, spec]) => {
    const type = spec.enum ? spec.enum.map((v) => JSON.stringify(v)).join('|') : spec.type;
    return `${name}${spec.required ? '' : '?'}: ${type}`;
  });
  return `${tool}({${params.join(', ')}})`;
}

/** Parse the raw argument text; never throws anything but ToolError. */
export function parseArgs<S extends ParamSpecs>(tool: string, specs: S, raw: string): { args: ArgsOf<S>; ignored: string[] } {
  const usage = `Call it as ${signatureOf(tool, specs)} with a JSON object of arguments.`;
  let value: unknown;
  const text = raw.trim();
  if (text === '' || text === 'null') {
    value = {};
  } else {
    try {
      value = JSON.parse(text);
    } catch (err) {
      throw new ToolError(`the arguments are not valid JSON (${(err as Error).message}). ${usage}`);
    }
    // Some models double-encode: the arguments arrive as a JSON string holding the object.
    if (typeof value === 'string') {
      try {
        value = JSON.parse(value);
      } catch {
        // falls through to the type check below
      }
    }
  }
  if (value === null || typeof value !== 'object' || Array.isArray(value)) {
    throw new ToolError(`the arguments must be a JSON object, got ${describe(value)}. ${usage}`);
  }
  const input = value as Record<string, unknown>;
  const out: Record<string, unknown> = {};
  const problems: string[] = [];
  for (const [name, spec] of Object.entries(specs)) {
    const v = input[name];
    // Models often send null for an optional argument they mean to leave out.
    if (v === undefined || v === null) {
      if (spec.required) problems.push(`missing required argument "${name}" (${spec.type})`);
      continue;
    }
    const coerced = coerce(v, spec);
    if (!coerced.ok) problems.push(`argument "${name}": ${coerced.problem}`);
    else out[name] = coerced.value;
  }
  if (problems.length > 0) throw new ToolError(`${problems.join('; ')}. ${usage}`);
  const ignored = Object.keys(input).filter((k) => !(k in specs));
  return { args: out as ArgsOf<S>, ignored };
}

type Coerced = { ok: true; value: unknown } | { ok: false; problem: string };

function coerce(v: unknown, spec: ParamSpec): Coerced {
  switch (spec.type) {
    case 'integer':
      return coerceInteger(v);
    case 'boolean':
      return coerceBoolean(v);
    case 'string[]':
      return coerceStringArray(v);
    case 'string':
      return coerceString(v, spec);
  }
}

function coerceInteger(v: unknown): Coerced {
  let n: number | undefined;
  if (typeof v === 'number') n = v;
  else if (typeof v === 'string' && /^\s*[+-]?\d+(\.0*)?\s*$/.test(v)) n = Number(v);
  if (n === undefined || !Number.isFinite(n) || !Number.isInteger(n)) {
    return { ok: false, problem: `expected a whole number, got ${describe(v)}` };
  }
  return { ok: true, value: n };
}

function coerceBoolean(v: unknown): Coerced {
  if (typeof v === 'boolean') return { ok: true, value: v };
  if (typeof v === 'string' && /^\s*(true|false)\s*$/i.test(v)) return { ok: true, value: v.trim().toLowerCase() === 'true' };
  if (v === 1 || v === 0) return { ok: true, value: v === 1 };
  return { ok: false, problem: `expected true or false, got ${describe(v)}` };
}

function coerceStringArray(v: unknown): Coerced {
  if (typeof v === 'string') {
    // A JSON array encoded as a string is unambiguous; any other string is one element.
    const t = v.trim();
    if (t.startsWith('[') && t.endsWith(']')) {
      try {
        const parsed: unknown = JSON.parse(t);
        if (Array.isArray(parsed) && parsed.every((x) => typeof x === 'string')) return { ok: true, value: parsed };
      } catch {
        // not JSON: a pattern such as "[abc]" is taken as it is
      }
    }
    return { ok: true, value: [v] };
  }
  if (Array.isArray(v) && v.every((x) => typeof x === 'string' || typeof x === 'number')) {
    return { ok: true, value: v.map(String) };
  }
  return { ok: false, problem: `expected an array of strings, got ${describe(v)}` };
}

function coerceString(v: unknown, spec: ParamSpec): Coerced {
  let s: string;
  if (typeof v === 'string') s = v;
  else if (typeof v === 'number' || typeof v === 'boolean') s = String(v);
  else return { ok: false, problem: `expected a string, got ${describe(v)}` };
  if (spec.enum) {
    const match = spec.enum.find((e) => e.toLowerCase() === s.trim().toLowerCase());
    if (match === undefined) {
      return { ok: false, problem: `expected one of ${spec.enum.map((e) => JSON.stringify(e)).join(', ')}, got ${JSON.stringify(s)}` };
    }
    return { ok: true, value: match };
  }
  if (spec.nonEmpty && s.trim() === '') return { ok: false, problem: 'must not be empty' };
  return { ok: true, value: s };
}

function describe(v: unknown): string {
  if (v === null) return 'null';
  if (Array.isArray(v)) return 'an array';
  if (typeof v === 'string') return `the string ${JSON.stringify(v.length > 40 ? `${v.slice(0, 40)}…` : v)}`;
  if (typeof v === 'object') return 'an object';
  return `${typeof v} ${String(v)}`;
}

/** A word, a name or a speaker label: longer than this is a model looping, not a name. */
const MAX_NAME_LENGTH = 100;

/** A one-line name argument (a person, a speaker label, a dictation word), trimmed. */
export function nameArgument(value: string, what: string): string {
  const v = value.trim();
  if (/[\r\n]/.test(v)) throw new ToolError(`the ${what} must be a single line.`);
  if (v === '') throw new ToolError(`the ${what} is empty.`);
  if (v.length > MAX_NAME_LENGTH) {
    throw new ToolError(`the ${what} is ${v.length} characters long; give one word or name of at most ${MAX_NAME_LENGTH} characters.`);
  }
  return v;
}

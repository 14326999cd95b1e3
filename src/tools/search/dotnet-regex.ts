import { ToolError } from '../errors.js';

/**
 * .NET regular expressions, as the original specification's `search` took them, translated to
 * JavaScript. `\w`, `\d` and `\b` keep their Unicode meaning, as in .NET. Leading inline
 * options (`(?i)`, `(?m)`, `(?s)`, `(?x)`, combinations and `-` forms) become flags; `\A`,
 * `\Z`, `\z`, `(?'name'…)`, `\k'name'` and `(?#…)` are translated; constructs JavaScript
 * cannot express (atomic groups, conditionals, balancing groups, character class
 * subtraction, `\G`, inline options later in the pattern) are refused with a clear message
 * instead of silently matching something else.
 */

export interface TranslatedRegex {
  source: string;
  flags: string;
}

const SYNTAX = new Set(['^', '$', '\\', '.', '*', '+', '?', '(', ')', '[', ']', '{', '}', '|', '/']);

export function translateDotNetRegex(pattern: string): TranslatedRegex {
  if (pattern === '') throw new ToolError('an empty keyword matches every line; give a word or a regular expression.');
  let pos = 0;
  const on = new Set<string>();
  for (;;) {
    const m = /^\(\?([a-zA-Z]*)(?:-([a-zA-Z]*))?\)/.exec(pattern.slice(pos));
    if (!m) break;
    for (const f of (m[1] ?? '') + (m[2] ?? '')) {
      if (!'imnsx'.includes(f)) {
        throw new ToolError(`unknown inline option "${f}" in ${JSON.stringify(pattern)}; .NET options are i, m, n, s, x.`);
      }
    }
    for (const f of m[1] ?? '') on.add(f);
    for (const f of m[2] ?? '') on.delete(f);
    pos += m[0].length;
  }
  let body = pattern.slice(pos);
  if (on.has('x')) body = stripExtendedWhitespace(body);
  const source = translateBody(body, pattern);
  // Matching is per line, so `m` changes nothing; it is kept for fidelity.
  let flags = '';
  if (on.has('i')) flags += 'i';
  if (on.has('m')) flags += 'm';
  if (on.has('s')) flags += 's';
  flags += 'u';
  try {
    new RegExp(source, flags);
  } catch (err) {
    throw new ToolError(`invalid regular expression ${JSON.stringify(pattern)}: ${(err as Error).message.replace(/^Invalid regular expression: /, '')}`);
  }
  return { source, flags };
}

function unsupported(what: string, pattern: string): ToolError {
  return new ToolError(`the regular expression ${JSON.stringify(pattern)} uses ${what}, which this search does not support; rewrite it without.`);
}

/** `(?x)`: unescaped whitespace and `#` comments outside character classes are not part of the pattern. */
function stripExtendedWhitespace(body: string): string {
  let out = '';
  let inClass = false;
  for (let i = 0; i < body.length; i++) {
    const c = body[i]!;
    if (c === '\\') {
      out += c + (body[i + 1] ?? '');
      i++;
    } else if (inClass) {
      if (c === ']') inClass = false;
      out += c;
    } else if (c === '[') {
      inClass = true;
      out += c;
    } else if (c === '#') {
      while (i < body.length && body[i] !== '\n') i++;
    } else if (!/\s/.test(c)) {
      out += c;
    }
  }
  return out;
}

function hexEscape(c: string): string {
  const code = c.codePointAt(0)!;
  return code <= 0xff ? `\\x${code.toString(16).padStart(2, '0')}` : `\\u{${code.toString(16)}}`;
}

/** .NET's `\w` is Unicode-aware (letters, marks, digits, connectors); JavaScript's is ASCII. */
const WORD = '\\p{L}\\p{Mn}\\p{Nd}\\p{Pc}';
const OUTSIDE_CLASS: Record<string, string> = {
  w: `[${WORD}]`,
  W: `[^${WORD}]`,
  d: '\\p{Nd}',
  D: '\\P{Nd}',
  b: `(?:(?<=[${WORD}])(?![${WORD}])|(?<![${WORD}])(?=[${WORD}]))`,
  B: `(?:(?<=[${WORD}])(?=[${WORD}])|(?<![${WORD}])(?![${WORD}]))`,
  A: '^',
  Z: '$',
  z: '$',
};
const INSIDE_CLASS: Record<string, string> = { w: WORD, d: '\\p{Nd}', D: '\\P{Nd}', b: '\\x08' };

/**
 * The pattern is compiled with the `u` flag (needed for Unicode-aware classes), which is
 * stricter than .NET: literal `{`, `}`, `]` and escaped punctuation are rewritten so that
 * what .NET accepts still compiles.
 */
function translateBody(body: string, pattern: string): string {
  let out = '';
  let i = 0;
  while (i < body.length) {
    const c = body[i]!;
    let piece: Piece;
    if (c === '\\') piece = escapeAt(body, i, false, pattern);
    else if (c === '[') piece = classAt(body, i, pattern);
    else if (c === '(' && body[i + 1] === '?') piece = groupAt(body, i, pattern);
    else if (c === '{') {
      // A quantifier stays; any other brace is a literal in .NET.
      const q = /^\{\d+(?:,\d*)?\}/.exec(body.slice(i));
      piece = q ? { text: q[0], next: i + q[0].length } : { text: '\\{', next: i + 1 };
    } else if (c === '}' || c === ']') piece = { text: `\\${c}`, next: i + 1 };
    else piece = { text: c, next: i + 1 };
    out += piece.text;
    i = piece.next;
  }
  return out;
}

/** The translation of the construct at one position of the pattern, and where the next one starts. */
interface Piece {
  text: string;
  next: number;
}

/** The escape sequence at `i` (a backslash), inside a character class or not. */
function escapeAt(body: string, i: number, inClass: boolean, pattern: string): Piece {
  const c = body[i + 1];
  if (c === undefined) throw new ToolError(`invalid regular expression ${JSON.stringify(pattern)}: it ends with a lone backslash.`);
  const mapped = inClass ? INSIDE_CLASS[c] : OUTSIDE_CLASS[c];
  if (mapped !== undefined) return { text: mapped, next: i + 2 };
  if (c === 'G') throw unsupported('\\G (contiguous match)', pattern);
  if (c === 'p' || c === 'P') {
    const m = /^\{([^}]*)\}/.exec(body.slice(i + 2));
    if (!m) throw new ToolError(`invalid regular expression ${JSON.stringify(pattern)}: \\${c} needs a category such as \\${c}{Lu}.`);
    if (m[1]!.startsWith('Is')) throw unsupported(`the named block \\${c}{${m[1]}}`, pattern);
    return { text: `\\${c}{${m[1]}}`, next: i + 2 + m[0].length };
  }
  if (c === 'k' && body[i + 2] === "'") {
    const end = body.indexOf("'", i + 3);
    if (end < 0) throw new ToolError(`invalid regular expression ${JSON.stringify(pattern)}: unterminated \\k'name'.`);
    return { text: `\\k<${body.slice(i + 3, end)}>`, next: end + 1 };
  }
  if (/[a-zA-Z0-9]/.test(c) || SYNTAX.has(c) || (inClass && c === '-')) return { text: `\\${c}`, next: i + 2 };
  const cp = String.fromCodePoint(body.codePointAt(i + 1)!);
  return { text: hexEscape(cp), next: i + 1 + cp.length };
}

/** The character class opening at `i` (a `[`), up to its `]`. */
function classAt(body: string, i: number, pattern: string): Piece {
  let out = '[';
  i++;
  if (body[i] === '^') {
    out += '^';
    i++;
  }
  // In .NET a `]` right after `[` or `[^` is a literal; in JavaScript it closes the class.
  if (body[i] === ']') {
    out += '\\]';
    i++;
  }
  while (i < body.length) {
    const d = body[i]!;
    if (d === '\\') {
      const piece = escapeAt(body, i, true, pattern);
      out += piece.text;
      i = piece.next;
    } else if (d === ']') {
      return { text: out + ']', next: i + 1 };
    } else if (d === '-' && body[i + 1] === '[') {
      throw unsupported('character class subtraction ([a-z-[aeiou]])', pattern);
    } else {
      out += d === '[' ? '\\[' : d;
      i++;
    }
  }
  throw new ToolError(`invalid regular expression ${JSON.stringify(pattern)}: a "[" is never closed.`);
}

/** The group syntax at `i` (a `(?`): comments dropped, named groups rewritten, .NET-only forms refused. */
function groupAt(body: string, i: number, pattern: string): Piece {
  const rest = body.slice(i + 2);
  if (rest.startsWith('#')) {
    const end = body.indexOf(')', i);
    if (end < 0) throw new ToolError(`invalid regular expression ${JSON.stringify(pattern)}: unterminated (?# comment.`);
    return { text: '', next: end + 1 };
  }
  if (rest.startsWith('>')) throw unsupported('an atomic group (?>…)', pattern);
  if (rest.startsWith('(')) throw unsupported('a conditional (?(…)…)', pattern);
  if (/^[imnsx]*(?:-[imnsx]*)?[:)]/.test(rest) && !rest.startsWith(':')) {
    throw unsupported('inline options after the start of the pattern (put (?i) etc. at the very beginning)', pattern);
  }
  const named = /^(?:<([A-Za-z_]\w*)(-\w*)?>|'([A-Za-z_]\w*)(-\w*)?')/.exec(rest);
  if (named) {
    if (named[2] || named[4]) throw unsupported('a balancing group', pattern);
    return { text: `(?<${named[1] ?? named[3]}>`, next: i + 2 + named[0].length };
  }
  if (/^'?<?-/.test(rest)) throw unsupported('a balancing group', pattern);
  return { text: '(?', next: i + 2 };
}

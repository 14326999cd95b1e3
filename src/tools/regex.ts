import { ToolError } from './errors.js';

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
  const escape = (inClass: boolean): void => {
    const c = body[i + 1];
    if (c === undefined) throw new ToolError(`invalid regular expression ${JSON.stringify(pattern)}: it ends with a lone backslash.`);
    const mapped = inClass ? INSIDE_CLASS[c] : OUTSIDE_CLASS[c];
    if (mapped !== undefined) out += mapped;
    else if (c === 'G') throw unsupported('\\G (contiguous match)', pattern);
    else if (c === 'p' || c === 'P') {
      const m = /^\{([^}]*)\}/.exec(body.slice(i + 2));
      if (!m) throw new ToolError(`invalid regular expression ${JSON.stringify(pattern)}: \\${c} needs a category such as \\${c}{Lu}.`);
      if (m[1]!.startsWith('Is')) throw unsupported(`the named block \\${c}{${m[1]}}`, pattern);
      out += `\\${c}{${m[1]}}`;
      i += m[0].length;
    } else if (c === 'k' && body[i + 2] === "'") {
      const end = body.indexOf("'", i + 3);
      if (end < 0) throw new ToolError(`invalid regular expression ${JSON.stringify(pattern)}: unterminated \\k'name'.`);
      out += `\\k<${body.slice(i + 3, end)}>`;
      i = end - 1;
    } else if (/[a-zA-Z0-9]/.test(c) || SYNTAX.has(c) || (inClass && c === '-')) out += `\\${c}`;
    else {
      const cp = String.fromCodePoint(body.codePointAt(i + 1)!);
      out += hexEscape(cp);
      i += cp.length - 1;
    }
    i += 2;
  };
  while (i < body.length) {
    const c = body[i]!;
    if (c === '\\') {
      escape(false);
    } else if (c === '[') {
      out += '[';
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
      let closed = false;
      while (i < body.length) {
        const d = body[i]!;
        if (d === '\\') escape(true);
        else if (d === ']') {
          out += ']';
          i++;
          closed = true;
          break;
        } else if (d === '-' && body[i + 1] === '[') {
          throw unsupported('character class subtraction ([a-z-[aeiou]])', pattern);
        } else if (d === '[') {
          out += '\\[';
          i++;
        } else {
          out += d;
          i++;
        }
      }
      if (!closed) throw new ToolError(`invalid regular expression ${JSON.stringify(pattern)}: a "[" is never closed.`);
    } else if (c === '(' && body[i + 1] === '?') {
      const rest = body.slice(i + 2);
      if (rest.startsWith('#')) {
        const end = body.indexOf(')', i);
        if (end < 0) throw new ToolError(`invalid regular expression ${JSON.stringify(pattern)}: unterminated (?# comment.`);
        i = end + 1;
        continue;
      }
      if (rest.startsWith('>')) throw unsupported('an atomic group (?>…)', pattern);
      if (rest.startsWith('(')) throw unsupported('a conditional (?(…)…)', pattern);
      if (/^[imnsx]*(?:-[imnsx]*)?[:)]/.test(rest) && !rest.startsWith(':')) {
        throw unsupported('inline options after the start of the pattern (put (?i) etc. at the very beginning)', pattern);
      }
      const named = /^(?:<([A-Za-z_]\w*)(-\w*)?>|'([A-Za-z_]\w*)(-\w*)?')/.exec(rest);
      if (named) {
        if (named[2] || named[4]) throw unsupported('a balancing group', pattern);
        out += `(?<${named[1] ?? named[3]}>`;
        i += 2 + named[0].length;
        continue;
      }
      if (/^'?<?-/.test(rest)) throw unsupported('a balancing group', pattern);
      out += '(?';
      i += 2;
    } else if (c === '{') {
      // A quantifier stays; any other brace is a literal in .NET.
      const q = /^\{\d+(?:,\d*)?\}/.exec(body.slice(i));
      out += q ? q[0] : '\\{';
      i += q ? q[0].length : 1;
    } else if (c === '}' || c === ']') {
      out += `\\${c}`;
      i++;
    } else {
      out += c;
      i++;
    }
  }
  return out;
}

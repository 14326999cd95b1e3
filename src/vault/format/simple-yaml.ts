/**
 * A fast path for the frontmatter most notes have: top-level `key: value` lines whose values
 * are plain words, simply quoted strings, or flow lists of plain words. The catch-up scan reads
 * the frontmatter of tens of thousands of notes, and the full YAML parser was a quarter of its
 * time. Anything this does not fully understand returns undefined and goes to the real parser,
 * so it never accepts what YAML would reject or reads a value differently (a differential test
 * holds it to that on real vaults).
 */

const KEY_LINE = /^([A-Za-z_][A-Za-z0-9_-]*):(?:[ \t]+(.*?))?[ \t]*$/;
const DOUBLE_QUOTED = /^"([^"\\]*)"$/;
const SINGLE_QUOTED = /^'([^']*)'$/;
/** A plain scalar that is text in the core schema whatever follows its first character. */
const PLAIN_START = /^[A-Za-z0-9_(]/;
const PLAIN_ITEM = /^[A-Za-z_][A-Za-z0-9_ ./()-]*$/;
/** Values the core schema reads as something other than a string: left to the real parser. */
const CORE_NON_STRING =
  /^(?:true|True|TRUE|false|False|FALSE|null|Null|NULL|~|[-+]?(?:\.[0-9]+|[0-9]+(?:\.[0-9]*)?)(?:[eE][-+]?[0-9]+)?|0x[0-9a-fA-F]+|0o[0-7]+|[-+]?\.(?:inf|Inf|INF)|\.(?:nan|NaN|NAN))$/;

export function parseSimpleFrontmatter(yamlText: string): Record<string, unknown> | undefined {
  const out: Record<string, unknown> = {};
  for (const raw of yamlText.split('\n')) {
    const line = raw.endsWith('\r') ? raw.slice(0, -1) : raw;
    if (line.trim() === '' || line.startsWith('#')) continue;
    const m = KEY_LINE.exec(line);
    if (!m) return undefined;
    const key = m[1]!;
    if (Object.prototype.hasOwnProperty.call(out, key)) return undefined;
    const value = scalar(m[2] ?? '');
    if (value === UNKNOWN) return undefined;
    out[key] = value;
  }
  return out;
}

const UNKNOWN = Symbol('unknown');

function scalar(text: string): unknown {
  if (text === '') return null;
  const quoted = DOUBLE_QUOTED.exec(text) ?? SINGLE_QUOTED.exec(text);
  if (quoted) return quoted[1];
  if (text.startsWith('[') && text.endsWith(']')) return flowList(text.slice(1, -1));
  return plain(text);
}

function plain(text: string): unknown {
  if (!PLAIN_START.test(text) || text.includes(': ') || text.includes(' #') || text.endsWith(':')) return UNKNOWN;
  if (/[\t{}[\],&*!|>'"%@`]/.test(text) || CORE_NON_STRING.test(text)) return UNKNOWN;
  return text;
}

function flowList(inner: string): unknown {
  if (inner.trim() === '') return [];
  const items: string[] = [];
  for (const part of inner.split(',')) {
    const item = part.trim();
    if (!PLAIN_ITEM.test(item) || CORE_NON_STRING.test(item)) return UNKNOWN;
    items.push(item);
  }
  return items;
}

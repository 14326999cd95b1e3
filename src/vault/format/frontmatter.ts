import { type Node as YamlNode, type Pair, type ParsedNode, YAMLMap, isCollection, isMap, isScalar, isSeq, parseDocument, visit } from 'yaml';
import type { Vault } from '../files/vault.js';
import { parseSimpleFrontmatter } from './simple-yaml.js';
import { itemStyles, renderKey, renderPairText, type Style } from './yaml-render.js';
import { firstDuplicateKey, NOTE_YAML_OPTIONS } from './unique-keys.js';
import { MeetingAssistantError } from '../../errors.js';

/**
 * YAML frontmatter of Markdown notes, Obsidian style. People edit these notes, so an update
 * splices only the text of the keys it changes: every other byte (comments, quoting, key
 * order, trailing spaces, CRLF, a BOM, the body) stays as it was.
 */

export class FrontmatterError extends MeetingAssistantError {
  readonly file?: string;
  readonly line?: number;

  constructor(reason: string, options: { file?: string; line?: number } = {}) {
    const where = [options.file, options.line !== undefined ? `line ${options.line}` : undefined]
      .filter((part) => part !== undefined)
      .join(' ');
    super(where ? `${where}: ${reason}` : reason, true);
    if (options.file !== undefined) this.file = options.file;
    if (options.line !== undefined) this.line = options.line;
  }
}

export interface ParsedNote {
  data: Record<string, unknown>;
  hasFrontmatter: boolean;
  body: string;
  /** 1-based line, in the whole file, of the first body line. */
  bodyStartLine: number;
  eol: '\n' | '\r\n';
  bom: boolean;
}

const BOM = '\uFEFF';

/** Where the frontmatter block lies in a note's text (offsets into the text without its BOM). */
interface Layout {
  bom: boolean;
  /** The text after the BOM. */
  content: string;
  eol: '\n' | '\r\n';
  /** Absent when the note has no frontmatter. */
  block?: {
    /** Offset of the first YAML character (just after the opening fence line). */
    yamlStart: number;
    /** Offset of the closing fence line (end of the YAML text). */
    yamlEnd: number;
    /** Offset just after the closing fence line, its line ending included. */
    bodyStart: number;
    /** Lines the opening fence, the YAML and the closing fence take. */
    lines: number;
    /** The closing fence ends the file without a line ending. */
    closedAtEof: boolean;
  };
}

const FENCE = /^---[ \t]*$/;

function detectEol(content: string): '\n' | '\r\n' {
  const nl = content.indexOf('\n');
  return nl > 0 && content[nl - 1] === '\r' ? '\r\n' : '\n';
}

/** Finds the frontmatter fences. A note starting with `---` that never closes is an error, not a body. */
function layoutOf(text: string, file?: string): Layout {
  const bom = text.startsWith(BOM);
  const content = bom ? text.slice(1) : text;
  const eol = detectEol(content);
  const firstEnd = content.indexOf('\n');
  const firstLine = (firstEnd < 0 ? content : content.slice(0, firstEnd)).replace(/\r$/, '');
  if (firstEnd < 0 || !FENCE.test(firstLine)) return { bom, content, eol };

  const yamlStart = firstEnd + 1;
  let pos = yamlStart;
  let lines = 1;
  while (pos <= content.length) {
    const nl = content.indexOf('\n', pos);
    const lineEnd = nl < 0 ? content.length : nl;
    const line = content.slice(pos, lineEnd).replace(/\r$/, '');
    lines++;
    if (FENCE.test(line)) {
      return {
        bom,
        content,
        eol,
        block: {
          yamlStart,
          yamlEnd: pos,
          bodyStart: nl < 0 ? content.length : nl + 1,
          lines,
          closedAtEof: nl < 0,
        },
      };
    }
    if (nl < 0) break;
    pos = nl + 1;
  }
  throw new FrontmatterError('the frontmatter opened by "---" on line 1 is never closed by a "---" line', {
    ...(file !== undefined && { file }),
    line: 1,
  });
}

function lineAt(text: string, offset: number): number {
  let line = 1;
  for (let i = 0; i < offset && i < text.length; i++) if (text[i] === '\n') line++;
  return line;
}

/** Parses the YAML between the fences; throws FrontmatterError with the line in the whole file. */
function parseYaml(layout: Layout, file?: string): YAMLMap<ParsedNode, ParsedNode | null> | undefined {
  const block = layout.block;
  if (!block) return undefined;
  const yamlText = layout.content.slice(block.yamlStart, block.yamlEnd);
  const fail = (reason: string, offset: number | undefined): never => {
    // An error found at the end of the text (an unclosed `[`) belongs to the last YAML line, not the fence.
    const lastChar = Math.max(0, yamlText.trimEnd().length - 1);
    throw new FrontmatterError(`invalid frontmatter: ${reason}`, {
      ...(file !== undefined && { file }),
      // +1: the YAML starts on the line after the opening fence.
      line: lineAt(yamlText, Math.min(offset ?? 0, lastChar)) + 1,
    });
  };
  const doc = parseDocument(yamlText, NOTE_YAML_OPTIONS);
  const error = doc.errors[0];
  if (error) fail(error.message.split('\n')[0] ?? error.message, error.pos[0]);
  const duplicate = firstDuplicateKey(doc);
  if (duplicate) fail('Map keys must be unique', duplicate.range?.[0]);
  const contents = doc.contents;
  if (contents === null || (isScalar(contents) && contents.value === null)) return undefined;
  if (!isMap(contents)) {
    return fail('the frontmatter must be a list of `key: value` properties', contents.range[0]);
  }
  // A collection used as a key (`date: {{date}}` in a template) has no meaning as a property.
  visit(doc, {
    Pair(_, pair) {
      if (isCollection(pair.key)) fail('a property name must be plain text', (pair.key as ParsedNode).range[0]);
    },
  });
  return contents as YAMLMap<ParsedNode, ParsedNode | null>;
}

export function parseNote(text: string, file?: string): ParsedNote {
  const layout = layoutOf(text, file);
  const block = layout.block;
  const simple = block ? parseSimpleFrontmatter(layout.content.slice(block.yamlStart, block.yamlEnd)) : undefined;
  return {
    data: simple ?? mapData(parseYaml(layout, file)),
    hasFrontmatter: block !== undefined,
    body: block ? layout.content.slice(block.bodyStart) : layout.content,
    bodyStartLine: block ? block.lines + 1 : 1,
    eol: layout.eol,
    bom: layout.bom,
  };
}

function mapData(map: YAMLMap | undefined): Record<string, unknown> {
  if (!map) return {};
  const out: Record<string, unknown> = {};
  for (const pair of map.items) {
    const key = keyName(pair);
    if (key === undefined) continue;
    const value = pair.value as YamlNode | null;
    out[key] = value === null || value === undefined ? null : value.toJSON();
  }
  return out;
}

function keyName(pair: Pair<unknown, unknown>): string | undefined {
  const key = pair.key;
  if (isScalar(key)) return key.value === null ? '' : String(key.value);
  return undefined;
}

// ---------------------------------------------------------------------------------------
// Rendering a new block (the values: vault/format/yaml-render.ts)
// ---------------------------------------------------------------------------------------

/** A fresh frontmatter block (fences included, `\n` endings) for notes the daemon creates. */
export function renderFrontmatter(data: Record<string, unknown>): string {
  const lines: string[] = ['---'];
  for (const [key, value] of Object.entries(data)) {
    if (value === undefined) continue;
    lines.push(renderKey(key) + renderPairText(value, {}).slice(1));
  }
  lines.push('---', '');
  return lines.join('\n');
}


// ---------------------------------------------------------------------------------------
// Updating
// ---------------------------------------------------------------------------------------

function deepEqual(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  if (Array.isArray(a) && Array.isArray(b)) return a.length === b.length && a.every((x, i) => deepEqual(x, b[i]));
  if (a && b && typeof a === 'object' && typeof b === 'object' && !Array.isArray(a) && !Array.isArray(b)) {
    const ka = Object.keys(a);
    const kb = Object.keys(b);
    return (
      ka.length === kb.length &&
      ka.every((k) => deepEqual((a as Record<string, unknown>)[k], (b as Record<string, unknown>)[k]))
    );
  }
  return false;
}

function lineStartOf(text: string, offset: number): number {
  return text.lastIndexOf('\n', offset - 1) + 1;
}

/** Offset just after the line ending of the line containing `offset` (or the text's end). */
function lineEndOf(text: string, offset: number): number {
  const nl = text.indexOf('\n', offset);
  return nl < 0 ? text.length : nl + 1;
}

interface Splice {
  start: number;
  end: number;
  text: string;
}

/**
 * A block list that only gains items at its end (an attendee, a word): the new item lines go
 * after the last item and every line already there stays byte for byte, its comments and
 * spacing included. Undefined when the change is anything else, or a new item spans lines.
 */
function spliceForAddedItems(yaml: string, valueNode: ParsedNode | null, before: unknown, value: unknown, eol: string): Splice | undefined {
  if (!isSeq(valueNode) || valueNode.flow || valueNode.items.length === 0) return undefined;
  if (!Array.isArray(before) || !Array.isArray(value) || value.length <= before.length) return undefined;
  if (!deepEqual(before, value.slice(0, before.length))) return undefined;
  const added = value.slice(before.length);
  const rendered = renderPairText(added, { flow: false, compactSeq: true, ...itemStyles(valueNode.items) }).split('\n').slice(1);
  if (rendered.length !== added.length || !rendered.every((l) => l.startsWith('- '))) return undefined;
  const dash = valueNode.range[0] - lineStartOf(yaml, valueNode.range[0]);
  const lastItem = valueNode.items[valueNode.items.length - 1] as ParsedNode;
  const at = lineEndOf(yaml, lastItem.range[1] - 1);
  const lead = at > 0 && yaml[at - 1] !== '\n' ? eol : '';
  return { start: at, end: at, text: lead + rendered.map((l) => indent(l, dash)).join(eol) + (lead ? '' : eol) };
}

/** The replacement of one existing pair, in offsets of the YAML text. */
function spliceForPair(yaml: string, pair: Pair<ParsedNode, ParsedNode | null>, value: unknown, eol: string, before?: unknown): Splice {
  const keyNode = pair.key;
  const valueNode = pair.value;
  const addedItems = spliceForAddedItems(yaml, valueNode, before, value, eol);
  if (addedItems) return addedItems;
  const start = lineStartOf(yaml, keyNode.range[0]);
  const keyIndent = keyNode.range[0] - start;
  // The last character of the value (or of the key when the value is empty), trailing blanks excluded.
  let last = Math.max(keyNode.range[1], valueNode ? valueNode.range[1] : 0) - 1;
  while (last > keyNode.range[1] && /\s/.test(yaml[last] ?? '')) last--;
  const end = lineEndOf(yaml, last);
  const lineBreak = yaml.slice(start, end).endsWith('\n') ? (yaml.slice(start, end).endsWith('\r\n') ? '\r\n' : '\n') : '';

  const style: Style = {};
  const valueStartsLater = valueNode !== null && yaml.lastIndexOf('\n', valueNode.range[0]) >= keyNode.range[1];
  if (isScalar(valueNode)) style.scalarType = valueNode.type;
  if (isSeq(valueNode) || isMap(valueNode)) {
    style.flow = Boolean(valueNode.flow);
    if (isSeq(valueNode) && !valueNode.flow) {
      style.compactSeq = valueNode.range[0] - lineStartOf(yaml, valueNode.range[0]) <= keyIndent;
    }
    if (isSeq(valueNode)) Object.assign(style, itemStyles(valueNode.items));
  }

  const rendered = renderPairText(value, style).split('\n');
  const keyText = yaml.slice(start, keyNode.range[1]);
  const first = rendered[0] ?? 'k:';
  let lines: string[];
  if (first === 'k:' && rendered.length > 1 && valueStartsLater) {
    // The value stays below the key: keep the key line itself (its comment, its spacing).
    const keyLineEnd = lineEndOf(yaml, keyNode.range[1]);
    lines = [yaml.slice(start, keyLineEnd).replace(/\r?\n$/, ''), ...rendered.slice(1).map((l) => indent(l, keyIndent))];
  } else {
    // Keep the spacing between the colon and a value written on the key line.
    const colonAndSpace =
      valueNode && !valueStartsLater && first.startsWith('k: ')
        ? yaml.slice(keyNode.range[1], valueNode.range[0])
        : undefined;
    const head =
      colonAndSpace !== undefined && /^\s*:\s+$/.test(colonAndSpace)
        ? keyText + colonAndSpace + first.slice(3)
        : keyText + first.slice(1);
    lines = [head, ...rendered.slice(1).map((l) => indent(l, keyIndent))];
    // An inline comment after a one-line value (or after an empty one) stays with the new value.
    if (lines.length === 1 && valueNode) {
      const emptyValue = isScalar(valueNode) && valueNode.value === null && !valueNode.source;
      if (emptyValue) {
        const tail = yaml.slice(keyNode.range[1], lineEndOf(yaml, keyNode.range[1])).replace(/\r?\n$/, '');
        const comment = /^\s*:(\s+#.*)$/.exec(tail);
        if (comment) lines[0] = keyText + first.slice(1) + comment[1];
      } else if (!valueStartsLater) {
        const rest = yaml.slice(valueNode.range[1], lineEndOf(yaml, valueNode.range[1])).replace(/\r?\n$/, '');
        if (/^\s+#/.test(rest)) lines[0] += rest;
      }
    }
  }
  return { start, end, text: lines.join(eol) + lineBreak };
}

function indent(line: string, n: number): string {
  return line === '' ? line : ' '.repeat(n) + line;
}

/**
 * Sets each key of `changes` (`undefined` deletes it) and returns the new text; every line
 * not changed stays byte for byte. A key already holding an equal value is left untouched.
 */
export function updateFrontmatter(text: string, changes: Record<string, unknown>, file?: string): string {
  const layout = layoutOf(text, file);
  const map = parseYaml(layout, file);
  const { content, eol, block } = layout;
  const prefix = layout.bom ? BOM : '';

  if (!block) {
    const added = Object.entries(changes).filter(([, v]) => v !== undefined);
    if (added.length === 0) return text;
    const fm = renderFrontmatter(Object.fromEntries(added)).split('\n').join(eol);
    return prefix + fm + content;
  }

  const yaml = content.slice(block.yamlStart, block.yamlEnd);
  if (map?.flow) return prefix + content.slice(0, block.yamlStart) + rewriteFlow(map, changes, eol) + content.slice(block.yamlEnd);

  const current = mapData(map);
  const pairs = new Map<string, Pair<ParsedNode, ParsedNode | null>>();
  for (const pair of map?.items ?? []) {
    const key = keyName(pair);
    if (key !== undefined) pairs.set(key, pair);
  }
  const keyIndent = map?.items[0] ? map.items[0].key.range[0] - lineStartOf(yaml, map.items[0].key.range[0]) : 0;

  const splices: Splice[] = [];
  const appended: string[] = [];
  for (const [key, value] of Object.entries(changes)) {
    const pair = pairs.get(key);
    if (value === undefined) {
      if (!pair) continue;
      const s = spliceForPair(yaml, pair, null, eol);
      splices.push({ ...s, text: '' });
      continue;
    }
    if (pair) {
      if (deepEqual(current[key], value)) continue;
      splices.push(spliceForPair(yaml, pair, value, eol, current[key]));
    } else {
      const rendered = renderPairText(value, {}).split('\n');
      const head = renderKey(key) + (rendered[0] ?? 'k:').slice(1);
      appended.push([head, ...rendered.slice(1)].map((l) => indent(l, keyIndent)).join(eol));
    }
  }
  if (splices.length === 0 && appended.length === 0) return text;

  let out = yaml;
  for (const s of splices.sort((a, b) => b.start - a.start)) out = out.slice(0, s.start) + s.text + out.slice(s.end);
  if (appended.length > 0) {
    if (out !== '' && !out.endsWith('\n')) out += eol;
    out += appended.join(eol) + eol;
  }
  return prefix + content.slice(0, block.yamlStart) + out + content.slice(block.yamlEnd);
}

/** A frontmatter written as one flow mapping (`{a: 1}`) is rare enough to be re-rendered whole. */
function rewriteFlow(map: YAMLMap, changes: Record<string, unknown>, eol: string): string {
  const data = mapData(map);
  for (const [key, value] of Object.entries(changes)) {
    if (value === undefined) delete data[key];
    else data[key] = value;
  }
  const fm = renderFrontmatter(data);
  return fm.slice(4, fm.length - 4).split('\n').join(eol);
}

/** Keeps the frontmatter bytes (BOM included) and replaces everything after it. */
export function replaceBody(text: string, body: string): string {
  const layout = layoutOf(text);
  const prefix = layout.bom ? BOM : '';
  const block = layout.block;
  if (!block) return prefix + body;
  const head = layout.content.slice(0, block.bodyStart);
  return prefix + head + (block.closedAtEof && body !== '' ? layout.eol : '') + body;
}

export async function readNote(vault: Vault, absPath: string): Promise<ParsedNote & { text: string }> {
  const text = await vault.read(absPath);
  return { ...parseNote(text, displayName(vault, absPath)), text };
}

/**
 * Applies `changes` to the note as it is on disk now (so a concurrent edit by a person is
 * kept), writing atomically only when the text changed. Returns the resulting text.
 */
export async function updateNoteFrontmatter(
  vault: Vault,
  absPath: string,
  changes: Record<string, unknown>,
): Promise<string> {
  const result = await vault.update(absPath, (text) => updateFrontmatter(requireText(text, absPath), changes, displayName(vault, absPath)));
  return result.after!;
}

/** The content of a file an update needs: a missing file is the ENOENT a read would throw. */
export function requireText(text: string | undefined, absPath: string): string {
  if (text !== undefined) return text;
  throw Object.assign(new Error(`ENOENT: no such file or directory, open '${absPath}'`), { code: 'ENOENT', path: absPath });
}

/** Vault-relative when inside the vault: error messages are for people. */
function displayName(vault: Vault, absPath: string): string {
  return vault.contains(absPath) ? vault.rel(absPath) : absPath;
}

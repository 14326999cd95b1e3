import { Document, type Node as YamlNode, type Pair, Scalar, YAMLMap, isMap, isScalar, isSeq, visit } from 'yaml';

/**
 * Rendering frontmatter values as YAML text, in the style of the value they replace (block or
 * flow, quoted or plain), for vault/format/frontmatter.ts: the parsing and the byte-preserving
 * splicing stay there, the YAML library's rendering details here.
 */

/** The YAML options of both sides: what is parsed with them is rendered back the same way. */
export const PARSE_OPTIONS = {
  // The core schema keeps `2026-11-30T09:00:00+01:00` a string, as written.
  schema: 'core',
  version: '1.2',
  uniqueKeys: true,
  prettyErrors: false,
  keepSourceTokens: false,
} as const;

const WIKILINK = /\[\[.*\]\]/;

export interface Style {
  scalarType?: Scalar.Type;
  flow?: boolean;
  /** Block sequence items sit at the key's column (`key:\n- a`) instead of indented. */
  compactSeq?: boolean;
  /**
   * How each string item of the list being replaced was written, by value: an item that stays
   * keeps its quotes, so adding one attendee changes one line, not every line of the list.
   */
  itemTypes?: ReadonlyMap<string, Scalar.Type>;
  /** The quotes a new wikilink item takes: the list's own, else double. */
  linkQuote?: Scalar.Type;
}

/** How a list's string items are quoted: each by its value, and the quotes of its wikilinks. */
export function itemStyles(items: readonly unknown[]): Pick<Style, 'itemTypes' | 'linkQuote'> {
  const itemTypes = new Map<string, Scalar.Type>();
  let linkQuote: Scalar.Type | undefined;
  for (const item of items) {
    if (!isScalar(item) || typeof item.value !== 'string' || !item.type) continue;
    itemTypes.set(item.value, item.type);
    if (WIKILINK.test(item.value) && (item.type === Scalar.QUOTE_SINGLE || item.type === Scalar.QUOTE_DOUBLE)) linkQuote = item.type;
  }
  return { itemTypes, linkQuote };
}

function buildNode(doc: Document, value: unknown, style: Style): YamlNode {
  const node = doc.createNode(value) as YamlNode;
  if (isSeq(node) || isMap(node)) {
    // Lists of plain values default to flow (`[Alpha, Beta]`, as docs/design.md §1 shows); structured values to block.
    const simple = node.items.every((item) => isScalar(isMap(node) ? (item as Pair).value : item));
    node.flow = node.items.length === 0 || (style.flow ?? (isSeq(node) && simple));
  }
  if (isScalar(node) && typeof node.value === 'string' && style.scalarType) {
    const block = style.scalarType === Scalar.BLOCK_LITERAL || style.scalarType === Scalar.BLOCK_FOLDED;
    // A line break in a plain or quoted scalar would be written as a folded blank line: use `|` instead.
    node.type = node.value.includes('\n') && !block ? Scalar.BLOCK_LITERAL : style.scalarType;
  }
  visit(node, {
    Scalar(_, scalar) {
      if (typeof scalar.value !== 'string') return;
      const kept = style.itemTypes?.get(scalar.value);
      if (kept) scalar.type = kept;
      else if (WIKILINK.test(scalar.value)) scalar.type = style.linkQuote ?? Scalar.QUOTE_DOUBLE;
    },
  });
  return node;
}

/** `key: value` text (lines joined with `\n`, no final newline) for a pair with a placeholder key. */
export function renderPairText(value: unknown, style: Style): string {
  const doc = new Document(null, PARSE_OPTIONS);
  const map = new YAMLMap();
  map.items.push(doc.createPair('k', null));
  const pair = map.items[0] as Pair<unknown, unknown>;
  pair.value = buildNode(doc, value, style);
  doc.contents = map as never;
  const text = doc.toString({
    lineWidth: 0,
    nullStr: '',
    indentSeq: !style.compactSeq,
    flowCollectionPadding: false,
  });
  return text.replace(/\n$/, '').replace(/^k:[ ]$/m, 'k:');
}

/** A property name as YAML writes it (quoted when it must be). */
export function renderKey(key: string): string {
  const doc = new Document(key, PARSE_OPTIONS);
  return doc.toString({ lineWidth: 0 }).replace(/\n$/, '');
}

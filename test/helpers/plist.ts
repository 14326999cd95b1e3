import { XMLParser } from 'fast-xml-parser';

export type PlistValue = string | number | boolean | PlistValue[] | { [key: string]: PlistValue };
type OrderedNode = Record<string, unknown>;

/** A plist as plain values, through fast-xml-parser's ordered output (a dict pairs key and value by position). */
export function parsePlist(xml: string): Record<string, PlistValue> {
  const parser = new XMLParser({ preserveOrder: true, ignoreAttributes: true, parseTagValue: false });
  const doc = parser.parse(xml) as OrderedNode[];
  const plist = doc.find((n) => 'plist' in n)!;
  const dict = (plist.plist as OrderedNode[]).find((n) => 'dict' in n)!;
  return convert(dict) as Record<string, PlistValue>;
}

function tagOf(node: OrderedNode): string {
  return Object.keys(node).find((k) => k !== ':@')!;
}

function textOf(node: OrderedNode): string {
  return ((node[tagOf(node)] as OrderedNode[]) ?? []).map((c) => String(c['#text'] ?? '')).join('');
}

function convert(node: OrderedNode): PlistValue {
  const tag = tagOf(node);
  const children = (node[tag] as OrderedNode[]).filter((c) => tagOf(c) !== '#text' || tag === 'string' || tag === 'key');
  switch (tag) {
    case 'dict': {
      const out: Record<string, PlistValue> = {};
      for (let i = 0; i < children.length; i += 2) out[textOf(children[i]!)] = convert(children[i + 1]!);
      return out;
    }
    case 'array':
      return children.map(convert);
    case 'string':
      return textOf(node);
    case 'integer':
      return Number(textOf(node));
    case 'true':
      return true;
    case 'false':
      return false;
    default:
      throw new Error(`unexpected plist element <${tag}>`);
  }
}

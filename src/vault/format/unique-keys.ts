import { type Document, type ParsedNode, isScalar, visit } from 'yaml';
import { PARSE_OPTIONS } from './yaml-render.js';

/**
 * Duplicate keys in frontmatter, found in linear time (issue #24 point 8). For
 * vault/format/frontmatter.ts, which parses with these options and refuses what this finds.
 */

/**
 * The parser's options for notes. The YAML library finds duplicate keys by comparing each key
 * with every key before it: 10,000 keys took 3 s a parse, and every frontmatter edit parses
 * (issue #24 point 8). Duplicates are found here instead, with one set per mapping.
 */
export const NOTE_YAML_OPTIONS = { ...PARSE_OPTIONS, uniqueKeys: false } as const;

/**
 * The first key that repeats one before it in the same mapping, at any depth; linear in the
 * number of keys. Keys compare as the library compares them: scalars by value and type.
 * `onKey` is told of each key looked at (tests count the work with it).
 */
export function firstDuplicateKey(doc: Document.Parsed, onKey?: () => void): ParsedNode | undefined {
  let found: ParsedNode | undefined;
  visit(doc, {
    Map(_, map) {
      const seen = new Set<unknown>();
      for (const pair of map.items) {
        onKey?.();
        const key = pair.key as ParsedNode | null;
        // Collections as keys are refused elsewhere; only scalars (and null) compare here.
        const id = isScalar(key) ? (typeof key.value === 'object' && key.value !== null ? key : key.value) : key;
        if (seen.has(id)) {
          found = key ?? undefined;
          return visit.BREAK;
        }
        seen.add(id);
      }
      return undefined;
    },
  });
  return found;
}


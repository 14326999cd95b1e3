import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';

/**
 * The README and the guide's pages behind it (docs/*.md): a test that checks what a section
 * says finds the section on whichever page holds it, so a page may move without the check
 * being lost (issue #35).
 */
const ROOT = path.resolve(import.meta.dirname, '../..');

/** README.md first, then every page of docs/, as [repo-relative path, text]. */
export function guidePages(): [string, string][] {
  const docs = readdirSync(path.join(ROOT, 'docs'))
    .filter((name) => name.endsWith('.md'))
    .map((name) => `docs/${name}`);
  return ['README.md', ...docs].map((page) => [page, readFileSync(path.join(ROOT, page), 'utf8')]);
}

/**
 * The lines of the section under `heading` (a whole line such as `## Command line`), up to the
 * next heading of its level or above, from the one page that holds it; throws when no page or
 * more than one does.
 */
export function guideSection(heading: string): string[] {
  const level = /^#+/.exec(heading)?.[0].length ?? 2;
  const found = guidePages().filter(([, text]) => text.split('\n').includes(heading));
  if (found.length !== 1) throw new Error(`${found.length === 0 ? 'no page holds' : `${found.map(([p]) => p).join(', ')} all hold`} the heading "${heading}"`);
  const lines = found[0]![1].split('\n');
  const start = lines.indexOf(heading);
  const end = lines.findIndex((line, i) => i > start && new RegExp(`^#{1,${level}} `).test(line));
  return lines.slice(start, end < 0 ? undefined : end);
}

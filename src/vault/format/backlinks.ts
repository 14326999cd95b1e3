import path from 'node:path';
import { FrontmatterError, parseNote } from './frontmatter.js';
import { LinkError, linkTarget, resolveLink } from './links.js';
import type { NoteKind, Vault } from '../files/vault.js';

/** Which notes link to a given one (docs/design.md §1, "Links"): the lookups behind "the meeting of this note". */

/**
 * Whether a link value names `targetAbs`, checked without touching the disk first and then
 * confirmed by resolving it (so `[[Sync]]` with two notes called Sync matches neither).
 */
export async function linksTo(vault: Vault, value: unknown, targetAbs: string): Promise<boolean> {
  const target = linkTarget(value);
  if (target === undefined) return false;
  const wanted = target.replace(/^\/+/, '').toLowerCase();
  const rel = vault.rel(targetAbs).toLowerCase();
  const plausible = rel === wanted || rel.endsWith(`/${wanted}`) || path.resolve(target).toLowerCase() === targetAbs.toLowerCase();
  if (!plausible) return false;
  try {
    return (await resolveLink(vault, value as string)) === targetAbs;
  } catch (err) {
    if (err instanceof LinkError) return false;
    throw err;
  }
}

/** The notes of one kind whose `key` links to `targetAbs`; notes that do not parse are skipped. */
export async function notesLinkingTo(vault: Vault, kind: NoteKind, folder: string, key: string, targetAbs: string): Promise<string[]> {
  const out: string[] = [];
  for (const file of await vault.listMarkdown(folder)) {
    if (file === targetAbs || vault.kindOf(file) !== kind) continue;
    const content = await vault.readIfExists(file);
    if (content === undefined) continue;
    let data: Record<string, unknown>;
    try {
      data = parseNote(content).data;
    } catch (err) {
      if (err instanceof FrontmatterError) continue;
      throw err;
    }
    if (await linksTo(vault, data[key], targetAbs)) out.push(file);
  }
  return out;
}

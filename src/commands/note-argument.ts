import path from 'node:path';
import { PathError, resolveNotePath } from '../vault/files/confine.js';
import { LinkError, resolveLink } from '../vault/format/links.js';
import type { NoteKind, Vault } from '../vault/files/vault.js';
import { CliError, EXIT_USAGE } from './common.js';

/**
 * A note named on the command line (docs/design.md §6): a vault-relative path with or without
 * `.md`, a path relative to the current folder or absolute (inside the vault), or a bare
 * note name resolved as a link is (`[[…]]` copied from Obsidian included). The first of
 * these that names an existing note wins, in that order, so a path typed from inside the
 * vault's folders works as one typed from its root. Returns the absolute path, confined to
 * the vault with symbolic links followed (confine.ts); anything else is a usage error. A
 * bare name several notes share is the one note of the first kind in `prefer` that has one.
 */
export async function noteArgument(vault: Vault, raw: string, cwd: string, prefer?: NoteKind[]): Promise<string> {
  const given = unwrapLink(raw);
  if (given === '') throw new CliError('a note is required', EXIT_USAGE);
  const tried: string[] = [];
  for (const candidate of candidates(vault, given, cwd)) {
    if (!vault.contains(candidate) || candidate === vault.root) continue;
    tried.push(vault.rel(candidate));
    if (await vault.exists(candidate)) return confined(vault, candidate);
  }
  if (path.isAbsolute(given) && !vault.contains(given)) throw new CliError(`${raw} is not inside the vault ${vault.root}`, EXIT_USAGE);
  if (!given.includes('/')) {
    try {
      return await confined(vault, await resolveLink(vault, given));
    } catch (err) {
      if (!(err instanceof LinkError)) throw err;
      if (err.kind === 'ambiguous') {
        // A meeting shares its name with its transcript, context and summary: the command's kind decides.
        for (const kind of prefer ?? []) {
          const ofKind = err.candidates.filter((rel) => vault.kindOf(vault.abs(rel)) === kind);
          if (ofKind.length === 1) return confined(vault, vault.abs(ofKind[0]!));
        }
        throw new CliError(err.message.replace(/^the link/, 'the note name'), EXIT_USAGE);
      }
    }
  }
  const where = tried.length > 0 ? ` (looked for ${[...new Set(tried)].map((t) => `"${t}"`).join(', ')}${given.includes('/') ? '' : ' and a note of that name anywhere'})` : '';
  throw new CliError(`no such note: ${raw}${where}`, EXIT_USAGE);
}

/** Vault-relative, then relative to the current folder; each as given, then with `.md`. */
function candidates(vault: Vault, given: string, cwd: string): string[] {
  const forms = /\.md$/i.test(given) ? [given] : [given, `${given}.md`];
  if (path.isAbsolute(given)) return forms.map((form) => path.resolve(form));
  return [...forms.map((form) => path.resolve(vault.root, form)), ...forms.map((form) => path.resolve(cwd, form))];
}

function unwrapLink(raw: string): string {
  const m = /^\[\[([^\]]*)\]\]$/.exec(raw.trim());
  return (m ? m[1]!.split('|')[0]!.split('#')[0]! : raw).trim();
}

async function confined(vault: Vault, abs: string): Promise<string> {
  try {
    return await resolveNotePath(vault, vault.rel(abs));
  } catch (err) {
    if (err instanceof PathError) throw new CliError(err.message, EXIT_USAGE);
    throw err;
  }
}

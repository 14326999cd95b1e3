import path from 'node:path';
import { FrontmatterError, parseNote } from './frontmatter.js';
import { LinkError, linkTarget, resolveLink } from './links.js';
import type { Vault } from '../files/vault.js';
import { OutsideVaultError, readConfinedText } from '../files/real-place.js';
import { MeetingAssistantError } from '../../errors.js';

/**
 * Summary templates (docs/summaries.md): a note whose headings, and the hints
 * under them, are the structure a meeting's summary must follow. A meeting names one with
 * `template: "[[Stand-up]]"`, else `Agent.DefaultTemplate` names one, else the built-in
 * structure applies.
 */

export interface SummaryTemplate {
  /** The note's name without `.md` ("Stand-up"). */
  name: string;
  /** Absolute path. */
  path: string;
  /** The note's body: its frontmatter is Obsidian's business (properties of notes made from it). */
  body: string;
}

/** A template that was asked for and cannot be used: never a silent fallback to another one. */
export class TemplateError extends MeetingAssistantError {
  constructor(message: string, options?: ErrorOptions) {
    super(message, true, options);
  }
}

/** Where a template link came from, for the message a person reads in the failure report. */
export type TemplateSource = 'meeting' | 'config';

const SOURCE: Record<TemplateSource, string> = {
  meeting: 'the meeting note\'s "template"',
  config: 'Agent.DefaultTemplate',
};

/**
 * The template a link names: a note inside `Folders.Templates` first (its path there, or a
 * unique name below it), then anywhere in the vault as any other link resolves.
 */
export async function resolveTemplate(vault: Vault, link: string, source: TemplateSource): Promise<SummaryTemplate> {
  const named = `the template ${JSON.stringify(link)} (${SOURCE[source]})`;
  const target = linkTarget(link);
  if (target === undefined) throw new TemplateError(`${named} is not a link to a note`);
  const folder = vault.layout.folders.Templates;
  let abs = await findInFolder(vault, folder, target, named);
  if (abs === undefined) {
    try {
      abs = await resolveLink(vault, link);
    } catch (err) {
      if (!(err instanceof LinkError)) throw err;
      const where = err.kind === 'dangling' ? `: no such note in ${vault.rel(folder) || '.'}/ or anywhere in the vault` : `: ${err.message}`;
      throw new TemplateError(`${named} cannot be used${where}`, { cause: err });
    }
  }
  // The template goes into the instructions the model is sent: read only where it really lies
  // in the vault, never through a link to the token (docs/design.md §10; issue #43 point 1).
  let content: string | undefined;
  try {
    content = await readConfinedText(vault, abs);
  } catch (err) {
    if (err instanceof OutsideVaultError) throw new TemplateError(`${named} cannot be used: ${err.message}`, { cause: err });
    throw err;
  }
  if (content === undefined) throw new TemplateError(`${named} cannot be used: ${vault.rel(abs)} does not exist`);
  const body = bodyOf(content).trim();
  if (body === '') throw new TemplateError(`${named} cannot be used: ${vault.rel(abs)} has no headings or text`);
  return { name: path.basename(abs).replace(/\.md$/i, ''), path: abs, body };
}

/** The template note below `folder` whose path ends with `target`; exact case wins, two candidates are an error. */
async function findInFolder(vault: Vault, folder: string, target: string, named: string): Promise<string | undefined> {
  const wanted = target.replace(/^\/+/, '');
  const files = (await vault.listMarkdown(folder)).map((abs) => ({ abs, rel: path.relative(folder, abs).split(path.sep).join('/') }));
  const fits = (rel: string, w: string) => rel === w || rel.endsWith(`/${w}`);
  const exact = files.filter((f) => fits(f.rel, wanted));
  const matches = exact.length > 0 ? exact : files.filter((f) => fits(f.rel.toLowerCase(), wanted.toLowerCase()));
  if (matches.length > 1) {
    const list = matches.map((f) => `"${vault.rel(f.abs)}"`).join(', ');
    throw new TemplateError(`${named} could mean any of ${list}; write the folder into the link`);
  }
  return matches[0]?.abs;
}

function bodyOf(content: string): string {
  try {
    return parseNote(content).body;
  } catch (err) {
    // A template's properties may hold placeholders that are not YAML; its body is what counts.
    if (!(err instanceof FrontmatterError)) throw err;
    const closing = /\r?\n---[ \t]*\r?\n/.exec(content);
    return content.startsWith('---') && closing ? content.slice(closing.index + closing[0].length) : content;
  }
}

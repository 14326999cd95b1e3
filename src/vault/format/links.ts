import path from 'node:path';
import { isNotFound, isTempFile, walkFiles } from '../files/fs.js';
import { isSyncToolFile } from '../files/sync-files.js';
import type { Vault } from '../files/vault.js';
import { MeetingAssistantError } from '../../errors.js';

/**
 * Links in frontmatter, resolved the way Obsidian does (docs/design.md §1, "Links"):
 * strip alias and heading, add `.md`, try the vault-relative path, then a unique
 * basename (or path suffix) anywhere in the vault, case-insensitively with exact case winning.
 */

export type LinkErrorKind = 'dangling' | 'ambiguous' | 'invalid';

export class LinkError extends MeetingAssistantError {
  constructor(
    readonly kind: LinkErrorKind,
    readonly link: string,
    message: string,
    /** For an ambiguous link: the vault-relative paths it could mean. */
    readonly candidates: string[] = [],
  ) {
    super(message, true);
  }
}

/** Folders that are never link targets: Obsidian's own, the trash, version control. */
const HIDDEN_FOLDERS = new Set(['.trash', '.obsidian', '.git']);

const WIKILINK = /^!?\[\[([^\]]*)\]\]$/;
const MARKDOWN_LINK = /^!?\[[^\]]*\]\((.*)\)$/;

/**
 * `.md` is added when the name has no extension. A "dot part" with a space or only digits
 * (`Dr. Smith`, `Release 1.2`) is part of the name, not an extension.
 */
function withExtension(target: string): string {
  const ext = path.posix.extname(target);
  return ext === '' || !/^\.[A-Za-z0-9]{1,8}$/.test(ext) || /^\.\d+$/.test(ext) ? `${target}.md` : target;
}

function decode(text: string): string {
  try {
    return decodeURIComponent(text);
  } catch {
    return text;
  }
}

/** The path a link names (alias and heading stripped, `.md` added); undefined for no link. */
export function linkTarget(value: string): string | undefined;
export function linkTarget(value: unknown): string | undefined;
export function linkTarget(value: unknown): string | undefined {
  if (typeof value !== 'string') return undefined;
  const text = value.trim();
  let target: string;
  const wiki = WIKILINK.exec(text);
  const markdown = wiki ? null : MARKDOWN_LINK.exec(text);
  if (wiki) {
    target = (wiki[1] ?? '').split('|')[0]!.split('#')[0]!;
  } else if (markdown) {
    let url = (markdown[1] ?? '').trim();
    // `[x](<path with spaces.md> "title")`
    const angled = /^<([^>]*)>/.exec(url);
    if (angled) url = angled[1] ?? '';
    else url = url.replace(/\s+"[^"]*"$/, '');
    target = decode(url.split('#')[0]!);
  } else {
    target = text;
  }
  target = target.trim().replace(/^\.\//, '');
  if (target === '' || target.endsWith('/')) return undefined;
  return withExtension(target);
}

/**
 * The vault's files as a link lookup sees them (vault-relative, forward slashes), listed when
 * first asked. One per look-up unless shared: `vaultFiles` makes one that the links of one
 * meeting share (meeting.ts), so that a new meeting's two notes still to be created cost one
 * look at the vault, not two. `source` is where the listing comes from: a walk by default, or
 * a listing kept between look-ups (scan/vault-listing.ts, which the daemon and the run caches
 * hold).
 */
export type VaultFiles = () => Promise<readonly string[]>;

export function vaultFiles(vault: Vault, source: VaultFiles = () => listVaultFiles(vault)): VaultFiles {
  let listed: Promise<readonly string[]> | undefined;
  return () => (listed ??= source());
}

/**
 * What a link lookup walks: not into dot-folders (Obsidian ignores every one; the contract
 * names .trash, .obsidian and .git), and past temporary files and sync tools' files.
 */
export const LINK_WALK = {
  skip: (name: string) => isTempFile(name) || isSyncToolFile(name),
  enter: (name: string) => !name.startsWith('.'),
};

/** Every file of the vault (vault-relative, forward slashes), hidden folders skipped: one walk, no reads. */
async function listVaultFiles(vault: Vault): Promise<string[]> {
  const out: string[] = [];
  await walkFiles(vault.fs, vault.root, LINK_WALK, ({ rel, entry }) => {
    if (entry.isFile()) out.push(rel);
  });
  return out;
}

function isHidden(rel: string): boolean {
  return rel.split('/').some((part) => HIDDEN_FOLDERS.has(part));
}

async function isFile(vault: Vault, absPath: string): Promise<boolean> {
  try {
    return (await vault.fs.stat(absPath)).isFile();
  } catch (err) {
    if (isNotFound(err) || (err as { code?: string }).code === 'ENOTDIR') return false;
    throw err;
  }
}

/** Vault-relative target of a link, refusing paths that leave the vault. */
function relativeTarget(vault: Vault, value: string): string {
  const target = linkTarget(value);
  if (target === undefined) throw new LinkError('invalid', value, `"${value}" is not a link to a note`);
  // A leading `/` is Obsidian's "from the vault root"; an absolute path inside the vault is accepted as is.
  const abs = path.isAbsolute(target) && vault.contains(target) ? target : vault.abs(target.replace(/^\/+/, ''));
  if (!vault.contains(abs) || abs === vault.root) {
    throw new LinkError('invalid', value, `the link "${value}" points outside the vault`);
  }
  return vault.rel(abs);
}

/**
 * Absolute path of the existing note a link names. Dangling or ambiguous links are a
 * LinkError whose message says which link and why.
 */
export async function resolveLink(vault: Vault, value: string, files: VaultFiles = vaultFiles(vault)): Promise<string> {
  const rel = relativeTarget(vault, value);
  // A sync tool's conflict copy is never what a link means (docs/design.md §4).
  if (isSyncToolFile(rel)) throw new LinkError('invalid', value, `the link "${value}" names a sync tool's conflict copy or temporary file, not a note`);
  if (!isHidden(rel) && (await isFile(vault, vault.abs(rel)))) return vault.abs(rel);

  const wanted = rel.toLowerCase();
  const matches = (await files()).filter((file) => {
    const lower = file.toLowerCase();
    return lower === wanted || lower.endsWith(`/${wanted}`);
  });
  const exact = matches.filter((file) => file === rel || file.endsWith(`/${rel}`));
  const pick = exact.length > 0 ? exact : matches;
  if (pick.length === 1) return vault.abs(pick[0]!);
  if (pick.length === 0) {
    throw new LinkError('dangling', value, `the link "${value}" points to no note (looked for "${rel}" in the vault)`);
  }
  const list = pick.sort();
  throw new LinkError(
    'ambiguous',
    value,
    `the link "${value}" could mean any of ${list.map((p) => `"${p}"`).join(', ')}; write the folder into the link`,
    list,
  );
}

/**
 * For `context`/`summary` links, which may name a note still to be created: an existing
 * note resolves; a dangling link names where to create it (its own folder, else
 * `defaultFolder`); no link at all means `<defaultFolder>/<defaultName>.md`.
 */
export async function resolveOrPlanLink(
  vault: Vault,
  value: string | undefined,
  defaultFolder: string,
  defaultName: string,
  files?: VaultFiles,
): Promise<{ path: string; exists: boolean }> {
  const folder = vault.abs(defaultFolder);
  if (value === undefined || linkTarget(value) === undefined) {
    const planned = path.join(folder, `${defaultName}.md`);
    return { path: planned, exists: await isFile(vault, planned) };
  }
  try {
    return { path: await resolveLink(vault, value, files), exists: true };
  } catch (err) {
    if (!(err instanceof LinkError) || err.kind !== 'dangling') throw err;
  }
  const rel = relativeTarget(vault, value);
  const planned = rel.includes('/') ? vault.abs(rel) : path.join(folder, rel);
  return { path: planned, exists: false };
}

/** The link form the daemon writes: `[[vault/relative/path-without-.md]]`. */
export function formatLink(vault: Vault, absPath: string): string {
  return `[[${vault.rel(absPath).replace(/\.md$/i, '')}]]`;
}

import { existsSync, readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, it } from 'vitest';

/**
 * The vaults the fixture tests run on: the project's own (test/fixtures/vault, always there)
 * and the shared real-world vault beside the repository (`../shared/fixtures/kepano-obsidian`),
 * which a plain clone does not have. Both are found from this file's location, never from the
 * working directory or a fixed path, and a test on an absent vault is a visible skip.
 */

export const REPO_ROOT = fileURLToPath(new URL('../..', import.meta.url));

export interface FixtureVault {
  /** For test titles: what the vault is and, when absent, why its tests are skipped. */
  title: string;
  dir: string;
  present: boolean;
  /** A meeting note with a block list of quoted person links, and one more person to add to it. */
  meeting: { note: string; key: string; people: string[]; add: string };
  /** A person's link as written in the vault, for searches. */
  person: string;
  /** Vault-relative folder all templates (notes with `{{…}}` that is not YAML) live in. */
  templates: string;
}

export const OWN_VAULT: FixtureVault = {
  title: 'the project fixture vault (test/fixtures/vault)',
  dir: path.join(REPO_ROOT, 'test', 'fixtures', 'vault'),
  present: true,
  meeting: {
    note: 'Meetings/2026-03-02 Atlas planning.md',
    key: 'attendees',
    people: ['[[People/Zoë Müller|Zoë]]', '[[Łukasz Nowak]]', '[[People/Ana Costa]]'],
    add: '[[People/Jun Park]]',
  },
  person: '[[People/Zoë Müller',
  templates: 'Templates/',
};

const SHARED_REL = '../shared/fixtures/kepano-obsidian';
const sharedDir = path.resolve(REPO_ROOT, SHARED_REL);
const sharedPresent = existsSync(sharedDir);

export const SHARED_VAULT: FixtureVault = {
  title: sharedPresent
    ? `the shared kepano-obsidian vault (${SHARED_REL})`
    : `the shared kepano-obsidian vault (skipped: ${SHARED_REL} is not beside the repository)`,
  dir: sharedDir,
  present: sharedPresent,
  meeting: { note: 'Notes/2023-09-12 Meeting with Steph.md', key: 'people', people: ['[[Steph Ango]]'], add: '[[Alice]]' },
  person: '[[Steph Ango]]',
  templates: 'Templates/',
};

export const FIXTURE_VAULTS: readonly FixtureVault[] = [OWN_VAULT, SHARED_VAULT];

/**
 * The tests of one fixture vault: a describe block when the vault is here; else one visible
 * skip whose title says why, so a clone without the shared folder counts one skip per block
 * rather than one per test.
 */
export function describeVault(vault: FixtureVault, title: string, body: () => void): void {
  if (vault.present) describe(title, body);
  else it.skipIf(!vault.present)(title, () => undefined);
}

/** Every file of a vault present here (else none), by vault-relative path. */
export function readVaultFiles(vault: FixtureVault, options: { markdownOnly?: boolean } = {}): Record<string, string> {
  return vault.present ? readFolderFiles(vault.dir, options) : {};
}

/** Every file below `dir` (dot-folders skipped) by relative path; only `.md` files when asked. */
export function readFolderFiles(dir: string, options: { markdownOnly?: boolean } = {}): Record<string, string> {
  const out: Record<string, string> = {};
  const walk = (rel: string) => {
    for (const entry of readdirSync(path.join(dir, rel), { withFileTypes: true })) {
      if (entry.name.startsWith('.')) continue;
      const child = rel ? `${rel}/${entry.name}` : entry.name;
      if (entry.isDirectory()) walk(child);
      else if (entry.isFile() && (!options.markdownOnly || entry.name.endsWith('.md'))) {
        out[child] = readFileSync(path.join(dir, child), 'utf8');
      }
    }
  };
  walk('');
  return out;
}

/** The YAML text between a note's fences (BOM and CRLF allowed), undefined without frontmatter. */
export function frontmatterOf(text: string): string | undefined {
  const m = /^\uFEFF?---\r?\n([\s\S]*?)\r?\n---[ \t]*\r?(?:\n|$)/.exec(text);
  return m?.[1];
}

/** Every `[[wikilink]]` in a text (frontmatter and body), as written. */
export function wikilinksOf(text: string): string[] {
  return [...text.matchAll(/\[\[[^\]\n]+\]\]/g)].map((m) => m[0]);
}
